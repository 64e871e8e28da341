#include "datatype.h"

#include <array>

namespace collbench {
namespace {

struct TypeInfo {
  DataType type;
  std::string_view name;
  std::size_t bytes;
  bool floating;
  bool is_signed;
  std::int64_t exact_limit;
  // A value past every other of the type at each end, and a quiet NaN (datatype.h).
  std::uint64_t highest_bits;
  std::uint64_t lowest_bits;
  std::uint64_t nan_bits = 0;
};

constexpr std::int64_t kInt64Limit = INT64_MAX;
constexpr std::array kTypeInfo{
    TypeInfo{DataType::int8, "int8", 1, false, true, 127, 0x7F, 0x80},
    TypeInfo{DataType::uint8, "uint8", 1, false, false, 255, 0xFF, 0},
    TypeInfo{DataType::int32, "int32", 4, false, true, INT32_MAX, 0x7FFF'FFFF, 0x8000'0000},
    TypeInfo{DataType::uint32, "uint32", 4, false, false, UINT32_MAX, 0xFFFF'FFFF, 0},
    TypeInfo{DataType::int64, "int64", 8, false, true, kInt64Limit, 0x7FFF'FFFF'FFFF'FFFF,
             0x8000'0000'0000'0000},
    TypeInfo{DataType::uint64, "uint64", 8, false, false, kInt64Limit, 0xFFFF'FFFF'FFFF'FFFF, 0},
    TypeInfo{DataType::float16, "half", 2, true, true, 1 << 11, 0x7C00, 0xFC00, 0x7E00},
    TypeInfo{DataType::float32, "float", 4, true, true, 1 << 24, 0x7F80'0000, 0xFF80'0000,
             0x7FC0'0000},
    TypeInfo{DataType::float64, "double", 8, true, true, std::int64_t{1} << 53,
             0x7FF0'0000'0000'0000, 0xFFF0'0000'0000'0000, 0x7FF8'0000'0000'0000},
    TypeInfo{DataType::bfloat16, "bfloat16", 2, true, true, 1 << 8, 0x7F80, 0xFF80, 0x7FC0},
    // No infinity: ±448, the largest finite values (OCP 8-bit floating point, E4M3).
    TypeInfo{DataType::float8_e4m3, "f8e4m3", 1, true, true, 1 << 4, 0x7E, 0xFE, 0x7F},
    TypeInfo{DataType::float8_e5m2, "f8e5m2", 1, true, true, 1 << 3, 0x7C, 0xFC, 0x7E},
};

struct Alias {
  std::string_view name;
  DataType type;
};
constexpr std::array kAliases{
    Alias{"char", DataType::int8},         Alias{"int", DataType::int32},
    Alias{"float32", DataType::float32},   Alias{"float64", DataType::float64},
    Alias{"float16", DataType::float16},   Alias{"fp16", DataType::float16},
    Alias{"bf16", DataType::bfloat16},     Alias{"fp8_e4m3", DataType::float8_e4m3},
    Alias{"fp8_e5m2", DataType::float8_e5m2},
};

struct OpName {
  ReduceOp op;
  std::string_view name;
};
constexpr std::array kOpNames{OpName{ReduceOp::sum, "sum"}, OpName{ReduceOp::prod, "prod"},
                              OpName{ReduceOp::min, "min"}, OpName{ReduceOp::max, "max"},
                              OpName{ReduceOp::avg, "avg"}};

constexpr auto kTypes = [] {
  std::array<DataType, kTypeInfo.size()> types{};
  for (std::size_t i = 0; i < kTypeInfo.size(); ++i) types[i] = kTypeInfo[i].type;
  return types;
}();
constexpr auto kOps = [] {
  std::array<ReduceOp, kOpNames.size()> ops{};
  for (std::size_t i = 0; i < kOpNames.size(); ++i) ops[i] = kOpNames[i].op;
  return ops;
}();

const TypeInfo& info(DataType type) { return kTypeInfo[static_cast<std::size_t>(type)]; }

}  // namespace

static_assert([] {
  for (std::size_t i = 0; i < kTypeInfo.size(); ++i)
    if (static_cast<std::size_t>(kTypeInfo[i].type) != i) return false;
  return true;
}(), "kTypeInfo follows the enum's order");

std::span<const DataType> all_datatypes() { return kTypes; }
std::span<const ReduceOp> all_reduce_ops() { return kOps; }

std::string_view name(DataType type) { return info(type).name; }

std::string_view name(ReduceOp op) {
  for (const auto& entry : kOpNames)
    if (entry.op == op) return entry.name;
  return "?";
}

std::size_t size_of(DataType type) { return info(type).bytes; }
bool is_floating(DataType type) { return info(type).floating; }
bool is_signed(DataType type) { return info(type).is_signed; }
std::int64_t exact_integer_limit(DataType type) { return info(type).exact_limit; }
std::uint64_t highest_bits(DataType type) { return info(type).highest_bits; }
std::uint64_t lowest_bits(DataType type) { return info(type).lowest_bits; }
std::uint64_t nan_bits(DataType type) { return info(type).nan_bits; }

bool has_host_type(DataType type) {
  return !is_floating(type) || type == DataType::float32 || type == DataType::float64;
}

std::vector<DataType> host_datatypes() {
  std::vector<DataType> types;
  for (DataType type : all_datatypes())
    if (has_host_type(type)) types.push_back(type);
  return types;
}

std::optional<DataType> parse_datatype(std::string_view text) {
  for (const auto& entry : kTypeInfo)
    if (entry.name == text) return entry.type;
  for (const auto& alias : kAliases)
    if (alias.name == text) return alias.type;
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  for (const auto& entry : kOpNames)
    if (entry.name == text) return entry.op;
  return std::nullopt;
}

}  // namespace collbench
