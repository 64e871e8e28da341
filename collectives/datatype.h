#pragma once
// Element types and reduction operations, named as nccl-tests names them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// In nccl-tests' order. The 16- and 8-bit floating types exist on GPUs only.
enum class DataType {
  int8, uint8, int32, uint32, int64, uint64, float16, float32, float64, bfloat16,
  float8_e4m3, float8_e5m2
};
enum class ReduceOp { sum, prod, min, max, avg };

std::span<const DataType> all_datatypes();
std::span<const ReduceOp> all_reduce_ops();

std::string_view name(DataType type);
std::string_view name(ReduceOp op);
std::size_t size_of(DataType type);
bool is_floating(DataType type);
bool is_signed(DataType type);
// The largest n such that every integer in [-n, n] (signed) or [0, n] (unsigned) is exact.
std::int64_t exact_integer_limit(DataType type);
// The bits of a value at or past every other the type holds, as an unsigned integer of
// size_of(type) bytes: its largest (+infinity where it has one; f8e4m3 has none, so 448), its
// lowest (-infinity, the most negative integer, or 0), and a quiet NaN of a floating type (0
// for integers).
std::uint64_t highest_bits(DataType type);
std::uint64_t lowest_bits(DataType type);
std::uint64_t nan_bits(DataType type);
// Whether C++ on the host has the type (the reduced-precision floats it has not).
bool has_host_type(DataType type);
// The types C++ on the host has, in all_datatypes()' order.
std::vector<DataType> host_datatypes();

// Accepts nccl-tests' names and common aliases (float32, float64, char, int, fp16, bf16).
std::optional<DataType> parse_datatype(std::string_view text);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);

// Calls f(T{}) with the C++ type behind `type`; throws std::invalid_argument for a type that
// has no host type.
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
    default: break;
  }
  throw std::invalid_argument(std::string(name(type)) + " has no host type");
}

}  // namespace collbench
