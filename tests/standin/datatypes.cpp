#include "datatypes.h"

#include <array>

namespace standin {
namespace {

struct TypeInfo {
  ncclDataType_t type;
  const char* name;
  std::size_t bytes;
  bool floating;
};

constexpr std::array kTypes{
    TypeInfo{ncclInt8, "ncclInt8", 1, false},
    TypeInfo{ncclUint8, "ncclUint8", 1, false},
    TypeInfo{ncclInt32, "ncclInt32", 4, false},
    TypeInfo{ncclUint32, "ncclUint32", 4, false},
    TypeInfo{ncclInt64, "ncclInt64", 8, false},
    TypeInfo{ncclUint64, "ncclUint64", 8, false},
    TypeInfo{ncclFloat16, "ncclFloat16", 2, true},
    TypeInfo{ncclFloat32, "ncclFloat32", 4, true},
    TypeInfo{ncclFloat64, "ncclFloat64", 8, true},
    TypeInfo{ncclBfloat16, "ncclBfloat16", 2, true},
    TypeInfo{ncclFloat8e4m3, "ncclFloat8e4m3", 1, true},
    TypeInfo{ncclFloat8e5m2, "ncclFloat8e5m2", 1, true},
};

const TypeInfo* info(ncclDataType_t type) {
  for (const TypeInfo& known : kTypes)
    if (known.type == type) return &known;
  return nullptr;
}

}  // namespace

std::size_t element_bytes(ncclDataType_t type) {
  const TypeInfo* known = info(type);
  return known ? known->bytes : 0;
}

const char* type_name(ncclDataType_t type) {
  const TypeInfo* known = info(type);
  return known ? known->name : "?";
}

bool is_floating(ncclDataType_t type) {
  const TypeInfo* known = info(type);
  return known && known->floating;
}

}  // namespace standin
