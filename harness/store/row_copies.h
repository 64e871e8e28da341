#pragma once
// Copies between a row and the record it stores, member by member, as each member's type says:
// numbers as they are, text into a row's field (cut to fit: labels) and out of it, an enum by its
// name (row_type.h, NameOf). COLLBENCH_SHARED_MEMBERS lists the members a record and its row both
// have under one name, once, for both directions.
#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "harness/store/member_list.h"
#include "harness/store/row_type.h"

namespace collbench::h5 {

template <typename From, typename To>
requires std::is_arithmetic_v<From> && std::is_arithmetic_v<To>
void copy_member(From from, To& to, const char*) { to = static_cast<To>(from); }

template <std::size_t N>
void copy_member(const std::string& from, char (&to)[N], const char*) {
  store_fixed_string(from, to);
}

template <std::size_t N>
void copy_member(const char (&from)[N], std::string& to, const char*) {
  to = load_fixed_string(from);
}

template <typename Enum, std::optional<Enum> (*Parse)(std::string_view), std::size_t N>
void copy_member(Enum from, NameOf<Enum, Parse, N>& to, const char*) {
  store_fixed_string(name(from), to.text);
}

// Throws std::runtime_error naming the column and the text when it names no value.
template <typename Enum, std::optional<Enum> (*Parse)(std::string_view), std::size_t N>
void copy_member(const NameOf<Enum, Parse, N>& from, Enum& to, const char* column) {
  const std::string text = load_fixed_string(from.text);
  const std::optional<Enum> value = Parse(text);
  if (!value) throw std::runtime_error(fmt::format("unknown {} '{}'", column, text));
  to = *value;
}

// The row of a record, its shared members copied (COLLBENCH_SHARED_MEMBERS), the rest zero.
template <typename Row, typename Record>
Row row_of(const Record& record) {
  Row row{};
  copy_shared(record, row);
  return row;
}

// The record of a row, its shared members copied, the rest as the record's defaults.
template <typename Record, typename Row>
Record record_of(const Row& row) {
  Record record;
  copy_shared(row, record);
  return record;
}

// The value a row's text field names, read back by `parse`. Throws std::runtime_error naming
// the table, the column and the text when it names none.
template <typename Value, std::size_t N>
Value parse_member(std::optional<Value> (*parse)(std::string_view), const char (&field)[N],
                   std::string_view table, std::string_view column) {
  const std::string text = load_fixed_string(field);
  if (auto value = parse(text)) return *value;
  throw std::runtime_error(fmt::format("/{}: unknown {} '{}'", table, column, text));
}

}  // namespace collbench::h5

// COLLBENCH_COPY_MEMBERS(to, from, member...) copies the members listed.
#define COLLBENCH_COPY_MEMBERS(to, from, ...)                                 \
  do {                                                                        \
    COLLBENCH_FOR_EACH_MEMBER(COLLBENCH_COPY_MEMBER, (to, from), __VA_ARGS__) \
  } while (false)
#define COLLBENCH_COPY_MEMBER(to, from, member) \
  ::collbench::h5::copy_member(from.member, to.member, #member);

// Defines copy_shared(record, row) and copy_shared(row, record) over the members listed, for
// row_of and record_of; at namespace scope, next to the Row.
#define COLLBENCH_SHARED_MEMBERS(Record, Row, ...)                 \
  [[maybe_unused]] void copy_shared(const Record& from, Row& to) { \
    COLLBENCH_COPY_MEMBERS(to, from, __VA_ARGS__);                 \
  }                                                                \
  [[maybe_unused]] void copy_shared(const Row& from, Record& to) { \
    COLLBENCH_COPY_MEMBERS(to, from, __VA_ARGS__);                 \
  }
