#include "faults.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "stream.h"
#include "violation.h"

namespace standin {
namespace {

int g_process_rank = -1;
double g_started = 0;
std::atomic<bool> g_faulted{false};

double number_from(const char* variable, double fallback) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atof(text) : fallback;
}

// "RANK:VALUE[:P]" of the environment, for this process's rank; nothing when unset or for
// another rank.
struct RankSetting {
  long value = 0;
  int nranks = 0;  // 0: communicators of any size
};

std::optional<RankSetting> rank_setting(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return std::nullopt;
  int rank = 0;
  RankSetting setting;
  if (std::sscanf(text, "%d:%ld:%d", &rank, &setting.value, &setting.nranks) < 2)
    violation(variable, "'{}' is not RANK:VALUE or RANK:VALUE:NRANKS", text);
  if (rank != g_process_rank) return std::nullopt;
  return setting;
}

bool due(const char* variable, int nranks) {
  const auto setting = rank_setting(variable);
  return setting && (setting->nranks == 0 || setting->nranks == nranks) &&
         host_seconds() - g_started >= static_cast<double>(setting->value) * 1e-3 &&
         !g_faulted.exchange(true);
}

}  // namespace

void set_process_rank(int rank) {
  if (g_process_rank >= 0) return;
  g_process_rank = rank;
  g_started = host_seconds();
}

Fault fault_now(int nranks) {
  if (due("COLLBENCH_STANDIN_HANG", nranks)) return Fault::hang;
  if (due("COLLBENCH_STANDIN_ASYNC_ERROR", nranks)) return Fault::async_error;
  return Fault::none;
}

double delay_seconds() {
  const auto setting = rank_setting("COLLBENCH_STANDIN_DELAY_US");
  return setting ? static_cast<double>(setting->value) * 1e-6 : 0;
}

double cost_seconds(std::size_t bytes) {
  return number_from("COLLBENCH_STANDIN_LATENCY_US", 5) * 1e-6 +
         static_cast<double>(bytes) / (number_from("COLLBENCH_STANDIN_GBPS", 20) * 1e9);
}

double connect_seconds() { return number_from("COLLBENCH_STANDIN_CONNECT_MS", 20) * 1e-3; }

bool corrupts(ncclDataType_t type) {
  const auto setting = rank_setting("COLLBENCH_STANDIN_CORRUPT");
  return setting && setting->value == static_cast<long>(type);
}

}  // namespace standin
