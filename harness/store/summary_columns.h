#pragma once
// A Summary's times in a table row: the float64 columns kSummaryFields names, in microseconds,
// one after another (/points, /links).
#include <array>
#include <cstddef>
#include <iterator>

#include "harness/stats/summary.h"
#include "harness/store/h5_table.h"

namespace collbench {

struct SummaryColumns {
  std::array<double, std::size(kSummaryFields)> microseconds;
};

SummaryColumns summary_columns(const Summary& summary);
// Every time of `summary` from the columns; its sample count is the row's to set.
void read_summary_columns(const SummaryColumns& columns, Summary& summary);
// The columns of a SummaryColumns at `offset` in the row.
h5::RowType& add_summary_columns(h5::RowType& row, std::size_t offset);

}  // namespace collbench
