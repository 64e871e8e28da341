#include "mpi_communicator.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <new>

#include "backends/steady_timer.h"
#include "mpi_types.h"

namespace collbench::mpi {
namespace {

// Page-aligned host memory, touched once so that first-touch page faults are never timed.
class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes) {
    constexpr std::size_t kAlign = 4096;
    const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    data_ = static_cast<std::byte*>(std::aligned_alloc(kAlign, rounded ? rounded : kAlign));
    if (!data_) throw std::bad_alloc();
    std::memset(data_, 0, bytes);
  }
  ~HostBuffer() override { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::byte* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  void upload(std::span<const std::byte> host, std::size_t offset_bytes) override {
    std::memcpy(data_ + offset_bytes, host.data(), host.size());
  }
  void download(std::span<std::byte> host, std::size_t offset_bytes) const override {
    std::memcpy(host.data(), data_ + offset_bytes, host.size());
  }
  std::span<std::byte> host_bytes() override { return {data_, bytes_}; }
  std::span<const std::byte> host_bytes() const override { return {data_, bytes_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_;
};

constexpr int kControlTag = 7301;
constexpr int kDataTag = 7302;  // sendrecv's messages, apart from the control plane's

int count_arg(std::size_t count) {
  if (count > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error("MPI backend: count exceeds INT_MAX elements");
  return static_cast<int>(count);
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  if (comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::unique_ptr<Buffer> MpiCommunicator::allocate(std::size_t bytes) {
  return std::make_unique<HostBuffer>(bytes);
}

std::unique_ptr<Timer> MpiCommunicator::make_timer() { return std::make_unique<SteadyTimer>(); }

void MpiCommunicator::launch(const CollectiveCall& call, Buffer& send, Buffer& recv) {
  const MPI_Datatype type = datatype_of(call.datatype);
  const MPI_Op op = op_of(call.op);
  const Shape& shape = call.shape;
  switch (call.kind) {
    case CollectiveKind::allreduce:
      check(MPI_Allreduce(call.in_place ? MPI_IN_PLACE : send.data(),
                          call.in_place ? send.data() : recv.data(), count_arg(shape.count), type,
                          op, comm_),
            "MPI_Allreduce");
      return;
    case CollectiveKind::allgather:
      // In place, MPI expects this rank's share already at rank × share in the output.
      check(MPI_Allgather(call.in_place ? MPI_IN_PLACE : send.data(), count_arg(shape.count),
                          type, call.in_place ? send.data() : recv.data(),
                          count_arg(shape.count), type, comm_),
            "MPI_Allgather");
      return;
    case CollectiveKind::reduce_scatter:
      check(MPI_Reduce_scatter_block(call.in_place ? MPI_IN_PLACE : send.data(),
                                     call.in_place ? send.data() : recv.data(),
                                     count_arg(shape.count), type, op, comm_),
            "MPI_Reduce_scatter_block");
      return;
    case CollectiveKind::alltoall:
      check(MPI_Alltoall(call.in_place ? MPI_IN_PLACE : send.data(), count_arg(shape.count), type,
                         call.in_place ? send.data() : recv.data(), count_arg(shape.count), type,
                         comm_),
            "MPI_Alltoall");
      return;
    case CollectiveKind::broadcast:
      // MPI broadcasts in one buffer: the root's input, every other rank's result.
      check(MPI_Bcast(call.in_place || rank_ == call.root ? send.data() : recv.data(),
                      count_arg(shape.count), type, call.root, comm_),
            "MPI_Bcast");
      return;
    case CollectiveKind::reduce: {
      const bool in_place_root = call.in_place && rank_ == call.root;
      check(MPI_Reduce(in_place_root ? MPI_IN_PLACE : send.data(),
                       call.in_place ? send.data() : recv.data(), count_arg(shape.count), type, op,
                       call.root, comm_),
            "MPI_Reduce");
      return;
    }
    case CollectiveKind::gather: {
      // In place, the root's share sits at root × share of its output (MPI_IN_PLACE), and
      // the other ranks send theirs from where collbench wrote them, rank × share.
      const bool in_place_root = call.in_place && rank_ == call.root;
      const std::byte* input =
          call.in_place ? send.data() + in_place_send_offset(call.kind, rank_, shape) *
                                            size_of(call.datatype)
                        : send.data();
      check(MPI_Gather(in_place_root ? MPI_IN_PLACE : input, count_arg(shape.count), type,
                       call.in_place ? send.data() : recv.data(), count_arg(shape.count), type,
                       call.root, comm_),
            "MPI_Gather");
      return;
    }
    case CollectiveKind::scatter: {
      // In place, the root keeps its share where it is (MPI_IN_PLACE); the others receive
      // theirs at the buffer's start.
      const bool in_place_root = call.in_place && rank_ == call.root;
      check(MPI_Scatter(send.data(), count_arg(shape.count), type,
                        in_place_root ? MPI_IN_PLACE
                        : call.in_place ? send.data()
                                        : recv.data(),
                        count_arg(shape.count), type, call.root, comm_),
            "MPI_Scatter");
      return;
    }
    case CollectiveKind::sendrecv: {
      // The ring of nccl-tests' sendrecv.cu: to rank + 1, from rank − 1.
      const int next = (rank_ + 1) % size_, previous = (rank_ + size_ - 1) % size_;
      if (call.in_place)
        check(MPI_Sendrecv_replace(send.data(), count_arg(shape.count), type, next, kDataTag,
                                   previous, kDataTag, comm_, MPI_STATUS_IGNORE),
              "MPI_Sendrecv_replace");
      else
        check(MPI_Sendrecv(send.data(), count_arg(shape.count), type, next, kDataTag, recv.data(),
                           count_arg(shape.count), type, previous, kDataTag, comm_,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
      return;
    }
    case CollectiveKind::allreduce_hier:
      break;
  }
  throw std::invalid_argument("allreduce_hier is composed by HierarchicalCommunicator");
}

// MPI writes every in-place result from the buffer's start (reduce-scatter's share too), but
// for a scatter's root, whose share stays where it was sent from.
std::size_t MpiCommunicator::in_place_result_offset(const CollectiveCall& call) const {
  if (call.kind != CollectiveKind::scatter || rank_ != call.root) return 0;
  return in_place_recv_offset(call.kind, rank_, call.shape);
}

void MpiCommunicator::barrier() { check(MPI_Barrier(comm_), "MPI_Barrier"); }

void MpiCommunicator::idle_barrier() {
  MPI_Request request;
  check(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void MpiCommunicator::broadcast_bytes(std::span<std::byte> data, int root) {
  check(MPI_Bcast(data.data(), count_arg(data.size()), MPI_BYTE, root, comm_), "MPI_Bcast");
}

void MpiCommunicator::gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all,
                                   int root) {
  check(MPI_Gather(mine.data(), count_arg(mine.size()), MPI_BYTE, all.data(),
                   count_arg(mine.size()), MPI_BYTE, root, comm_),
        "MPI_Gather");
}

void MpiCommunicator::sum_int64(std::span<std::int64_t> values) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_arg(values.size()), MPI_INT64_T, MPI_SUM,
                      comm_),
        "MPI_Allreduce");
}

void MpiCommunicator::max_double(std::span<double> values) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_arg(values.size()), MPI_DOUBLE, MPI_MAX,
                      comm_),
        "MPI_Allreduce");
}

void MpiCommunicator::send_bytes(std::span<const std::byte> data, int peer) {
  check(MPI_Send(data.data(), count_arg(data.size()), MPI_BYTE, peer, kControlTag, comm_),
        "MPI_Send");
}

void MpiCommunicator::receive_bytes(std::span<std::byte> data, int peer) {
  check(MPI_Recv(data.data(), count_arg(data.size()), MPI_BYTE, peer, kControlTag, comm_,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  check(MPI_Comm_split(comm_, color == kNoColor ? MPI_UNDEFINED : color, key, &part),
        "MPI_Comm_split");
  if (part == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiCommunicator>(part);
}

std::unique_ptr<Communicator> MpiCommunicator::split_node() {
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  return std::make_unique<MpiCommunicator>(node);
}

}  // namespace collbench::mpi
