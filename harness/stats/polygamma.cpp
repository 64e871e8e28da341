#include "harness/stats/polygamma.h"

#include <cmath>

namespace collbench {
namespace {

// Below this the recurrences ψ(x) = ψ(x + 1) − 1/x (and their derivatives) move x up to where
// the asymptotic series are exact to double precision.
constexpr double kAsymptoticFrom = 8;

}  // namespace

double digamma(double x) {
  double result = 0;
  for (; x < kAsymptoticFrom; x += 1) result -= 1 / x;
  const double r = 1 / (x * x);
  return result + std::log(x) - 0.5 / x -
         r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r / 132))));
}

double trigamma(double x) {
  double result = 0;
  for (; x < kAsymptoticFrom; x += 1) result += 1 / (x * x);
  const double r = 1 / (x * x);
  return result + 1 / x + r / 2 +
         r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * 5 / 66))));
}

double tetragamma(double x) {
  double result = 0;
  for (; x < kAsymptoticFrom; x += 1) result -= 2 / (x * x * x);
  const double r = 1 / (x * x);
  return result - r - r / x - r * r / 2 +
         r * r * r * (1.0 / 6 - r * (1.0 / 6 - r * (3.0 / 10 - r * 5 / 6)));
}

double trigamma_inverse(double y) {
  if (y > 1e7) return 1 / std::sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;
  for (int step = 0; step < 50; ++step) {
    const double t = trigamma(x);
    const double change = t * (1 - t / y) / tetragamma(x);
    x += change;
    if (-change / x < 1e-8) break;
  }
  return x;
}

}  // namespace collbench
