#include "benches/backends/ucx/ucp_peer.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace collbench::ucx {
namespace {

// Two peers in two threads of this process, connected as two ranks would be, with real UCX
// (shared memory here). `initiator` and `responder` run with their peer connected.
template <typename Initiator, typename Responder>
void connected_pair(Initiator initiator, Responder responder) {
  std::promise<std::vector<std::byte>> first_address, second_address;
  std::thread other([&] {
    UcpPeer peer;
    second_address.set_value(peer.address());
    peer.connect(first_address.get_future().get());
    responder(peer);
  });
  UcpPeer peer;
  first_address.set_value(peer.address());
  peer.connect(second_address.get_future().get());
  initiator(peer);
  other.join();
}

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return data;
}

TEST(UcpPeer, PingPongCarriesEveryByteAtEverySize) {
  const std::vector<std::size_t> sizes{1, 8, 4096, 65536, std::size_t{4} << 20};
  connected_pair(
      [&](UcpPeer& peer) {
        for (std::size_t bytes : sizes) {
          const std::vector<std::byte> sent = pattern(bytes, 7);
          std::vector<std::byte> echoed(bytes);
          peer.send(sent, bytes);
          peer.receive(echoed, bytes);
          EXPECT_EQ(echoed, sent) << bytes << " bytes";
        }
        EXPECT_NE(peer.lanes().find("lane[0]"), std::string::npos) << peer.lanes();
      },
      [&](UcpPeer& peer) {
        for (std::size_t bytes : sizes) {
          std::vector<std::byte> message(bytes);
          peer.receive(message, bytes);
          peer.send(message, bytes);
        }
      });
}

// A latency sample is many round trips back to back: each one must carry its own message.
TEST(UcpPeer, AThousandRoundTripsArriveInOrder) {
  constexpr int kTrips = 1000;
  connected_pair(
      [&](UcpPeer& peer) {
        for (int trip = 0; trip < kTrips; ++trip) {
          std::vector<std::byte> message = pattern(8, trip);
          peer.send(message, 1);
          peer.receive(message, 1);
          EXPECT_EQ(message, pattern(8, trip + 1)) << "trip " << trip;
        }
      },
      [&](UcpPeer& peer) {
        std::vector<std::byte> message(8);
        for (int trip = 0; trip < kTrips; ++trip) {
          peer.receive(message, 1);
          peer.send(pattern(8, trip + 1), 1);
        }
      });
}

TEST(UcpPeer, AMessageOfAnotherLengthIsAnError) {
  connected_pair([](UcpPeer& peer) { peer.send(pattern(64, 1), 5); },
                 [](UcpPeer& peer) {
                   std::vector<std::byte> larger(128);
                   EXPECT_THROW(peer.receive(larger, 5), UcxError);
                 });
}

TEST(UcpPeer, SendingBeforeConnectingIsAnError) {
  UcpPeer peer;
  EXPECT_THROW(peer.send(pattern(8, 0), 1), UcxError);
  EXPECT_FALSE(UcpPeer::version().empty());
}

}  // namespace
}  // namespace collbench::ucx
