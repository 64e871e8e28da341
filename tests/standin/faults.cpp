#include "faults.h"

#include <cstdlib>

#include "violation.h"

namespace standin {
namespace {

int g_process_rank = -1;

double number_from(const char* variable, double fallback) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atof(text) : fallback;
}

bool hits(const char* variable, long call_number) {
  int rank = 0;
  long n = 0;
  return rank_setting(variable, rank, n) && rank == g_process_rank && n == call_number;
}

}  // namespace

void set_process_rank(int rank) {
  if (g_process_rank < 0) g_process_rank = rank;
}

Fault fault_for(long call_number) {
  if (hits("COLLBENCH_STANDIN_HANG", call_number)) return Fault::hang;
  if (hits("COLLBENCH_STANDIN_ASYNC_ERROR", call_number)) return Fault::async_error;
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
