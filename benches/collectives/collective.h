#pragma once
// A collective's descriptor: everything the harness knows about it, in one place per
// collective (allreduce.cpp, allgather.cpp, reduce_scatter.cpp), as nccl-tests keeps one file
// per collective. Sizes and factors follow nccl-tests so numbers compare.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "benches/collectives/collective_kind.h"

namespace collbench {

// How much of the buffer one rank sends or receives: all of it, or its 1/p share.
enum class Extent { buffer, share };

// A textbook algorithm's cost in the alpha-beta model (DESIGN.md, "Models"):
//   T(n, p) = alpha·latency_factor(p) + beta·n·bandwidth_factor(p), with
//   latency_factor(p)   = latency_per_peer·(p−1) + latency_per_doubling·log2(p),
//   bandwidth_factor(p) = bandwidth_per_share·(p−1)/p + bandwidth_whole
//                         + bandwidth_per_doubling·log2(p).
// A fitted family is stored as its first four numbers in the file's /families table, so readers
// need no copy; only recursive doubling, never fitted, moves the whole buffer every doubling.
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

struct Collective {
  CollectiveKind kind;
  std::string_view name;
  std::span<const std::string_view> aliases;  // other spellings accepted on input
  Extent send;
  Extent recv;
  bool reduces;  // takes a reduction op; one that does not has its inputs gathered instead
  // The algorithms the rank-count fit tries, the ring first: the crossover p* is the ring's,
  // and so is the bus-bandwidth factor (nccl-tests' PERFORMANCE.md counts the ring's traffic).
  std::span<const RankFamily> families;
  // The log-depth algorithms host libraries choose for short messages (cost-models.md §1.2;
  // MPICH and Open MPI's recursive doubling, Bruck, recursive halving, Rabenseifner; NCCL's PAT).
  // With `families`, what links predict the collective from (harness/links/link_bounds.h); the
  // rank-count fit leaves them out, as over a few rank counts log2(p) and p−1 look alike.
  std::span<const RankFamily> log_depth;
  // Cut into one share per rank inside, though each rank holds the whole buffer (a composed
  // allreduce): its count is a multiple of the rank count.
  bool cut_into_shares = false;
};

// The families and the log-depth algorithms: every algorithm the collective may run.
std::vector<const RankFamily*> textbook_algorithms(CollectiveKind kind);

const Collective& describe(CollectiveKind kind);
// The family of that name among the collective's, or nullptr.
const RankFamily* find_family(CollectiveKind kind, std::string_view name);

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

// busbw = algbw × the ring's bandwidth factor: 2(p−1)/p for allreduce, (p−1)/p for allgather
// and reduce-scatter.
double busbw_factor(CollectiveKind kind, int nranks);

bool uses_reduce_op(CollectiveKind kind);

// Offsets, in elements, of this rank's input and result within a single in-place buffer, in
// NCCL's convention: a side that holds one share of the buffer sits at rank × share.
std::size_t in_place_send_offset(CollectiveKind kind, int rank, const Shape& shape);
std::size_t in_place_recv_offset(CollectiveKind kind, int rank, const Shape& shape);

}  // namespace collbench
