#include "collective.h"

namespace collbench {

Shape shape_for(CollectiveKind kind, std::size_t requested_bytes, std::size_t element_bytes,
                int nranks) {
  const auto p = static_cast<std::size_t>(nranks);
  Shape shape;
  switch (kind) {
    case CollectiveKind::allreduce:
      shape.count = requested_bytes / element_bytes;
      shape.send_count = shape.recv_count = shape.count;
      shape.size_bytes = shape.count * element_bytes;
      break;
    case CollectiveKind::allgather:
      shape.count = requested_bytes / (element_bytes * p);
      shape.send_count = shape.count;
      shape.recv_count = shape.count * p;
      shape.size_bytes = shape.recv_count * element_bytes;
      break;
    case CollectiveKind::reduce_scatter:
      shape.count = requested_bytes / (element_bytes * p);
      shape.send_count = shape.count * p;
      shape.recv_count = shape.count;
      shape.size_bytes = shape.send_count * element_bytes;
      break;
  }
  return shape;
}

double busbw_factor(CollectiveKind kind, int nranks) {
  const double p = nranks;
  return kind == CollectiveKind::allreduce ? 2.0 * (p - 1) / p : (p - 1) / p;
}

bool uses_reduce_op(CollectiveKind kind) { return kind != CollectiveKind::allgather; }

std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return kind == CollectiveKind::allgather ? static_cast<std::size_t>(rank) * shape.count : 0;
}

std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape) {
  return kind == CollectiveKind::reduce_scatter ? static_cast<std::size_t>(rank) * shape.count
                                                : 0;
}

}  // namespace collbench
