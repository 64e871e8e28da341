#pragma once
// The interface between `collbench links` and a point-to-point library (UCX): one rank's side of
// its links, an endpoint to each peer it connects, tagged messages in host or GPU memory. The
// ranks swap addresses out of band (over the MPI world), as ucx_perftest does over its socket.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// Where the measured messages live (`links --memory`): host memory, or memory of the rank's
// first visible GPU, handed to the library as it is.
enum class MessageMemory { host, cuda };
std::string_view name(MessageMemory memory);
std::optional<MessageMemory> parse_message_memory(std::string_view text);

// A message buffer in that memory; the harness passes its bytes on and never reads them.
class MessageBuffer {
 public:
  virtual ~MessageBuffer() = default;
  virtual std::span<std::byte> bytes() = 0;
};

class PointToPoint {
 public:
  virtual ~PointToPoint() = default;

  // `bytes` bytes in the memory this side was started for, every byte `fill`.
  virtual std::unique_ptr<MessageBuffer> allocate(std::size_t bytes, std::byte fill) = 0;

  // This rank's address, for its peers' connect().
  virtual std::vector<std::byte> address() const = 0;
  // An endpoint to the peer at `address`, known from then on as `peer` (its rank).
  virtual void connect(int peer, std::span<const std::byte> address) = 0;

  // Posts `receives` receives of `in` (any peer, this tag) and `sends` sends of `out` to `peer`,
  // all at once, and returns when every one is complete: a window of messages in flight, or both
  // directions of a link at once. Each received message must be as long as `in`. `out` and `in`
  // are host memory or allocate()'s.
  virtual void transfer(int peer, std::span<const std::byte> out, int sends,
                        std::span<std::byte> in, int receives, std::uint64_t tag) = 0;
  void send(int peer, std::span<const std::byte> message, std::uint64_t tag) {
    transfer(peer, message, 1, {}, 0, tag);
  }
  void receive(std::span<std::byte> message, std::uint64_t tag) {
    transfer(-1, {}, 0, message, 1, tag);
  }

  // The transports and devices the library chose for the endpoint to `peer`, each once, in the
  // order of its lanes: "tcp/eth0", "sysv/memory,cma/memory".
  virtual std::string transports(int peer) const = 0;
  virtual std::string version() const = 0;
  // Library settings that decide the transports (UCX_TLS, UCX_NET_DEVICES as UCX reads them),
  // as provenance attributes.
  virtual std::map<std::string, std::string> provenance() const { return {}; }
};

}  // namespace collbench
