#include "harness/store/row_type.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace collbench::h5 {

RowType::RowType(const char* row, std::size_t bytes, std::size_t alignment)
    : row_(row),
      bytes_(bytes),
      alignment_(alignment),
      type_(own(H5Tcreate(H5T_COMPOUND, bytes), "H5Tcreate")) {}

void RowType::add(const char* name, std::size_t offset, hid_t member) {
  check(H5Tinsert(type_.get(), name, offset, member), "H5Tinsert");
}

void RowType::text(const char* name, std::size_t offset, std::size_t bytes) {
  add(name, offset, fixed_string_type(bytes).get());
}

Handle RowType::done() {
  struct Extent {
    std::size_t offset, bytes, alignment;
  };
  std::vector<Extent> members;
  const int count = check(H5Tget_nmembers(type_.get()), "H5Tget_nmembers");
  for (int i = 0; i < count; ++i) {
    const auto index = static_cast<unsigned>(i);
    const Handle member = own(H5Tget_member_type(type_.get(), index), "H5Tget_member_type");
    const std::size_t bytes = H5Tget_size(member.get());
    const bool text = H5Tget_class(member.get()) == H5T_STRING;
    members.push_back({H5Tget_member_offset(type_.get(), index), bytes, text ? 1 : bytes});
  }
  std::sort(members.begin(), members.end(),
            [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
  std::size_t end = 0;
  const auto padding = [&](std::size_t next, std::size_t alignment) {
    if (next < end || next - end >= alignment)
      throw std::logic_error(fmt::format("{}: its bytes {} to {} are in no column listed, or in two",
                                         row_, end, next));
  };
  for (const Extent& member : members) {
    padding(member.offset, member.alignment);
    end = member.offset + member.bytes;
  }
  padding(bytes_, alignment_);
  return std::move(type_);
}

}  // namespace collbench::h5
