#pragma once
// One side of a link over UCX's UCP API: a context, a worker and an endpoint to one peer,
// exchanging tagged messages. The peers swap worker addresses out of band (over MPI under
// mpirun, in memory in one process), as ucx_perftest does over its socket.
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

class UcpPeer {
 public:
  UcpPeer();
  ~UcpPeer();
  UcpPeer(const UcpPeer&) = delete;
  UcpPeer& operator=(const UcpPeer&) = delete;

  // This worker's address, for the peer's connect().
  std::vector<std::byte> address() const;
  void connect(std::span<const std::byte> peer_address);

  // Each returns once its message is complete: sent (the buffer may be reused) or received
  // whole. Throws UcxError, also when a message of another length arrives.
  void send(std::span<const std::byte> message, std::uint64_t tag);
  void receive(std::span<std::byte> message, std::uint64_t tag);

  // The endpoint's lanes: the transports and devices UCX chose for it, as ucp_ep_print_info
  // prints them ("tcp/eth0", "sysv/memory", ...).
  std::string lanes() const;

  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace collbench::ucx
