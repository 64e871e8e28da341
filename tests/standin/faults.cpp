#include "faults.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "violation.h"

namespace standin {
namespace {

int g_process_rank = -1;
std::atomic<bool> g_faulted{false};

double number_from(const char* variable, double fallback) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atof(text) : fallback;
}

// "RANK:VALUE[:P]" of the environment, for this process's rank; nothing when unset or for
// another rank.
struct RankSetting {
  std::string value;
  int nranks = 0;  // 0: communicators of any size
};

std::optional<RankSetting> rank_setting(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return std::nullopt;
  int rank = 0;
  char value[64] = {};
  RankSetting setting;
  if (std::sscanf(text, "%d:%63[^:]:%d", &rank, value, &setting.nranks) < 2)
    violation(variable, "'{}' is not RANK:VALUE or RANK:VALUE:NRANKS", text);
  if (rank != g_process_rank) return std::nullopt;
  setting.value = value;
  return setting;
}

long number_of(const RankSetting& setting) { return std::atol(setting.value.c_str()); }

bool due(const char* variable, CollectiveKind kind, int nranks) {
  const auto setting = rank_setting(variable);
  return setting && (setting->nranks == 0 || setting->nranks == nranks) &&
         setting->value == name(kind) && !g_faulted.exchange(true);
}

}  // namespace

void set_process_rank(int rank) {
  if (g_process_rank < 0) g_process_rank = rank;
}

bool hangs_at_init(int rank) {
  const char* hung = std::getenv("COLLBENCH_STANDIN_INIT_HANG");
  return g_process_rank < 0 && hung && *hung && std::atoi(hung) == rank;
}

Fault fault_now(CollectiveKind kind, ncclDataType_t type, int nranks) {
  if (type != ncclFloat32) return Fault::none;
  if (due("COLLBENCH_STANDIN_HANG", kind, nranks)) return Fault::hang;
  if (due("COLLBENCH_STANDIN_ASYNC_ERROR", kind, nranks)) return Fault::async_error;
  return Fault::none;
}

double delay_seconds() {
  const auto setting = rank_setting("COLLBENCH_STANDIN_DELAY_US");
  return setting ? static_cast<double>(number_of(*setting)) * 1e-6 : 0;
}

double cost_seconds(std::size_t bytes) {
  return number_from("COLLBENCH_STANDIN_LATENCY_US", 5) * 1e-6 +
         static_cast<double>(bytes) / (number_from("COLLBENCH_STANDIN_GBPS", 20) * 1e9);
}

double connect_seconds() { return number_from("COLLBENCH_STANDIN_CONNECT_MS", 20) * 1e-3; }

bool corrupts(ncclDataType_t type) {
  const auto setting = rank_setting("COLLBENCH_STANDIN_CORRUPT");
  return setting && number_of(*setting) == static_cast<long>(type);
}

}  // namespace standin
