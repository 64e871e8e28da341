#pragma once
// Inputs whose reduction is exact in any order (small integers, even in floating point), and
// the results they must give, so a wrong element is a real error and never rounding.
#include <cstddef>
#include <cstdint>
#include <span>

#include "benches/collectives/collective.h"
#include "benches/datatype.h"

namespace collbench {

struct PatternCase {
  CollectiveKind kind;
  DataType datatype;
  ReduceOp op;
  int rank;
  int nranks;
  Shape shape;
};

// Writes this rank's send_count input elements into `send` (host memory).
void fill_input(const PatternCase& pattern, std::span<std::byte> send);

// Counts the elements of this rank's recv_count results that differ from the exact answer.
std::uint64_t count_wrong(const PatternCase& pattern, std::span<const std::byte> result);

}  // namespace collbench
