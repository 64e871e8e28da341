// Exits 1 where the compiler drops a double's rounding to float when it pairs two such
// roundings into one vector operation: GCC 12.2 (Debian 12's) vectorises the two stores below
// (tree dump slp2: (vector(2) float) then (vector(2) double)) and its value numbering
// (fre5) then folds the pair away, so both values keep double precision. collbench rounds
// every sample so (as_recorded, harness/plan/point.h) and stores it as float32: its
// statistics would then not be of the values its file holds.
inline double as_float(double seconds) { return static_cast<float>(seconds * 1e6) / 1e6; }

struct Pair {
  double unused, first, second;
};

__attribute__((noipa)) double start() { return 3.3333333333333e-6; }
__attribute__((noipa)) double elapsed() { return 1.2345678912345e-6; }

__attribute__((noipa)) Pair round_both(double t0) {
  Pair pair{};
  const double s = start();
  const double e = elapsed();
  pair.first = as_float(s - t0);
  pair.second = as_float(s + e - t0);
  return pair;
}

int main() {
  const double t0 = 1e-7;
  const float want = static_cast<float>((start() + elapsed() - t0) * 1e6);
  return round_both(t0).second == want / 1e6 ? 0 : 1;
}
