#pragma once
// A row's compound type in memory, derived from the row struct itself: each member listed is a
// column under the member's name, stored as its C++ type says (numbers as their native type,
// char[N] as text, NameOf an enum as its name, a struct with columns of its own as those
// columns), so a row's columns are written down once, in its struct, and a misspelt member fails
// to compile.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "harness/store/h5.h"
#include "harness/store/member_list.h"

namespace collbench::h5 {

class RowType {
 public:
  // `row`: the struct's name, for errors; `bytes` and `alignment` its sizeof and alignof.
  RowType(const char* row, std::size_t bytes, std::size_t alignment);
  void add(const char* name, std::size_t offset, hid_t member);
  void text(const char* name, std::size_t offset, std::size_t bytes);
  // The type, once every byte of the row is in a column or is padding. A member left out of the
  // list leaves a gap, and its column would silently not be stored: throws std::logic_error
  // naming the row and the bytes, unless the gap is narrower than the next column's alignment
  // (the row's at its end), which padding could explain.
  Handle done();

 private:
  const char* row_;
  std::size_t bytes_;
  std::size_t alignment_;
  Handle type_;
};

template <typename Number>
hid_t native_type() {
  if constexpr (std::is_same_v<Number, std::int8_t>)
    return H5T_NATIVE_INT8;
  else if constexpr (std::is_same_v<Number, std::int32_t>)
    return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<Number, std::int64_t>)
    return H5T_NATIVE_INT64;
  else if constexpr (std::is_same_v<Number, std::uint64_t>)
    return H5T_NATIVE_UINT64;
  else if constexpr (std::is_same_v<Number, double>)
    return H5T_NATIVE_DOUBLE;
  else
    static_assert(sizeof(Number) == 0, "a column of a number type the tables do not store");
}

template <typename Number>
requires std::is_arithmetic_v<Number>
void add_member(RowType& row, const char* name, std::size_t offset, std::type_identity<Number>) {
  row.add(name, offset, native_type<Number>());
}

template <std::size_t N>
void add_member(RowType& row, const char* name, std::size_t offset, std::type_identity<char[N]>) {
  row.text(name, offset, N);
}

// A row's text column that holds an enum by its name: the enum's name() writes it, Parse reads
// it back (row_copies.h).
template <typename Enum, std::optional<Enum> (*Parse)(std::string_view), std::size_t N>
struct NameOf {
  char text[N];
};

template <typename Enum, std::optional<Enum> (*Parse)(std::string_view), std::size_t N>
void add_member(RowType& row, const char* name, std::size_t offset,
                std::type_identity<NameOf<Enum, Parse, N>>) {
  row.text(name, offset, N);
}

}  // namespace collbench::h5

// COLLBENCH_ADD_MEMBERS(row, base, Row, member...) adds the members of the Row at `base` in
// `row`, in the order listed. A struct member adds its own columns through an add_member
// overload in its namespace (found by argument-dependent lookup), its name unused.
#define COLLBENCH_ADD_MEMBERS(row, base, Row, ...)                                 \
  do {                                                                             \
    COLLBENCH_FOR_EACH_MEMBER(COLLBENCH_ADD_MEMBER, (row, base, Row), __VA_ARGS__) \
  } while (false)
#define COLLBENCH_ADD_MEMBER(row, base, Row, member)       \
  add_member(row, #member, (base) + offsetof(Row, member), \
             std::type_identity<std::remove_cv_t<decltype(Row::member)>>{});

// The compound type of a whole Row from its members, listed in the order the file keeps them.
#define COLLBENCH_ROW_TYPE(Row, ...)                 \
  [] {                                               \
    ::collbench::h5::RowType row(#Row, sizeof(Row), alignof(Row)); \
    COLLBENCH_ADD_MEMBERS(row, 0, Row, __VA_ARGS__); \
    return row.done();                               \
  }()
