#pragma once
// What a collective moves for a requested size, how its bus bandwidth is counted, and where
// its data sits in the buffers. Sizes and factors follow nccl-tests so numbers compare.
#include <cstddef>

#include "benches/collective_kind.h"

namespace collbench {

struct Shape {
  std::size_t send_count = 0;  // elements each rank sends
  std::size_t recv_count = 0;  // elements each rank receives
  std::size_t size_bytes = 0;  // the size reported: the buffer (allreduce) or p shares (others)
  std::size_t count = 0;       // the count reported: the buffer or one rank's share
};

// Rounds a share that does not divide evenly down to whole elements; count 0 when the size is
// too small for one element per rank.
Shape shape_for(CollectiveKind kind, std::size_t requested_bytes, std::size_t element_bytes,
                int nranks);

// busbw = algbw × factor: 2(p-1)/p for allreduce, (p-1)/p for allgather and reduce-scatter.
double busbw_factor(CollectiveKind kind, int nranks);

bool uses_reduce_op(CollectiveKind kind);

// Offsets, in elements, of this rank's input and result within a single in-place buffer, in
// NCCL's convention: allgather reads its share from rank × share, reduce-scatter writes there.
std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape);
std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape);

}  // namespace collbench
