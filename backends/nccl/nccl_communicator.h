#pragma once
// A NCCL communicator on one GPU: device buffers, CUDA-event timing on its stream, optional
// CUDA-graph batches, and a control plane that is NCCL itself on a few bytes of device memory,
// so ranks started without MPI (`run --np`) need nothing else to talk.
#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>

#include "backends/communicator.h"
#include "backends/backend_options.h"

namespace collbench::nccl {

class NcclCommunicator final : public Communicator {
 public:
  // Takes ownership of `comm`.
  NcclCommunicator(ncclComm_t comm, const BackendOptions& options);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  // -R 1: ncclCommRegister; -R 2: ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC.
  std::unique_ptr<Registration> register_buffers(Buffer& send, Buffer& recv) override;
  std::unique_ptr<Timer> make_timer() override;
  void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) override;
  std::unique_ptr<Batch> batch(std::function<void()> launches, int count) override;
  void poison(const PatternRule& rule, Buffer& result) override;
  void fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes) override;
  std::uint64_t count_wrong(const PatternRule& rule, const Buffer& result,
                            std::size_t offset_bytes) override;
  // cudaMemcpyAsync, device to device, on the stream.
  void copy(Buffer& to, const Buffer& from, std::size_t bytes) override;
  // From the profiler plugin built into collbench (choice_recorder.h).
  LibraryChoice library_choice(const CollectiveCall& call, Buffer& send, Buffer& recv) override;
  std::unique_ptr<OverlapLoad> make_load(LoadKind kind, const LoadSite& site) override;
  // An event on `earlier`'s stream that this stream waits for; `earlier` another NCCL one.
  void follow(Communicator& earlier) override;

  void barrier() override;
  std::unique_ptr<Communicator> split(int color, int key) override;
  // Ranks with the same NCCL host identity (nccl_host_identity: NCCL_HOSTID, else the host name
  // and boot id): with --virtual-nodes every rank is a node of its own, as NCCL sees it.
  std::unique_ptr<Communicator> split_node() override;

  // Waits for the stream, polling NCCL's asynchronous errors; throws CommunicationFault.
  void wait();
  cudaStream_t stream() const { return stream_; }

 protected:
  void broadcast_bytes(std::span<std::byte> data, int root) override;
  void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all, int root) override;
  void sum_int64(std::span<std::int64_t> values) override;
  void max_double(std::span<double> values) override;
  void send_bytes(std::span<const std::byte> data, int peer) override;
  void receive_bytes(std::span<std::byte> data, int peer) override;

 private:
  // Device and pinned host scratch of at least `bytes` each, for the control plane.
  void reserve_control(std::size_t bytes);
  // Host bytes to `device` scratch through the pinned buffer, enqueued on the stream.
  void stage_in(std::span<const std::byte> host, std::byte* device);
  // `bytes` of device scratch into the pinned buffer once the stream is done; returns it.
  const std::byte* stage_out(const std::byte* device, std::size_t bytes);
  // An allreduce of `count` elements of host `values`, in place, through the scratch.
  void reduce_control(std::span<std::byte> values, std::size_t count, ncclDataType_t type,
                      ncclRedOp_t op);

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t followed_ = nullptr;  // recorded on another communicator's stream by follow()
  BackendOptions options_;
  int rank_ = 0;
  int size_ = 1;
  std::byte* control_device_ = nullptr;
  std::byte* control_host_ = nullptr;
  std::size_t control_bytes_ = 0;
};

// ncclCommAbort on every live communicator; safe from another thread, once.
void abort_all_communicators() noexcept;

}  // namespace collbench::nccl
