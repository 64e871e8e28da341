#include <stdexcept>

#include "cuda_memory.h"

namespace collbench::ucx {

std::string why_no_cuda_memory() {
  return "this collbench was built without the CUDA toolkit";
}

std::unique_ptr<MessageBuffer> cuda_buffer(std::size_t, std::byte) {
  throw std::logic_error("cuda_buffer: " + why_no_cuda_memory());
}

}  // namespace collbench::ucx
