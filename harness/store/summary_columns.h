#pragma once
// A Summary's times in a table row: the float64 columns kSummaryFields names, in microseconds,
// one after another (/points, /links).
#include <array>
#include <cstddef>
#include <iterator>
#include <type_traits>

#include "harness/stats/summary.h"
#include "harness/store/row_type.h"

namespace collbench {

struct SummaryColumns {
  std::array<double, std::size(kSummaryFields)> microseconds;
};

SummaryColumns summary_columns(const Summary& summary);
// Every time of `summary` from the columns; its sample count is the row's to set.
void read_summary_columns(const SummaryColumns& columns, Summary& summary);
// A SummaryColumns member of a row adds the kSummaryFields columns at `offset`.
void add_member(h5::RowType& row, const char* name, std::size_t offset,
                std::type_identity<SummaryColumns>);

}  // namespace collbench
