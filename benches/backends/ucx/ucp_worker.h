#pragma once
// One rank's side of its links over UCX's UCP API: a context, a worker, and an endpoint to each
// peer it connects, exchanging tagged messages. The ranks swap worker addresses out of band
// (over MPI under mpirun, in memory in one process), as ucx_perftest does over its socket.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace collbench::ucx {

// A UCX call failed; the message names the call and UCX's status.
struct UcxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class UcpWorker {
 public:
  UcpWorker();
  ~UcpWorker();
  UcpWorker(const UcpWorker&) = delete;
  UcpWorker& operator=(const UcpWorker&) = delete;

  // This worker's address, for its peers' connect().
  std::vector<std::byte> address() const;
  // An endpoint to the worker at `address`, known from then on as `peer` (a rank, say).
  void connect(int peer, std::span<const std::byte> address);

  // Each returns once its message is complete: sent (the buffer may be reused) or received
  // whole. A receive matches its tag from any peer. Throws UcxError, also for a peer not
  // connected and when a message of another length arrives.
  void send(int peer, std::span<const std::byte> message, std::uint64_t tag);
  void receive(std::span<std::byte> message, std::uint64_t tag);

  // The lanes of the endpoint to `peer`: the transports and devices UCX chose for it, as
  // ucp_ep_print_info prints them ("tcp/eth0", "sysv/memory", ...).
  std::string lanes(int peer) const;

  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace collbench::ucx
