#include "datatype.h"

#include <array>

namespace collbench {
namespace {

struct TypeName {
  DataType type;
  std::string_view name;
};
struct OpName {
  ReduceOp op;
  std::string_view name;
};

constexpr std::array kTypes{DataType::int8,  DataType::uint8,  DataType::int32,   DataType::uint32,
                            DataType::int64, DataType::uint64, DataType::float32, DataType::float64};
constexpr std::array kOps{ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

constexpr std::array kTypeNames{
    TypeName{DataType::int8, "int8"},       TypeName{DataType::uint8, "uint8"},
    TypeName{DataType::int32, "int32"},     TypeName{DataType::uint32, "uint32"},
    TypeName{DataType::int64, "int64"},     TypeName{DataType::uint64, "uint64"},
    TypeName{DataType::float32, "float"},   TypeName{DataType::float64, "double"},
    TypeName{DataType::int8, "char"},       TypeName{DataType::int32, "int"},
    TypeName{DataType::float32, "float32"}, TypeName{DataType::float64, "float64"},
};
constexpr std::array kOpNames{OpName{ReduceOp::sum, "sum"}, OpName{ReduceOp::prod, "prod"},
                              OpName{ReduceOp::min, "min"}, OpName{ReduceOp::max, "max"}};

}  // namespace

std::span<const DataType> all_datatypes() { return kTypes; }
std::span<const ReduceOp> all_reduce_ops() { return kOps; }

std::string_view name(DataType type) {
  for (const auto& entry : kTypeNames)
    if (entry.type == type) return entry.name;
  return "?";
}

std::string_view name(ReduceOp op) {
  for (const auto& entry : kOpNames)
    if (entry.op == op) return entry.name;
  return "?";
}

std::size_t size_of(DataType type) {
  return visit_datatype(type, [](auto value) { return sizeof(value); });
}

std::optional<DataType> parse_datatype(std::string_view text) {
  for (const auto& entry : kTypeNames)
    if (entry.name == text) return entry.type;
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  for (const auto& entry : kOpNames)
    if (entry.name == text) return entry.op;
  return std::nullopt;
}

}  // namespace collbench
