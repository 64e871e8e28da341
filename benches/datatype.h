#pragma once
// Element types and reduction operations, named as nccl-tests names them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace collbench {

enum class DataType { int8, uint8, int32, uint32, int64, uint64, float32, float64 };
enum class ReduceOp { sum, prod, min, max };

std::span<const DataType> all_datatypes();
std::span<const ReduceOp> all_reduce_ops();

std::string_view name(DataType type);
std::string_view name(ReduceOp op);
std::size_t size_of(DataType type);

// Accepts nccl-tests' names and common aliases (float32, float64, char, int).
std::optional<DataType> parse_datatype(std::string_view text);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);

// Calls f(T{}) with the C++ type behind `type`.
template <typename F>
decltype(auto) visit_datatype(DataType type, F&& f) {
  switch (type) {
    case DataType::int8: return f(std::int8_t{});
    case DataType::uint8: return f(std::uint8_t{});
    case DataType::int32: return f(std::int32_t{});
    case DataType::uint32: return f(std::uint32_t{});
    case DataType::int64: return f(std::int64_t{});
    case DataType::uint64: return f(std::uint64_t{});
    case DataType::float32: return f(float{});
    case DataType::float64: return f(double{});
  }
  return f(float{});
}

}  // namespace collbench
