#pragma once
#include <mpi.h>

#include "backends/communicator.h"

namespace collbench::mpi {

class MpiCommunicator final : public Communicator {
 public:
  // Takes ownership of `comm` unless it is MPI_COMM_WORLD.
  explicit MpiCommunicator(MPI_Comm comm);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  std::unique_ptr<Timer> make_timer() override;
  void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) override;
  std::size_t in_place_result_offset(const CollectiveCall& call) const override;
  // MPI_Bcast has one buffer: the root's is its input, and nothing is copied from it.
  bool fills_broadcast_root_output() const override { return false; }

  void barrier() override;
  void idle_barrier() override;
  std::unique_ptr<Communicator> split(int color, int key) override;
  std::unique_ptr<Communicator> split_node() override;

 protected:
  void broadcast_bytes(std::span<std::byte> data, int root) override;
  void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all, int root) override;
  void sum_int64(std::span<std::int64_t> values) override;
  void max_double(std::span<double> values) override;
  void send_bytes(std::span<const std::byte> data, int peer) override;
  void receive_bytes(std::span<std::byte> data, int peer) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace collbench::mpi
