#include "harness/store/row_type.h"

namespace collbench::h5 {

RowType::RowType(std::size_t bytes) : type_(own(H5Tcreate(H5T_COMPOUND, bytes), "H5Tcreate")) {}

void RowType::add(const char* name, std::size_t offset, hid_t member) {
  check(H5Tinsert(type_.get(), name, offset, member), "H5Tinsert");
}

void RowType::text(const char* name, std::size_t offset, std::size_t bytes) {
  add(name, offset, fixed_string_type(bytes).get());
}

}  // namespace collbench::h5
