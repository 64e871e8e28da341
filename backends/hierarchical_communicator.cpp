#include "backends/hierarchical_communicator.h"

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

bool composed(const CollectiveCall& call) { return describe(call.kind).composed_across_nodes; }

std::size_t bytes_of(const CollectiveCall& call) {
  return call.shape.count * size_of(call.datatype);
}

CollectiveCall step(const CollectiveCall& whole, CollectiveKind kind, std::size_t bytes, int ranks,
                    bool in_place) {
  return CollectiveCall{kind, whole.datatype, whole.op,
                        shape_for(kind, bytes, size_of(whole.datatype), ranks), in_place};
}

// One allreduce_hier as its three collectives, worked out once so that a timed point's launches
// only launch. Out of place, the share is reduced into its place in `recv`, allreduced there
// across the rail, and gathered around it in place. In place, `recv` is the scratch the share
// passes through, and the allgather brings every share back into `send`.
class HierarchicalSteps {
 public:
  HierarchicalSteps(const CollectiveCall& call, Buffer& send, Buffer& recv, Communicator& group,
                    Communicator& node, Communicator& rail)
      : group_(group),
        node_(node),
        rail_(rail),
        send_(send),
        recv_(recv),
        in_place_(call.in_place),
        scatter_(step(call, CollectiveKind::reduce_scatter, bytes_of(call), node.size(), false)),
        share_(recv, static_cast<std::size_t>(node.rank()) * bytes_of(scatter_),
               bytes_of(scatter_)),
        allreduce_(step(call, CollectiveKind::allreduce, bytes_of(scatter_), rail.size(), true)),
        gather_(step(call, CollectiveKind::allgather, bytes_of(call), node.size(),
                     !call.in_place)) {}

  // Each step follows the one before; the group, whose stream the timer and the validation use,
  // follows the last.
  void launch() {
    node_.follow(group_);
    node_.launch(scatter_, send_, share_);
    rail_.follow(node_);
    rail_.launch(allreduce_, share_, share_);
    node_.follow(rail_);
    if (in_place_)
      node_.launch(gather_, share_, send_);
    else
      node_.launch(gather_, recv_, recv_);
    group_.follow(node_);
  }

  LibraryChoice rail_choice() { return rail_.library_choice(allreduce_, share_, share_); }

 private:
  Communicator& group_;
  Communicator& node_;
  Communicator& rail_;
  Buffer& send_;
  Buffer& recv_;
  bool in_place_;
  CollectiveCall scatter_;
  BufferWindow share_;
  CollectiveCall allreduce_;
  CollectiveCall gather_;
};

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

std::unique_ptr<Registration> HierarchicalCommunicator::register_buffers(Buffer& send,
                                                                        Buffer& recv) {
  struct Registrations final : Registration {
    std::unique_ptr<Registration> group, node, rail;
  };
  auto all = std::make_unique<Registrations>();
  all->group = group_.register_buffers(send, recv);
  all->node = node_->register_buffers(send, recv);
  all->rail = rail_->register_buffers(send, recv);
  return all;
}

void HierarchicalCommunicator::launch(const CollectiveCall& call, Buffer& send, Buffer& recv) {
  if (composed(call))
    HierarchicalSteps(call, send, recv, group_, *node_, *rail_).launch();
  else
    group_.launch(call, send, recv);
}

std::unique_ptr<Batch> HierarchicalCommunicator::prepare(const CollectiveCall& call, Buffer& send,
                                                         Buffer& recv, int count) {
  if (!composed(call)) return group_.prepare(call, send, recv, count);
  // The group's stream leads: under -G the node and rail streams join its capture.
  auto steps = std::make_shared<HierarchicalSteps>(call, send, recv, group_, *node_, *rail_);
  return group_.batch([steps] { steps->launch(); }, count);
}

LibraryChoice HierarchicalCommunicator::library_choice(const CollectiveCall& call, Buffer& send,
                                                       Buffer& recv) {
  if (!composed(call)) return group_.library_choice(call, send, recv);
  return HierarchicalSteps(call, send, recv, group_, *node_, *rail_).rail_choice();
}

std::size_t HierarchicalCommunicator::in_place_result_offset(const CollectiveCall& call) const {
  return composed(call) ? 0 : group_.in_place_result_offset(call);
}

}  // namespace collbench
