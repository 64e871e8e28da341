#pragma once
// The columns that name a curve in the model and prediction tables.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "harness/plan/point.h"
#include "harness/store/row_type.h"

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
  char sync[16];      // schema 22; empty in older files, whose curves take their points' sync
};

// A CurveColumns member of a row adds its columns at `offset`.
void add_member(h5::RowType& row, const char* name, std::size_t offset,
                std::type_identity<CurveColumns>);

CurveColumns curve_columns(const PointKey& key);
// An empty sync (files before schema 22) reads as SampleStart::barrier.
PointKey curve_key_of(const CurveColumns& columns);

}  // namespace collbench
