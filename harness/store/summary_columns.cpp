#include "harness/store/summary_columns.h"

#include "harness/plan/point.h"

namespace collbench {

SummaryColumns summary_columns(const Summary& summary) {
  SummaryColumns columns{};
  for (std::size_t i = 0; i < std::size(kSummaryFields); ++i)
    columns.microseconds[i] = summary.*kSummaryFields[i].seconds * kMicrosecondsPerSecond;
  return columns;
}

void read_summary_columns(const SummaryColumns& columns, Summary& summary) {
  for (std::size_t i = 0; i < std::size(kSummaryFields); ++i)
    summary.*kSummaryFields[i].seconds = columns.microseconds[i] / kMicrosecondsPerSecond;
}

h5::RowType& add_summary_columns(h5::RowType& row, std::size_t offset) {
  for (std::size_t i = 0; i < std::size(kSummaryFields); ++i)
    row.add(kSummaryFields[i].name, offset + i * sizeof(double), H5T_NATIVE_DOUBLE);
  return row;
}

}  // namespace collbench
