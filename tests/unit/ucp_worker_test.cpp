#include "backends/ucx/ucp_worker.h"

#include <gtest/gtest.h>

#include <barrier>
#include <cstddef>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "backends/communicator.h"

namespace collbench::ucx {
namespace {

// `bodies.size()` workers in as many threads of this process, each connected to every other
// as ranks are (peer = the other's index), with real UCX (shared memory here); body i runs on
// worker i. As in `collbench links`, every worker is connected before any body runs and lives
// until every body is done: a worker that connects to a peer already destroyed finds its shared
// memory gone (ucp_ep_create: "Shared memory error": beside two busy loops the test binary
// aborted on its 2nd run without these barriers, and passed 150 runs with them).
void connected_workers(const std::vector<std::function<void(UcpWorker&)>>& bodies,
                       MessageMemory memory = MessageMemory::host) {
  const int count = static_cast<int>(bodies.size());
  std::vector<std::promise<std::vector<std::byte>>> addresses(count);
  std::vector<std::shared_future<std::vector<std::byte>>> known;
  for (auto& address : addresses) known.push_back(address.get_future().share());
  std::barrier all(count);
  std::vector<std::thread> threads;
  for (int self = 0; self < count; ++self)
    threads.emplace_back([&, self] {
      UcpWorker worker(memory);
      addresses[self].set_value(worker.address());
      for (int peer = 0; peer < count; ++peer)
        if (peer != self) worker.connect(peer, known[peer].get());
      all.arrive_and_wait();
      bodies[self](worker);
      all.arrive_and_wait();
    });
  for (std::thread& thread : threads) thread.join();
}

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return data;
}

const std::vector<std::size_t> kSizes{1, 8, 4096, 65536, std::size_t{4} << 20};

// Echoes one message of each size in kSizes back to `peer`.
void echo(UcpWorker& worker, int peer) {
  for (std::size_t bytes : kSizes) {
    std::vector<std::byte> message(bytes);
    worker.receive(message, bytes);
    worker.send(peer, message, bytes);
  }
}

TEST(UcpWorker, PingPongCarriesEveryByteAtEverySize) {
  connected_workers({[](UcpWorker& worker) {
                       for (std::size_t bytes : kSizes) {
                         const std::vector<std::byte> sent = pattern(bytes, 7);
                         std::vector<std::byte> echoed(bytes);
                         worker.send(1, sent, bytes);
                         worker.receive(echoed, bytes);
                         EXPECT_EQ(echoed, sent) << bytes << " bytes";
                       }
                       EXPECT_NE(worker.transports(1).find('/'), std::string::npos)
                           << worker.transports(1);
                     },
                     [](UcpWorker& worker) { echo(worker, 0); }});
}

// A rank meets a different peer each round of the matrix: one worker, an endpoint each.
TEST(UcpWorker, OneWorkerTalksToEachPeerInTurn) {
  constexpr std::uint64_t kTag = 9;
  connected_workers({[](UcpWorker& worker) {
                       for (int peer : {1, 2}) {
                         worker.send(peer, pattern(256, peer), kTag);
                         std::vector<std::byte> reply(256);
                         worker.receive(reply, kTag);
                         EXPECT_EQ(reply, pattern(256, 10 * peer)) << "peer " << peer;
                       }
                     },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> message(256);
                       worker.receive(message, kTag);
                       EXPECT_EQ(message, pattern(256, 1));
                       worker.send(0, pattern(256, 10), kTag);
                     },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> message(256);
                       worker.receive(message, kTag);
                       EXPECT_EQ(message, pattern(256, 2));
                       worker.send(0, pattern(256, 20), kTag);
                     }});
}

// A latency sample is many round trips back to back: each one must carry its own message.
TEST(UcpWorker, AThousandRoundTripsArriveInOrder) {
  constexpr int kTrips = 1000;
  connected_workers({[](UcpWorker& worker) {
                       for (int trip = 0; trip < kTrips; ++trip) {
                         std::vector<std::byte> message = pattern(8, trip);
                         worker.send(1, message, 1);
                         worker.receive(message, 1);
                         EXPECT_EQ(message, pattern(8, trip + 1)) << "trip " << trip;
                       }
                     },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> message(8);
                       for (int trip = 0; trip < kTrips; ++trip) {
                         worker.receive(message, 1);
                         worker.send(0, pattern(8, trip + 1), 1);
                       }
                     }});
}

TEST(UcpWorker, AMessageOfAnotherLengthIsAnError) {
  connected_workers({[](UcpWorker& worker) { worker.send(1, pattern(64, 1), 5); },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> larger(128);
                       EXPECT_THROW(worker.receive(larger, 5), UcxError);
                     }});
}

// A window of large messages (rendezvous) each way at once completes, every byte in place.
TEST(UcpWorker, AWindowEachWayAtOnceCompletes) {
  constexpr int kWindow = 8;
  const std::size_t bytes = std::size_t{4} << 20;
  const auto both_ways = [&](int peer) {
    return [&, peer](UcpWorker& worker) {
      const std::vector<std::byte> out = pattern(bytes, 1 - peer);
      std::vector<std::byte> in(bytes);
      worker.transfer(peer, out, kWindow, in, kWindow, 9);
      EXPECT_EQ(in, pattern(bytes, peer));
    };
  };
  connected_workers({both_ways(1), both_ways(0)});
}

TEST(UcpWorker, AWindowOneWayArrivesWhole) {
  constexpr int kWindow = 64;
  connected_workers({[](UcpWorker& worker) { worker.transfer(1, pattern(100, 3), kWindow, {}, 0, 4); },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> in(100);
                       worker.transfer(-1, {}, 0, in, kWindow, 4);
                       EXPECT_EQ(in, pattern(100, 3));
                     }});
}

// GPU memory where UCX and this machine can move it, checked through host memory on the other
// side: a GPU buffer sent lands whole in a host buffer, and a host buffer lands in a GPU buffer
// that is then sent back. Elsewhere the start names why it cannot.
TEST(UcpWorker, GpuMessagesTravelWholeOrTheStartSaysWhyNot) {
  try {
    UcpWorker probe(MessageMemory::cuda);
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--memory cuda: ", 0), 0u) << error.what();
    GTEST_SKIP() << error.what();
  }
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  connected_workers({[](UcpWorker& worker) {
                       const auto device = worker.allocate(kBytes, std::byte{0x5a});
                       worker.send(1, device->bytes(), 1);
                       const auto returned = worker.allocate(kBytes, std::byte{0});
                       worker.receive(returned->bytes(), 2);
                       worker.send(1, returned->bytes(), 3);
                     },
                     [](UcpWorker& worker) {
                       std::vector<std::byte> host(kBytes);
                       worker.receive(host, 1);
                       EXPECT_EQ(host, std::vector<std::byte>(kBytes, std::byte{0x5a}));
                       const std::vector<std::byte> sent = pattern(kBytes, 5);
                       worker.send(0, sent, 2);
                       worker.receive(host, 3);
                       EXPECT_EQ(host, sent);
                     }},
                    MessageMemory::cuda);
}

TEST(TransportsOfLanes, NamesEachLanesTransportAndDeviceOnce) {
  const std::string shared_memory =
      "#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am\n"
      "#                 lane[1]:  5:cma/memory.0 md[4]            -> md[4]/cma/sysdev[255] rma_bw#0\n";
  EXPECT_EQ(transports_of_lanes(shared_memory), "sysv/memory,cma/memory");
  const std::string network =
      "#                 lane[0]:  2:tcp/eth0.0 md[1]              -> md[1]/tcp/sysdev[255] am\n"
      "#                 lane[1]:  2:tcp/eth0.0 md[1]              -> md[1]/tcp/sysdev[255] rma_bw#0\n"
      "#                 lane[2]:  7:rc_mlx5/mlx5_0:1.0 md[3]      -> md[3]/ib/sysdev[0] rma_bw#1\n";
  EXPECT_EQ(transports_of_lanes(network), "tcp/eth0,rc_mlx5/mlx5_0:1");
  EXPECT_EQ(transports_of_lanes("# UCP endpoint\n"), "");
}

TEST(UcpWorker, APeerNotConnectedIsAnError) {
  UcpWorker worker;
  EXPECT_THROW(worker.send(3, pattern(8, 0), 1), UcxError);
  EXPECT_THROW(worker.transports(3), UcxError);
  EXPECT_FALSE(UcpWorker().version().empty());
}

}  // namespace
}  // namespace collbench::ucx
