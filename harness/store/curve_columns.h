#pragma once
// The columns that name a curve in the model and prediction tables.
#include <cstddef>
#include <cstdint>

#include "harness/plan/point.h"
#include "harness/store/h5_table.h"

namespace collbench {

// The curve a row belongs to; rank count 0 means "across rank counts".
struct CurveColumns {
  char backend[24];
  char collective[16];
  char datatype[16];
  char redop[16];
  char placement[16];
  char algorithm[32];  // schema 3; empty when read from older files
  char protocol[32];
  char mode[16];
  std::int32_t nranks;
  std::int8_t in_place;
  std::int32_t root;  // schema 17; kNoRoot for collectives without one (0 in older files)
};

// The CurveColumns at `offset` in the row.
h5::RowType& add_curve_columns(h5::RowType& row, std::size_t offset);

CurveColumns curve_columns(const PointKey& key);
PointKey curve_key_of(const CurveColumns& columns);

}  // namespace collbench
