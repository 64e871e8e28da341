#include "segment.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace standin {

namespace {

constexpr int kMaxRanks = 1024;
constexpr std::size_t kHeaderBytes = 8192;

// Where each part of a segment of p ranks starts: the header, the rank table, the mailboxes'
// states, the slots, the mailboxes' data.
struct Layout {
  explicit Layout(int p) {
    const std::size_t n = static_cast<std::size_t>(p);
    mailboxes = entries + n * sizeof(RankEntry);
    slots = mailboxes + n * n * sizeof(Mailbox);
    mailbox_data = slots + n * kSlotBytes;
    bytes = mailbox_data + n * n * kMailboxBytes;
  }
  std::size_t entries = kHeaderBytes;
  std::size_t mailboxes, slots, mailbox_data, bytes;
};

}  // namespace

struct Segment::Header {
  std::atomic<std::uint32_t> nranks;
  std::atomic<std::uint32_t> arrived;
  std::atomic<std::uint32_t> mapped;
  std::atomic<std::uint32_t> taken[kMaxRanks];  // per rank: 1 once joined
  std::atomic<std::uint64_t> barrier;
};

void wait_until(const std::function<bool()>& ready, const std::function<bool()>& stop) {
  for (long spins = 0; !ready(); ++spins) {
    if (stop && stop()) throw Aborted{};
    // Yielding while the others may still come: a sleep costs a scheduler tick (50 us or more
    // here), as long as the collective itself, and made the times bimodal. A wait of
    // milliseconds is a hang or an abort to come, and sleeps.
    if (spins < 20000)
      sched_yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

std::string Segment::join(const std::string& name, int nranks, int rank, const RankEntry& entry,
                          Segment*& joined) {
  if (nranks < 1 || nranks > kMaxRanks)
    return fmt::format("nranks {} is not in [1, {}]", nranks, kMaxRanks);
  if (rank < 0 || rank >= nranks) return fmt::format("rank {} is not in [0, {})", rank, nranks);
  const std::size_t bytes = Layout(nranks).bytes;
  const int file = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
  if (file < 0) return fmt::format("shm_open {}: {}", name, std::strerror(errno));
  struct stat status {};
  fstat(file, &status);
  if (static_cast<std::size_t>(status.st_size) < bytes &&
      ftruncate(file, static_cast<off_t>(bytes)) != 0) {
    close(file);
    return fmt::format("ftruncate {}: {}", name, std::strerror(errno));
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  close(file);
  if (base == MAP_FAILED) return fmt::format("mmap {}: {}", name, std::strerror(errno));
  auto* segment = new Segment(static_cast<std::byte*>(base), bytes, nranks);
  Header& h = segment->header();
  std::uint32_t expected = 0;
  if (!h.nranks.compare_exchange_strong(expected, static_cast<std::uint32_t>(nranks)) &&
      expected != static_cast<std::uint32_t>(nranks)) {
    delete segment;
    return fmt::format("this rank says nranks {}, another rank of the id said {}", nranks,
                       expected);
  }
  if (h.taken[rank].exchange(1) != 0) {
    delete segment;
    return fmt::format("rank {} joined twice", rank);
  }
  std::memcpy(const_cast<RankEntry*>(&segment->entry(rank)), &entry, sizeof(entry));
  h.arrived.fetch_add(1);
  wait_until([&] { return h.arrived.load() == static_cast<std::uint32_t>(nranks); }, nullptr);
  if (h.mapped.fetch_add(1) + 1 == static_cast<std::uint32_t>(nranks)) shm_unlink(name.c_str());
  joined = segment;
  return {};
}

Segment::Segment(std::byte* base, std::size_t bytes, int nranks)
    : base_(base), bytes_(bytes), nranks_(nranks) {
  const Layout layout(nranks);
  entries_ = reinterpret_cast<RankEntry*>(base + layout.entries);
  mailboxes_ = reinterpret_cast<Mailbox*>(base + layout.mailboxes);
  slots_ = base + layout.slots;
  mailbox_data_ = base + layout.mailbox_data;
}

Segment::~Segment() { munmap(base_, bytes_); }

Segment::Header& Segment::header() {
  static_assert(sizeof(Header) <= kHeaderBytes);
  return *reinterpret_cast<Header*>(base_);
}

const RankEntry& Segment::entry(int rank) const { return entries_[rank]; }

Mailbox& Segment::mailbox(int from, int to) { return mailboxes_[std::size_t(from) * nranks_ + to]; }

std::byte* Segment::slot(int rank) { return slots_ + std::size_t(rank) * kSlotBytes; }

std::byte* Segment::mailbox_data(int from, int to) {
  return mailbox_data_ + (std::size_t(from) * nranks_ + to) * kMailboxBytes;
}

void Segment::barrier(std::uint64_t& passed, const std::function<bool()>& stop) {
  Header& h = header();
  h.barrier.fetch_add(1);
  const std::uint64_t target = (passed + 1) * static_cast<std::uint64_t>(nranks_);
  wait_until([&] { return h.barrier.load() >= target; }, stop);
  ++passed;
}

}  // namespace standin
