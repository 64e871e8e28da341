#pragma once
// GPU memory for UCX's messages (`links --memory cuda`). Built from cuda_memory.cpp where the
// CUDA toolkit is found, else from no_cuda_memory.cpp, which says so: the CPU build never needs
// CUDA.
#include <cstddef>
#include <memory>
#include <string>

#include "backends/point_to_point.h"

namespace collbench::ucx {

// Empty when this process can put messages in GPU memory; else why not (no CUDA in this build,
// no driver, no GPU).
std::string why_no_cuda_memory();

// `bytes` bytes of the current GPU's memory, every byte `fill`. Throws std::runtime_error.
std::unique_ptr<MessageBuffer> cuda_buffer(std::size_t bytes, std::byte fill);

}  // namespace collbench::ucx
