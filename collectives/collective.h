#pragma once
// A collective's descriptor: everything the harness knows about it, in one place per
// collective (allreduce.cpp, alltoall.cpp, ...), as nccl-tests keeps one file per collective.
// Sizes and factors follow nccl-tests so numbers compare. Adding a collective: its name in
// COLLBENCH_COLLECTIVES (collective_kind.h), its descriptor file, and its launch in each backend.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "collectives/collective_kind.h"

namespace collbench {

// How much of the buffer one side of a rank holds: all of it, or its 1/p share.
enum class Extent { buffer, share };

// How a collective's result follows from the ranks' inputs; pattern_rule.h checks each exactly.
enum class Outcome {
  reduced,           // the reduction over ranks of each element
  gathered,          // share q of the result is rank q's share
  exchanged,         // block q of rank r's result is block r of rank q's input (alltoall)
  copied_from_root,  // the root's input (a scatter's share of it: its count is a share's)
  shifted,           // the input of the rank before (r−1 mod p): sendrecv's ring
};

// The ranks a collective leaves a result on. A broadcast's root has its input, nothing new.
enum class ResultRanks { every_rank, root, all_but_root };
// The ranks whose input it reads: a broadcast reads the root's alone.
enum class InputRanks { every_rank, root };

// A textbook algorithm's cost in the alpha-beta model (docs/DESIGN.md, "Models"):
//   T(n, p) = alpha·latency_factor(p) + beta·n·bandwidth_factor(p), with
//   latency_factor(p)   = latency_per_peer·(p−1) + latency_per_doubling·log2(p),
//   bandwidth_factor(p) = bandwidth_per_share·(p−1)/p + bandwidth_whole
//                         + bandwidth_per_doubling·log2(p).
// A fitted family is stored as its first four numbers in the file's /families table, so readers
// need no copy; only the log-depth algorithms, never fitted, move data every doubling.
struct RankFamily {
  std::string_view name;
  double latency_per_peer = 0;
  double latency_per_doubling = 0;
  double bandwidth_per_share = 0;
  double bandwidth_whole = 0;
  double bandwidth_per_doubling = 0;

  double latency_factor(double ranks) const;
  double bandwidth_factor(double ranks) const;
};

// A collective's descriptor: what it moves, what its result is, how it is costed.
struct Collective {
  std::string_view name;
  std::span<const std::string_view> aliases;  // other spellings accepted on input
  Extent send;
  Extent recv;
  // The count the library is passed and the table shows (nccl-tests' convention): the whole
  // buffer's, or one share's (allgather's and reduce-scatter's per rank, alltoall's per peer).
  Extent count;
  Outcome outcome;
  ResultRanks result_ranks = ResultRanks::every_rank;
  InputRanks input_ranks = InputRanks::every_rank;
  // The algorithms the rank-count fit tries, the reference first: the crossover p* is its, and
  // so is the bus-bandwidth factor (nccl-tests' PERFORMANCE.md counts the ring's traffic).
  std::span<const RankFamily> families;
  // The log-depth algorithms host libraries choose for short messages (docs/DESIGN.md, "Models";
  // MPICH and Open MPI's recursive doubling, Bruck, recursive halving, Rabenseifner, binomial
  // trees; NCCL's PAT). With `families`, what links predict the collective from
  // (harness/links/link_bounds.h); the rank-count fit leaves them out, as over a few rank counts
  // log2(p) and p−1 look alike.
  std::span<const RankFamily> log_depth;
  // Cut into one share per rank inside, though each rank holds the whole buffer (a composed
  // allreduce): its count is a multiple of the rank count.
  bool cut_into_shares = false;
  // Composed by HierarchicalCommunicator from a node and a rail communicator, on any backend,
  // rather than called from the library; runs where the group's nodes hold as many ranks each.
  bool composed_across_nodes = false;
};

// The families and the log-depth algorithms: every algorithm the collective may run.
std::vector<const RankFamily*> textbook_algorithms(CollectiveKind kind);

// Defined in the collective's own file; describe() finds it.
template <CollectiveKind kind>
const Collective& descriptor();
#define COLLBENCH_DECLARE_DESCRIPTOR(kind) \
  template <>                              \
  const Collective& descriptor<CollectiveKind::kind>();
COLLBENCH_COLLECTIVES(COLLBENCH_DECLARE_DESCRIPTOR)
#undef COLLBENCH_DECLARE_DESCRIPTOR

const Collective& describe(CollectiveKind kind);
// The family of that name among the collective's, or nullptr.
const RankFamily* find_family(CollectiveKind kind, std::string_view name);
// The family the crossover p* and the bus bandwidth are of: the first.
const RankFamily& reference_family(CollectiveKind kind);

struct Shape {
  std::size_t send_count = 0;  // elements each rank sends
  std::size_t recv_count = 0;  // elements each rank receives
  std::size_t size_bytes = 0;  // the size reported: the whole buffer
  std::size_t count = 0;       // the count reported: the buffer, or one rank's share of it
};

// Rounds a share that does not divide evenly down to whole elements; count 0 when the size is
// too small for one element per rank.
Shape shape_for(CollectiveKind kind, std::size_t requested_bytes, std::size_t element_bytes,
                int nranks);

// The smallest requested size that gives one element per rank.
std::size_t smallest_size(CollectiveKind kind, std::size_t element_bytes, int nranks);

// Whether the collective's time grows with the rank count by a textbook family, so that fits
// across rank counts, their crossover p* and predictions apply. sendrecv's does not: each rank
// sends one buffer to one neighbour and receives one, at any p.
bool has_rank_families(CollectiveKind kind);

// busbw = algbw × the reference family's bandwidth factor: 2(p−1)/p for allreduce, (p−1)/p for
// allgather, reduce-scatter, alltoall, gather and scatter, 1 for broadcast and reduce; 1 without
// a family (sendrecv: its buffer crosses one link, nccl-tests' SendRecvGetBw).
double busbw_factor(CollectiveKind kind, int nranks);

bool uses_reduce_op(CollectiveKind kind);
// Broadcast, reduce, gather and scatter: one rank, the root, is the source or the destination.
bool has_root(CollectiveKind kind);
// The root of a collective without one, as nccl-tests' table shows it.
inline constexpr int kNoRoot = -1;
// The root `kind` runs with: `root` where it has one, else kNoRoot.
int root_of(CollectiveKind kind, int root);
// Whether `rank` holds a result to check, and whether its input is read.
bool holds_result(CollectiveKind kind, int rank, int root);
bool holds_input(CollectiveKind kind, int rank, int root);

// Offsets, in elements, of this rank's input and result within a single in-place buffer, in
// NCCL's convention: a side that holds one share of the buffer sits at rank × share.
std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape);
std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape);

}  // namespace collbench
