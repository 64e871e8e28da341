#pragma once
#include <cstddef>
#include <random>

namespace collbench {

// Uniform index below `bound`, exact, not by std::uniform_int_distribution, whose algorithm
// differs between standard libraries: the same seed gives the same draws everywhere.
std::size_t uniform_index(std::mt19937_64& engine, std::size_t bound);

}  // namespace collbench
