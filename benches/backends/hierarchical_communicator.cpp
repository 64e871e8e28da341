#include "benches/backends/hierarchical_communicator.h"

#include <array>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace collbench {
namespace {

// Part of a buffer, for the library calls that work on one rank's share of it.
class BufferWindow final : public Buffer {
 public:
  BufferWindow(Buffer& whole, std::size_t offset_bytes, std::size_t bytes)
      : whole_(whole), offset_(offset_bytes), bytes_(bytes) {}
  std::byte* data() override { return whole_.data() + offset_; }
  std::size_t bytes() const override { return bytes_; }
  void upload(std::span<const std::byte> host, std::size_t offset_bytes) override {
    whole_.upload(host, offset_ + offset_bytes);
  }
  void download(std::span<std::byte> host, std::size_t offset_bytes) const override {
    whole_.download(host, offset_ + offset_bytes);
  }
  std::span<std::byte> host_bytes() override {
    const auto all = whole_.host_bytes();
    return all.empty() ? all : all.subspan(offset_, bytes_);
  }
  std::span<const std::byte> host_bytes() const override {
    const auto all = std::as_const(whole_).host_bytes();
    return all.empty() ? all : all.subspan(offset_, bytes_);
  }

 private:
  Buffer& whole_;
  std::size_t offset_;
  std::size_t bytes_;
};

bool composed(const CollectiveCall& call) {
  return call.kind == CollectiveKind::allreduce_hier;
}

}  // namespace

HierarchicalCommunicator::HierarchicalCommunicator(Communicator& group)
    : group_(group), node_(group.split_node()) {
  // Every node must hold as many of the group's ranks: the extremes agree or none goes on.
  std::array<double, 2> node_sizes{static_cast<double>(node_->size()),
                                   -static_cast<double>(node_->size())};
  group_.max_over_ranks(node_sizes);
  if (node_sizes[0] != -node_sizes[1])
    throw std::invalid_argument(fmt::format(
        "its nodes hold from {} to {} of its {} ranks; a hierarchical allreduce needs as many on "
        "each",
        -node_sizes[1], node_sizes[0], group_.size()));
  rail_ = group_.split(node_->rank(), group_.rank());
  // The first call on a communicator sets up its connections: never in a timed sample.
  const int ranks = group_.size();
  const CollectiveCall first{CollectiveKind::allreduce_hier, DataType::float32, ReduceOp::sum,
                             shape_for(CollectiveKind::allreduce_hier,
                                       sizeof(float) * static_cast<std::size_t>(ranks),
                                       sizeof(float), ranks),
                             false};
  const auto send = allocate(first.shape.size_bytes);
  const auto recv = allocate(first.shape.size_bytes);
  launch(first, *send, *recv);
  group_.barrier();
}

void HierarchicalCommunicator::launch(const CollectiveCall& call, Buffer& send, Buffer& recv) {
  if (composed(call))
    launch_hierarchical(call, send, recv);
  else
    group_.launch(call, send, recv);
}

// Out of place, the share is reduced into its place in `recv`, allreduced there across the
// rail, and gathered around it in place. In place, `recv` is the scratch the share passes
// through, and the allgather brings every share back into `send`.
void HierarchicalCommunicator::launch_hierarchical(const CollectiveCall& call, Buffer& send,
                                                   Buffer& recv) {
  const std::size_t element = size_of(call.datatype);
  const std::size_t bytes = call.shape.count * element;
  const auto step = [&](CollectiveKind kind, std::size_t step_bytes, int ranks, bool in_place) {
    return CollectiveCall{kind, call.datatype, call.op,
                          shape_for(kind, step_bytes, element, ranks), in_place};
  };
  const CollectiveCall scatter = step(CollectiveKind::reduce_scatter, bytes, node_->size(), false);
  const std::size_t share_bytes = scatter.shape.count * element;
  BufferWindow share(recv, static_cast<std::size_t>(node_->rank()) * share_bytes, share_bytes);
  node_->launch(scatter, send, share);
  rail_->launch(step(CollectiveKind::allreduce, share_bytes, rail_->size(), true), share, share);
  const CollectiveCall gather = step(CollectiveKind::allgather, bytes, node_->size(), !call.in_place);
  if (call.in_place)
    node_->launch(gather, share, send);
  else
    node_->launch(gather, recv, recv);
}

std::unique_ptr<Batch> HierarchicalCommunicator::prepare(const CollectiveCall& call, Buffer& send,
                                                         Buffer& recv, int count) {
  return composed(call) ? Communicator::prepare(call, send, recv, count)
                        : group_.prepare(call, send, recv, count);
}

std::size_t HierarchicalCommunicator::in_place_result_offset(const CollectiveCall& call) const {
  return composed(call) ? 0 : group_.in_place_result_offset(call);
}

}  // namespace collbench
