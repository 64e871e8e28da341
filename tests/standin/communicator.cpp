#include "communicator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "datatypes.h"
#include "faults.h"
#include "reduction.h"
#include "stream.h"

namespace standin {

const char* name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce:
      return "AllReduce";
    case CollectiveKind::all_gather:
      return "AllGather";
    case CollectiveKind::reduce_scatter:
      return "ReduceScatter";
    case CollectiveKind::all_to_all:
      return "AlltoAll";
    case CollectiveKind::broadcast:
      return "Broadcast";
    case CollectiveKind::reduce:
      return "Reduce";
    case CollectiveKind::send:
      return "Send";
    case CollectiveKind::receive:
      return "Recv";
  }
  return "?";
}

bool is_data_collective(CollectiveKind kind) {
  return kind == CollectiveKind::all_reduce || kind == CollectiveKind::all_gather ||
         kind == CollectiveKind::reduce_scatter;
}

}  // namespace standin

using standin::Collective;
using standin::CollectiveKind;

void ncclComm::run(const std::vector<Collective>& calls, const std::string& channels) {
  std::lock_guard lock(running_);
  if (aborted || calls.empty()) return;
  const bool connects =
      runtime_connect && !channels.empty() && connected_.insert(channels).second;
  const double start = standin::host_seconds();
  const Collective& c = calls.front();
  try {
    if (fault_ran(c)) return;
    switch (c.kind) {
      case CollectiveKind::all_reduce:
        reduce_chunks(c, true);
        break;
      case CollectiveKind::all_gather:
        all_gather(c);
        break;
      case CollectiveKind::reduce_scatter:
        reduce_scatter(c);
        break;
      case CollectiveKind::all_to_all:
        all_to_all(c);
        break;
      case CollectiveKind::broadcast:
        broadcast(c);
        break;
      case CollectiveKind::reduce:
        reduce_chunks(c, rank == c.peer);
        break;
      case CollectiveKind::send:
      case CollectiveKind::receive:
        exchange(calls);
        break;
    }
  } catch (const standin::Aborted&) {
    return;
  }
  for (const Collective& call : calls) corrupt(call);
  // A group costs what its largest message costs: its sends and receives run at once.
  take_cost(std::ranges::max_element(calls, {}, &Collective::bytes)->bytes, start, connects);
}

bool ncclComm::fault_ran(const Collective& c) {
  const auto stop = [this] { return aborted.load(); };
  switch (standin::fault_now(c.kind, c.type, nranks)) {
    case standin::Fault::async_error:
      async_error = ncclRemoteError;
      [[fallthrough]];
    case standin::Fault::hang:
      standin::wait_until([] { return false; }, stop);
      return true;
    case standin::Fault::none:
      break;
  }
  return false;
}

void ncclComm::corrupt(const Collective& c) {
  if (c.output && c.count > 0 && standin::corrupts(c.type) && c.kind != CollectiveKind::send)
    c.output[0] ^= std::byte{0x5A};
}

void ncclComm::take_cost(std::size_t bytes, double start, bool connects) {
  // Yielding, not sleeping: a sleep of microseconds lasts the timer slack (50 us). A delayed
  // rank finishes late, as one with a slow link would.
  const double until = start + standin::cost_seconds(bytes) + standin::delay_seconds() +
                       (connects ? standin::connect_seconds() : 0);
  standin::wait_until([&] { return standin::host_seconds() >= until; }, nullptr);
}

void ncclComm::barrier() {
  segment->barrier(barriers_passed_, [this] { return aborted.load(); });
}

// Chunks of a slot: every rank stages its part, all pass a barrier, each reads what it needs,
// and all pass another before the slots are written again.
void ncclComm::reduce_chunks(const Collective& c, bool writes) {
  const std::size_t element = standin::element_bytes(c.type);
  const std::size_t chunk = standin::kSlotBytes / element;
  std::vector<const std::byte*> slots(static_cast<std::size_t>(nranks));
  for (int r = 0; r < nranks; ++r) slots[std::size_t(r)] = segment->slot(r);
  for (std::size_t first = 0; first < c.count; first += chunk) {
    const std::size_t n = std::min(chunk, c.count - first);
    std::memcpy(segment->slot(rank), c.input + first * element, n * element);
    barrier();
    if (writes) standin::reduce(c.type, c.op, nranks, slots.data(), c.output + first * element, n);
    barrier();
  }
}

void ncclComm::all_gather(const Collective& c) {
  const std::size_t element = standin::element_bytes(c.type);
  const std::size_t chunk = standin::kSlotBytes / element;
  for (std::size_t first = 0; first < c.count; first += chunk) {
    const std::size_t n = std::min(chunk, c.count - first);
    std::memcpy(segment->slot(rank), c.input + first * element, n * element);
    barrier();
    for (int r = 0; r < nranks; ++r)
      std::memcpy(c.output + (std::size_t(r) * c.count + first) * element, segment->slot(r),
                  n * element);
    barrier();
  }
}

// Chunks of the input's p blocks: every rank stages block q's chunk for rank q, all pass a
// barrier, and `take` gets the chunks staged for this rank, one from each rank, before the
// slots are written again. Every rank stages before any reads, so in place is safe too.
void ncclComm::exchange_blocks(const Collective& c, const BlockChunks& take) {
  const std::size_t element = standin::element_bytes(c.type);
  const std::size_t p = static_cast<std::size_t>(nranks);
  const std::size_t chunk = standin::kSlotBytes / (element * p);
  std::vector<const std::byte*> mine(p);
  for (std::size_t first = 0; first < c.count; first += chunk) {
    const std::size_t n = std::min(chunk, c.count - first);
    for (std::size_t to = 0; to < p; ++to)
      std::memcpy(segment->slot(rank) + to * n * element,
                  c.input + (to * c.count + first) * element, n * element);
    barrier();
    for (std::size_t from = 0; from < p; ++from)
      mine[from] = segment->slot(static_cast<int>(from)) + std::size_t(rank) * n * element;
    take(first, n, mine);
    barrier();
  }
}

void ncclComm::reduce_scatter(const Collective& c) {
  exchange_blocks(c,
                  [&](std::size_t first, std::size_t n, const std::vector<const std::byte*>& mine) {
                    standin::reduce(c.type, c.op, nranks, mine.data(),
                                    c.output + first * standin::element_bytes(c.type), n);
                  });
}

void ncclComm::all_to_all(const Collective& c) {
  const std::size_t element = standin::element_bytes(c.type);
  exchange_blocks(
      c, [&](std::size_t first, std::size_t n, const std::vector<const std::byte*>& mine) {
        for (std::size_t from = 0; from < mine.size(); ++from)
          std::memcpy(c.output + (from * c.count + first) * element, mine[from], n * element);
      });
}

// Every rank copies the root's buffer into its recvbuff, the root too: NCCL's root copies
// sendbuff to recvbuff when they differ (src/device/broadcast.h, runRing: directCopySend).
void ncclComm::broadcast(const Collective& c) {
  const std::size_t element = standin::element_bytes(c.type);
  const std::size_t chunk = standin::kSlotBytes / element;
  for (std::size_t first = 0; first < c.count; first += chunk) {
    const std::size_t n = std::min(chunk, c.count - first);
    if (rank == c.peer) std::memcpy(segment->slot(rank), c.input + first * element, n * element);
    barrier();
    std::memcpy(c.output + first * element, segment->slot(c.peer), n * element);
    barrier();
  }
}

// Each message goes through the pair's mailbox in chunks: a send fills it when empty, a receive
// empties it when full. Every operation of the group takes a step when it can, so none waits on
// another of its own group; an empty message is one empty chunk.
void ncclComm::exchange(const std::vector<Collective>& group) {
  struct Progress {
    std::size_t bytes;
    std::size_t done = 0;
    bool started = false;
    bool finished() const { return started && done >= bytes; }
  };
  std::vector<Progress> progress;
  for (const Collective& c : group)
    progress.push_back({.bytes = c.count * standin::element_bytes(c.type)});
  // An operation waits for the earlier ones of its kind to its peer: messages match in order.
  const auto next_in_order = [&](std::size_t i) {
    for (std::size_t j = 0; j < i; ++j)
      if (group[j].kind == group[i].kind && group[j].peer == group[i].peer &&
          !progress[j].finished())
        return false;
    return true;
  };
  const auto step = [&](std::size_t i) {
    const Collective& c = group[i];
    Progress& p = progress[i];
    const bool sends = c.kind == CollectiveKind::send;
    standin::Mailbox& box = sends ? segment->mailbox(rank, c.peer) : segment->mailbox(c.peer, rank);
    if (box.state.load() % 2 != (sends ? 0u : 1u)) return;
    if (sends) {
      const std::size_t n = std::min(standin::kMailboxBytes, p.bytes - p.done);
      std::memcpy(segment->mailbox_data(rank, c.peer), c.input + p.done, n);
      box.bytes = n;
      p.done += n;
    } else {
      std::memcpy(c.output + p.done, segment->mailbox_data(c.peer, rank), box.bytes);
      p.done += box.bytes;
    }
    p.started = true;
    box.state.fetch_add(1);
  };
  standin::wait_until(
      [&] {
        bool all = true;
        for (std::size_t i = 0; i < group.size(); ++i) {
          if (!progress[i].finished() && next_in_order(i)) step(i);
          all = all && progress[i].finished();
        }
        return all;
      },
      [this] { return aborted.load(); });
}
