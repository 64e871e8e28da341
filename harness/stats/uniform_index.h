#pragma once
#include <cstddef>
#include <random>

namespace collbench {

// Uniform index below `bound`, exact, not by std::uniform_int_distribution, whose algorithm
// differs between standard libraries: the same seed gives the same draws everywhere.
std::size_t uniform_index(std::mt19937_64& engine, std::size_t bound);

// Uniform in (0, 1) from the engine's top 53 bits, as exact and as portable: never 0, whose
// logarithm is infinite, nor 1.
double uniform_open(std::mt19937_64& engine);

}  // namespace collbench
