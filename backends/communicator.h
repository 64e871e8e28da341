#pragma once
// The one interface between the harness and a communication library. Backends implement it;
// nothing else in collbench sees MPI, NCCL, CUDA or UCX.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/buffer_registration.h"
#include "collectives/collective.h"
#include "backends/library_choice.h"
#include "backends/overlap_load.h"
#include "backends/tuning.h"
#include "collectives/pattern_rule.h"
#include "collectives/datatype.h"

namespace collbench {

// The rank that gathers the others' figures, decides for them, prints and writes the file.
inline constexpr int kCoordinatorRank = 0;

// Memory the collectives run on: host memory for MPI, device memory for GPU backends.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual std::byte* data() = 0;
  virtual std::size_t bytes() const = 0;
  virtual void upload(std::span<const std::byte> host, std::size_t offset_bytes) = 0;
  virtual void download(std::span<std::byte> host, std::size_t offset_bytes) const = 0;
  // The bytes themselves where the host can touch them (host memory), so that inputs are
  // written and results checked in place, without a staging copy; empty for device memory.
  virtual std::span<std::byte> host_bytes() { return {}; }
  virtual std::span<const std::byte> host_bytes() const { return {}; }
};

// Held while buffers stay registered; its end deregisters them.
class Registration {
 public:
  virtual ~Registration() = default;
};

// Times operations where they run: a steady clock for host backends, events on the
// communication stream for GPU backends. stop() waits for completion.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void start() = 0;
  virtual double stop_seconds() = 0;
};

// A failure inside the library while communicating (an asynchronous NCCL error, a CUDA error):
// the run ends with exit 3, naming the rank, with every finished point kept.
class CommunicationFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A control-plane message arrived damaged (its checksum or its twin sum does not match): the
// fabric or the library corrupts data. The run ends with exit 1, naming the rank.
class ControlCorruption : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The backend cannot run here (no GPU, ranks sharing a GPU without MPS): bad input, exit 2.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::allreduce;
  DataType datatype = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  Shape shape;
  bool in_place = false;  // then `send` is the only buffer, in NCCL's layout
  int root = 0;           // the source or destination of a collective that has_root()
};

// Operations enqueued back to back as one timed unit. Prepared once per point, so that setting
// them up (capturing a CUDA graph) never falls inside a timed region.
class Batch {
 public:
  virtual ~Batch() = default;
  virtual void enqueue() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Throws std::bad_alloc when the memory cannot be had.
  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  virtual std::unique_ptr<Timer> make_timer() = 0;

  // Registers `send` and `recv` (allocate()'s) for this communicator's collectives until the
  // returned object is gone; collective over the communicator. Null where the library has
  // nothing to register, or registration was not asked for.
  virtual std::unique_ptr<Registration> register_buffers(Buffer& /*send*/, Buffer& /*recv*/) {
    return nullptr;
  }

  // Enqueues one collective; the Timer's stop() waits for it.
  virtual void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) = 0;
  // `count` launches of `call`, back to back.
  virtual std::unique_ptr<Batch> prepare(const CollectiveCall& call, Buffer& send, Buffer& recv,
                                         int count);
  // `count` calls of `launches`, which enqueue on this communicator and those that follow it:
  // one after another, or captured once as a CUDA graph where the library has them (-G).
  virtual std::unique_ptr<Batch> batch(std::function<void()> launches, int count);
  // Where an in-place result starts in `send`, in elements (libraries differ for
  // reduce-scatter: NCCL leaves it at rank × share, MPI at 0).
  virtual std::size_t in_place_result_offset(const CollectiveCall& call) const {
    return in_place_recv_offset(call.kind, rank(), call.shape);
  }

  // Orders this communicator's next operations after every operation `earlier` enqueued so far
  // (a composed collective's steps on different communicators). Host libraries return when an
  // operation is done, so for them this is nothing to do; NCCL runs each communicator on a stream
  // of its own and makes this one wait.
  virtual void follow(Communicator& /*earlier*/) {}

  // Validation: poisons the start of the buffer that will hold the result (the rule's
  // poisoned_count() elements), writes the rule's inputs at `offset_bytes` of `send`, and counts
  // the wrong elements of a result at `offset_bytes` of `result`. These defaults go through
  // host memory; GPU backends do all three on the device.
  virtual void poison(const PatternRule& rule, Buffer& result);
  virtual void fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes);
  virtual std::uint64_t count_wrong(const PatternRule& rule, const Buffer& result,
                                    std::size_t offset_bytes);
  // Whether an out-of-place broadcast leaves the root's own buffer in its recvbuff too. NCCL's
  // does, and it is checked there: its ring kernel copies sendbuff to recvbuff at the root when
  // they differ (src/device/broadcast.h, runRing: directCopySend, and reduceCopy by the threads
  // the ring leaves). MPI broadcasts in one buffer, the root's input (MpiCommunicator).
  virtual bool fills_broadcast_root_output() const { return true; }

  // Enqueues a copy of `bytes` from `from` to `to`, both allocate()'s, where the collectives run
  // (a memory copy on the host, a device-to-device copy on a GPU); the Timer's stop() waits for
  // it. What this memory can move is the bound on a collective's bus bandwidth
  // (harness/measure/plausibility_bound.h).
  virtual void copy(Buffer& to, const Buffer& from, std::size_t bytes);

  // What the library chose for its launches of `call` from `send` to `recv` since the last ask,
  // by its own account (the most frequent choice); empty where the library does not say.
  virtual LibraryChoice library_choice(const CollectiveCall&, Buffer&, Buffer&) {
    return {};
  }

  // A load to run beside this communicator's operations, where they run (Backend::supports
  // says which kinds). The default, for host backends: the host's memory-bound thread.
  virtual std::unique_ptr<OverlapLoad> make_load(LoadKind kind, const LoadSite& site);

  // Control plane, on host memory, never timed. Every message carries a checksum and every sum
  // a twin (backends/control_integrity.h): a damaged one throws ControlCorruption.
  virtual void barrier() = 0;
  // A barrier for ranks with nothing to do until the others finish (the ranks outside a links
  // round's pairs): it sleeps between looks instead of spinning, so that it leaves the cores to
  // the ranks measuring. Up to a millisecond later than barrier().
  virtual void idle_barrier() { barrier(); }
  void broadcast(std::span<std::byte> data, int root);
  void gather(std::span<const std::byte> mine, std::span<std::byte> all, int root);
  long long sum_over_ranks(long long value);
  // Element-wise maximum over ranks, every rank getting it, in O(log p) messages where the
  // per-rank values would cost a gather. One more sum checks that every rank got the same
  // maxima and that each is some rank's own value, else ControlCorruption. At most
  // kMaxValuesAtOnce values, on fewer than 2^21 ranks.
  static constexpr std::size_t kMaxValuesAtOnce = 3;
  void max_over_ranks(std::span<double> values);
  // A rank's value that never wins the maximum: for a rank with none to give.
  static constexpr double kNoMaximum = -std::numeric_limits<double>::infinity();
  // Point to point, between two ranks of this communicator (clock synchronisation).
  void send(std::span<const std::byte> data, int peer);
  void receive(std::span<std::byte> data, int peer);

  // The same for one value of a trivially copyable type; gather_values is empty off the root.
  template <typename T>
  void broadcast_value(T& value, int root) {
    broadcast(std::as_writable_bytes(std::span(&value, 1)), root);
  }
  template <typename T>
  std::vector<T> gather_values(const T& mine, int root) {
    std::vector<T> all(rank() == root ? size() : 0);
    gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)), root);
    return all;
  }
  template <typename T>
  void send_value(const T& value, int peer) {
    send(std::as_bytes(std::span(&value, 1)), peer);
  }
  template <typename T>
  T receive_value(int peer) {
    T value{};
    receive(std::as_writable_bytes(std::span(&value, 1)), peer);
    return value;
  }
  // Collective over this communicator; a rank passing kNoColor joins none and gets nullptr.
  static constexpr int kNoColor = -1;
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;
  // The ranks that share this rank's memory (its node), found by the library.
  virtual std::unique_ptr<Communicator> split_node() = 0;

 protected:
  // A composed communicator runs its control plane on the group it wraps, unchecked there: the
  // checks are its own.
  friend class HierarchicalCommunicator;
  // The library's own operations behind the control plane, unchecked.
  virtual void broadcast_bytes(std::span<std::byte> data, int root) = 0;
  virtual void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all,
                            int root) = 0;
  virtual void sum_int64(std::span<std::int64_t> values) = 0;  // element-wise, in place
  virtual void max_double(std::span<double> values) = 0;       // element-wise, in place
  virtual void send_bytes(std::span<const std::byte> data, int peer) = 0;
  virtual void receive_bytes(std::span<std::byte> data, int peer) = 0;
};

// This rank's accelerator, for the topology.
struct DeviceDescription {
  std::string name;
  std::string bus_id;
  std::string peers;  // bus ids of the GPUs it reaches directly (peer access), comma-separated
};

// A communication library: its world, its name and version, and how to end the job.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string version() const = 0;
  virtual Communicator& world() = 0;

  virtual bool supports(DataType type) const { return has_host_type(type); }
  virtual bool supports(ReduceOp op) const { return op != ReduceOp::avg; }
  // Empty where the library runs this collective of this type and op under `tuning`; else why
  // not (NCCL's Tree reduces, never gathers; NVLS sums no int8).
  virtual std::string why_unsupported(CollectiveKind, DataType, ReduceOp, const Tuning&) const {
    return {};
  }
  virtual bool supports(LoadKind kind) const { return kind == LoadKind::memory; }
  // Empty where the library runs this collective in place (--inplace); else why not.
  virtual std::string why_not_in_place(CollectiveKind) const { return {}; }
  // Library, runtime and driver versions beyond version(), as provenance attributes.
  virtual std::map<std::string, std::string> provenance() const { return {}; }
  // Empty for host backends.
  virtual DeviceDescription device() const { return {}; }
  // world().split(color, key), with the library using this algorithm and protocol on the new
  // communicator. Collective over the world. Throws std::invalid_argument where the library
  // has no such knobs.
  virtual std::unique_ptr<Communicator> tuned_split(const Tuning& tuning, int color, int key);
  // Stops communication in flight (ncclCommAbort) so a hung job can end; called from the
  // watchdog thread, once, just before the process exits.
  virtual void abort_communication() noexcept {}
  // Ends every rank of the job with this exit code; used after a fault.
  [[noreturn]] void abort(int exit_code) {
    abort_job(exit_code);
    std::_Exit(exit_code);
  }

 protected:
  virtual void abort_job(int exit_code) = 0;
};

}  // namespace collbench
