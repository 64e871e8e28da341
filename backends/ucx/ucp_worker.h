#pragma once
// PointToPoint over UCX's UCP API: a context, a worker, and an endpoint to each peer it
// connects (a rank meets a different peer each round of the links matrix).
#include <memory>
#include <stdexcept>
#include <string>

#include "backends/point_to_point.h"

namespace collbench::ucx {

// A UCX call failed; the message names the call and UCX's status.
struct UcxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "tcp/eth0,cma/memory" from what ucp_ep_print_info prints: each lane's transport and device,
// once each, in lane order, without the device's index.
std::string transports_of_lanes(const std::string& printed);

class UcpWorker final : public PointToPoint {
 public:
  // Throws BackendUnavailable when messages cannot live in `memory` here, UcxError when UCX
  // fails to start.
  explicit UcpWorker(MessageMemory memory = MessageMemory::host);
  ~UcpWorker() override;
  UcpWorker(const UcpWorker&) = delete;
  UcpWorker& operator=(const UcpWorker&) = delete;

  std::unique_ptr<MessageBuffer> allocate(std::size_t bytes, std::byte fill) override;
  std::vector<std::byte> address() const override;
  void connect(int peer, std::span<const std::byte> address) override;
  // Throws UcxError, also for a peer not connected and when a message of another length
  // arrives.
  void transfer(int peer, std::span<const std::byte> out, int sends, std::span<std::byte> in,
                int receives, std::uint64_t tag) override;
  // From the lanes ucp_ep_print_info prints ("lane[0]:  3:sysv/memory.0 md[2] ...").
  std::string transports(int peer) const override;
  std::string version() const override;
  std::map<std::string, std::string> provenance() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace collbench::ucx
