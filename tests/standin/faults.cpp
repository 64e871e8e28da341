#include "faults.h"

#include <atomic>
#include <cstdlib>

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

bool due(const char* variable) {
  int rank = 0;
  long milliseconds = 0;
  return rank_setting(variable, rank, milliseconds) && rank == g_process_rank &&
         host_seconds() - g_started >= static_cast<double>(milliseconds) * 1e-3 &&
         !g_faulted.exchange(true);
}

}  // namespace

void set_process_rank(int rank) {
  if (g_process_rank >= 0) return;
  g_process_rank = rank;
  g_started = host_seconds();
}

Fault fault_now() {
  if (due("COLLBENCH_STANDIN_HANG")) return Fault::hang;
  if (due("COLLBENCH_STANDIN_ASYNC_ERROR")) return Fault::async_error;
  return Fault::none;
}

double delay_seconds() {
  int rank = 0;
  long microseconds = 0;
  if (!rank_setting("COLLBENCH_STANDIN_DELAY_US", rank, microseconds) || rank != g_process_rank)
    return 0;
  return static_cast<double>(microseconds) * 1e-6;
}

double cost_seconds(std::size_t bytes) {
  return number_from("COLLBENCH_STANDIN_LATENCY_US", 5) * 1e-6 +
         static_cast<double>(bytes) / (number_from("COLLBENCH_STANDIN_GBPS", 20) * 1e9);
}

bool corrupts(ncclDataType_t type) {
  int rank = 0;
  long corrupted_type = 0;
  return rank_setting("COLLBENCH_STANDIN_CORRUPT", rank, corrupted_type) &&
         rank == g_process_rank && corrupted_type == static_cast<long>(type);
}

}  // namespace standin
