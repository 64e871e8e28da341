// Exits 1 where the compiler drops collbench's rounding of a time to the float32 its file holds
// (as_recorded) when it pairs two such roundings into one vector operation: GCC 12.2 (Debian
// 12's) vectorises the two stores below (tree dump slp2: (vector(2) float) then (vector(2)
// double)) and its value numbering (fre5) then folds the pair away, so both values keep double
// precision, as a window's sample did in RowRunner::sample_in_windows.
#include "harness/plan/point.h"

using collbench::as_recorded;

struct Pair {
  double unused, first, second;
};

__attribute__((noipa)) double start() { return 3.3333333333333e-6; }
__attribute__((noipa)) double elapsed() { return 1.2345678912345e-6; }

__attribute__((noipa)) Pair round_both(double t0) {
  Pair pair{};
  const double s = start();
  const double e = elapsed();
  pair.first = as_recorded(s - t0);
  pair.second = as_recorded(s + e - t0);
  return pair;
}

int main() {
  const double t0 = 1e-7;
  const double want = collbench::recorded_microseconds(start() + elapsed() - t0) /
                      collbench::kMicrosecondsPerSecond;
  return round_both(t0).second == want ? 0 : 1;
}
