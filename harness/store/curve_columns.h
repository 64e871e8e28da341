#pragma once
// The columns that name a curve in the model and prediction tables, and a builder of those
// tables' compound types (text fixed-length in memory; h5::write_table stores it as UTF-8).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "harness/plan/point.h"
#include "harness/store/h5.h"

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

class CompoundBuilder {
 public:
  explicit CompoundBuilder(std::size_t bytes);
  CompoundBuilder& add(const char* name, std::size_t offset, hid_t type);
  CompoundBuilder& text(const char* name, std::size_t offset, std::size_t bytes);
  // The CurveColumns at `base`.
  CompoundBuilder& curve(std::size_t base);
  CompoundBuilder& doubles(std::initializer_list<std::pair<const char*, std::size_t>> fields,
                           std::size_t base = 0);
  hid_t get() const { return type_.get(); }

 private:
  h5::Handle type_;
  std::vector<h5::Handle> strings_;
};

CurveColumns curve_columns(const PointKey& key);
PointKey curve_key_of(const CurveColumns& columns);

}  // namespace collbench
