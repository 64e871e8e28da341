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

void add_member(h5::RowType& row, const char*, std::size_t offset,
                std::type_identity<SummaryColumns>) {
  for (std::size_t i = 0; i < std::size(kSummaryFields); ++i)
    row.add(kSummaryFields[i].name, offset + i * sizeof(double), H5T_NATIVE_DOUBLE);
}

}  // namespace collbench
