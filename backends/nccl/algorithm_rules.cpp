#include "algorithm_rules.h"

#include <fmt/format.h>

#include "collectives/collective.h"

#include <map>
#include <set>

namespace collbench::nccl {
namespace {

struct Algorithm {
  std::set<CollectiveKind> collectives;
  bool simple_only;  // no LL or LL128 kernels
};

const std::map<std::string, Algorithm>& algorithms() {
  using enum CollectiveKind;
  static const std::map<std::string, Algorithm> table{
      {"Ring", {{allreduce, allgather, reduce_scatter, broadcast, reduce}, false}},
      {"Tree", {{allreduce}, false}},
      {"CollnetDirect", {{allreduce, allgather, reduce_scatter}, true}},
      {"CollnetChain", {{allreduce}, true}},
      {"NVLS", {{allreduce, allgather, reduce_scatter}, true}},
      {"NVLSTree", {{allreduce}, true}},
      {"PAT", {{allgather, reduce_scatter}, true}},
  };
  return table;
}

// NVLS reduces in the switch: sums and min/max of 16-bit floats and 32/64-bit integers, sums
// only of float and double; nothing of 8-bit types. avg is a pre-multiplied sum (floats) or a
// sum divided after (integers), neither a plain sum.
bool nvls_reduces(DataType type, ReduceOp op) {
  switch (type) {
    case DataType::int32:
    case DataType::uint32:
    case DataType::int64:
    case DataType::uint64:
    case DataType::float16:
    case DataType::bfloat16:
      return op == ReduceOp::sum || op == ReduceOp::min || op == ReduceOp::max;
    case DataType::float32:
    case DataType::float64:
      return op == ReduceOp::sum;
    default:
      return false;
  }
}

}  // namespace

std::string why_ineligible(const Tuning& tuning, CollectiveKind kind, DataType type, ReduceOp op) {
  if (tuning.algorithm.empty()) return {};
  const auto found = algorithms().find(tuning.algorithm);
  if (found == algorithms().end()) return {};  // NCCL's to judge at the first call
  const Algorithm& algorithm = found->second;
  if (!algorithm.collectives.contains(kind))
    return fmt::format("{} has no {}", tuning.algorithm, name(kind));
  if (algorithm.simple_only && !tuning.protocol.empty() && tuning.protocol != "Simple")
    return fmt::format("{} runs the Simple protocol only", tuning.algorithm);
  const bool nvls = tuning.algorithm == "NVLS" || tuning.algorithm == "NVLSTree";
  if (nvls && uses_reduce_op(kind) && !nvls_reduces(type, op))
    return fmt::format("{} cannot reduce {} with {}", tuning.algorithm, name(type), name(op));
  // avg is a pre-multiplied sum on floats and a sum divided after on integers (enqueue.cc,
  // hostToDevRedOp); topoGetAlgoInfo skips PAT for a reduce-scatter of either.
  if (tuning.algorithm == "PAT" && kind == CollectiveKind::reduce_scatter && op == ReduceOp::avg)
    return fmt::format("PAT has no scaled sum (avg of {}: {})", name(type),
                       is_floating(type) ? "a pre-multiplied sum" : "a sum divided after");
  return {};
}

}  // namespace collbench::nccl
