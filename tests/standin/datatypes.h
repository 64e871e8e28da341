#pragma once
// NCCL's datatypes as the stand-in knows them: one table for their sizes, names and kinds.
#include <nccl.h>

#include <cstddef>

namespace standin {

std::size_t element_bytes(ncclDataType_t type);  // 0 for a type NCCL does not have
const char* type_name(ncclDataType_t type);      // "ncclFloat32", as NCCL's profiler names it
bool is_floating(ncclDataType_t type);

}  // namespace standin
