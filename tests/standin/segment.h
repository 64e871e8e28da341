#pragma once
// A communicator's ranks meet in a POSIX shared-memory segment named after its unique id: a
// rank table filled at init, a barrier, a staging slot per rank for collectives and a mailbox
// per ordered pair of ranks for send and receive. Each process maps it once; the last rank to
// map it unlinks the name, so nothing is left in /dev/shm once a communicator is up.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace standin {

struct RankEntry {
  char host[128];  // NCCL's host identity (nccl.cpp, host_identity): ranks of one node
  char bus_id[32];
  int color;  // ncclCommSplit's arguments, in a split's rendezvous
  int key;
};

struct Mailbox {
  std::atomic<std::uint64_t> state;  // even: empty, odd: full
  std::uint64_t bytes;
};

inline constexpr std::size_t kSlotBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMailboxBytes = std::size_t{64} << 10;

// Thrown out of a wait when the caller's communicator was aborted.
struct Aborted {};

class Segment {
 public:
  // Joins `name` as `rank` of `nranks`, publishing `entry`; returns once every rank has. An
  // empty string when joined, else why not (a different rank count, a taken rank).
  static std::string join(const std::string& name, int nranks, int rank, const RankEntry& entry,
                          Segment*& joined);
  ~Segment();

  int nranks() const { return nranks_; }
  const RankEntry& entry(int rank) const;
  std::byte* slot(int rank);
  Mailbox& mailbox(int from, int to);
  std::byte* mailbox_data(int from, int to);

  // Every rank's stream reaches the barrier before any passes it. `stop` is polled while
  // waiting and aborts the wait by throwing Aborted.
  void barrier(std::uint64_t& passed, const std::function<bool()>& stop);

 private:
  Segment(std::byte* base, std::size_t bytes, int nranks);
  struct Header;
  Header& header();

  std::byte* base_;
  std::size_t bytes_;
  int nranks_;
  RankEntry* entries_;
  Mailbox* mailboxes_;
  std::byte* slots_;
  std::byte* mailbox_data_;
};

// Waits for `ready`, spinning then sleeping briefly; Aborted when `stop` says so.
void wait_until(const std::function<bool()>& ready, const std::function<bool()>& stop);

}  // namespace standin
