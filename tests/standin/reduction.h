#pragma once
// NCCL's reductions on the host, element by element in rank order, every step rounded to the
// element type as NCCL's kernels round it: half, bfloat16 and fp8 combine in float and round
// back; avg pre-multiplies floating inputs by 1/p rounded to the type (NCCL's PreMulSum) and
// divides integer sums by p (SumPostDiv).
#include <nccl.h>

#include <cstddef>

namespace standin {

// out[i] = op over r < nranks of inputs[r][i], for i < count. `out` may be one of the inputs.
void reduce(ncclDataType_t type, ncclRedOp_t op, int nranks, const std::byte* const* inputs,
            std::byte* out, std::size_t count);

}  // namespace standin
