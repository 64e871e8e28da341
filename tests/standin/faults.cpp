#include "faults.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "violation.h"

namespace standin {
namespace {

// A fault for one rank, from "RANK:VALUE[:P]"; held only by the process of that rank.
struct RankFault {
  std::string value;
  int nranks = 0;  // 0: communicators of any size
};

// The environment, read once: the process's rank is known when its first communicator is made,
// and each collective then asks without reading it again.
struct Settings {
  double latency_s = 5e-6;
  double bytes_per_s = 20e9;
  double connect_s = 20e-3;
  std::optional<RankFault> delay_us, hang, async_error, corrupt;
};

int g_process_rank = -1;
Settings g_settings;
std::atomic<bool> g_faulted{false};

double number_from(const char* variable, double fallback) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atof(text) : fallback;
}

std::optional<RankFault> rank_fault(const char* variable, int process_rank) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return std::nullopt;
  int rank = 0;
  char value[64] = {};
  RankFault fault;
  if (std::sscanf(text, "%d:%63[^:]:%d", &rank, value, &fault.nranks) < 2)
    violation(variable, "'{}' is not RANK:VALUE or RANK:VALUE:NRANKS", text);
  if (rank != process_rank) return std::nullopt;
  fault.value = value;
  return fault;
}

long number_of(const RankFault& fault) { return std::atol(fault.value.c_str()); }

bool due(const std::optional<RankFault>& fault, CollectiveKind kind, int nranks) {
  return fault && (fault->nranks == 0 || fault->nranks == nranks) && fault->value == name(kind) &&
         !g_faulted.exchange(true);
}

}  // namespace

void set_process_rank(int rank) {
  if (g_process_rank >= 0) return;
  g_process_rank = rank;
  g_settings.latency_s = number_from("COLLBENCH_STANDIN_LATENCY_US", 5) * 1e-6;
  g_settings.bytes_per_s = number_from("COLLBENCH_STANDIN_GBPS", 20) * 1e9;
  g_settings.connect_s = number_from("COLLBENCH_STANDIN_CONNECT_MS", 20) * 1e-3;
  g_settings.delay_us = rank_fault("COLLBENCH_STANDIN_DELAY_US", rank);
  g_settings.hang = rank_fault("COLLBENCH_STANDIN_HANG", rank);
  g_settings.async_error = rank_fault("COLLBENCH_STANDIN_ASYNC_ERROR", rank);
  g_settings.corrupt = rank_fault("COLLBENCH_STANDIN_CORRUPT", rank);
}

bool hangs_joining(int rank) {
  static int joined = 0;  // communicators this process began to join
  ++joined;
  const char* hung = std::getenv("COLLBENCH_STANDIN_INIT_HANG");
  if (!hung || !*hung) return false;
  int hung_rank = -1, nth = 1;
  if (std::sscanf(hung, "%d:%d", &hung_rank, &nth) < 1)
    violation("COLLBENCH_STANDIN_INIT_HANG", "'{}' is not RANK or RANK:N", hung);
  return joined == nth && hung_rank == (g_process_rank < 0 ? rank : g_process_rank);
}

Fault fault_now(CollectiveKind kind, ncclDataType_t type, int nranks) {
  if (type != ncclFloat32) return Fault::none;
  if (due(g_settings.hang, kind, nranks)) return Fault::hang;
  if (due(g_settings.async_error, kind, nranks)) return Fault::async_error;
  return Fault::none;
}

double delay_seconds() {
  return g_settings.delay_us ? static_cast<double>(number_of(*g_settings.delay_us)) * 1e-6 : 0;
}

double cost_seconds(std::size_t bytes) {
  return g_settings.latency_s + static_cast<double>(bytes) / g_settings.bytes_per_s;
}

double connect_seconds() { return g_settings.connect_s; }

bool corrupts(ncclDataType_t type) {
  return g_settings.corrupt && number_of(*g_settings.corrupt) == static_cast<long>(type);
}

}  // namespace standin
