#pragma once
// The hierarchical allreduce (CollectiveKind::allreduce_hier) on any backend: this communicator
// wraps a group and runs its allreduce_hier as three collectives of the group's library on two
// of its sub-communicators — a reduce-scatter inside each node, an allreduce of each share across
// nodes among the ranks of one local index (a rail), an allgather inside each node — and
// everything else on the group itself. Each step follows the one before (Communicator::follow:
// nothing for host libraries, which block; an event between streams for NCCL, which runs each
// communicator on its own).
#include <memory>

#include "backends/communicator.h"

namespace collbench {

class HierarchicalCommunicator final : public Communicator {
 public:
  // Collective over `group`, which must outlive this; makes the node and rail communicators and
  // their first, untimed, call. Throws std::invalid_argument, on every rank alike, when the
  // group's nodes hold different numbers of its ranks (the shares would not line up).
  explicit HierarchicalCommunicator(Communicator& group);

  int rank() const override { return group_.rank(); }
  int size() const override { return group_.size(); }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return group_.allocate(bytes); }
  std::unique_ptr<Timer> make_timer() override { return group_.make_timer(); }
  // With the group, the node and the rail communicators, whose steps use them too.
  std::unique_ptr<Registration> register_buffers(Buffer& send, Buffer& recv) override;
  void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) override;
  std::unique_ptr<Batch> prepare(const CollectiveCall& call, Buffer& send, Buffer& recv,
                                 int count) override;
  std::unique_ptr<Batch> batch(std::function<void()> launches, int count) override {
    return group_.batch(std::move(launches), count);
  }
  std::size_t in_place_result_offset(const CollectiveCall& call) const override;
  void poison(const PatternRule& rule, Buffer& result) override { group_.poison(rule, result); }
  void fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes) override {
    group_.fill_input(rule, send, offset_bytes);
  }
  std::uint64_t count_wrong(const PatternRule& rule, const Buffer& result,
                            std::size_t offset_bytes) override {
    return group_.count_wrong(rule, result, offset_bytes);
  }
  bool fills_broadcast_root_output() const override {
    return group_.fills_broadcast_root_output();
  }
  void copy(Buffer& to, const Buffer& from, std::size_t bytes) override {
    group_.copy(to, from, bytes);
  }
  // For allreduce_hier, the choice for its step across the nodes (the rail allreduce).
  LibraryChoice library_choice(const CollectiveCall& call, Buffer& send, Buffer& recv) override;
  std::unique_ptr<OverlapLoad> make_load(LoadKind kind, const LoadSite& site) override {
    return group_.make_load(kind, site);
  }
  void barrier() override { group_.barrier(); }
  void idle_barrier() override { group_.idle_barrier(); }
  std::unique_ptr<Communicator> split(int color, int key) override {
    return group_.split(color, key);
  }
  std::unique_ptr<Communicator> split_node() override { return group_.split_node(); }

  int node_ranks() const { return node_->size(); }
  int nodes() const { return rail_->size(); }

 protected:
  void broadcast_bytes(std::span<std::byte> data, int root) override {
    group_.broadcast_bytes(data, root);
  }
  void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all, int root) override {
    group_.gather_bytes(mine, all, root);
  }
  void sum_int64(std::span<std::int64_t> values) override { group_.sum_int64(values); }
  void max_double(std::span<double> values) override { group_.max_double(values); }
  void send_bytes(std::span<const std::byte> data, int peer) override {
    group_.send_bytes(data, peer);
  }
  void receive_bytes(std::span<std::byte> data, int peer) override {
    group_.receive_bytes(data, peer);
  }

 private:
  Communicator& group_;
  std::unique_ptr<Communicator> node_;
  std::unique_ptr<Communicator> rail_;
};

}  // namespace collbench
