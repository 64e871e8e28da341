#pragma once
// A point: one measured configuration, and what was measured there.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/library_choice.h"
#include "collectives/collective.h"
#include "collectives/datatype.h"
#include "harness/plan/plausibility.h"
#include "harness/stats/no_value.h"
#include "harness/stats/overlap.h"
#include "harness/stats/rounds.h"
#include "harness/stats/stop_reason.h"
#include "harness/stats/summary.h"
#include "topo/placement.h"

namespace collbench {

enum class Mode { latency, bandwidth };
std::string_view name(Mode mode);
std::optional<Mode> parse_mode(std::string_view text);

// How a sample's operations start (docs/DESIGN.md, "timing modes"): at one moment of synchronised
// clocks, or when a barrier releases each rank (what OSU does, and every bandwidth loop).
enum class SampleStart { window, barrier };
std::string_view name(SampleStart start);
std::optional<SampleStart> parse_sample_start(std::string_view text);
// The sync of a point of `mode` in a run whose latency samples start as `latency_sync` (--sync):
// bandwidth loops always start at a barrier.
SampleStart sync_of(Mode mode, SampleStart latency_sync);

struct PointKey;
// "none" for collectives that reduce nothing, else the op's name.
std::string_view redop_label(const PointKey& key);

struct PointKey {
  std::string backend;
  CollectiveKind collective = CollectiveKind::allreduce;
  DataType datatype = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  Placement placement = Placement::world;
  int nranks = 0;
  Mode mode = Mode::bandwidth;
  bool in_place = false;
  std::size_t size_bytes = 0;  // the size actually run, nccl-tests convention
  std::size_t count = 0;       // elements: the buffer for allreduce, each rank's share otherwise
  // The library's algorithm and protocol when pinned by --nccl-algo/--nccl-proto; empty when
  // the library chose.
  std::string algorithm;
  std::string protocol;
  int root = kNoRoot;  // of a collective with a root (has_root), a rank of the communicator
  // How its samples started: a latency started at a barrier is another quantity than one
  // started in a window (docs/DESIGN.md, "Timing modes"), so it is another point.
  SampleStart sync = SampleStart::barrier;

  bool operator==(const PointKey&) const = default;
  auto operator<=>(const PointKey&) const = default;  // so that keys index maps
};

// The record keeps a rank's time as float32 microseconds (results/SCHEMA.md): half a double's
// bytes, and a resolution of 6e-8 of the value (0.06 ps at 1 us, 0.06 us at 1 s), far below any
// timer's. Times are rounded so where they are measured, so that every statistic is one of
// exactly the values the file holds.
using RecordedMicroseconds = float;
// In memory times are seconds; in the file, microseconds.
inline constexpr double kMicrosecondsPerSecond = 1e6;
inline RecordedMicroseconds recorded_microseconds(double seconds) {
  return static_cast<RecordedMicroseconds>(seconds * kMicrosecondsPerSecond);
}
inline double as_recorded(double seconds) {
  return recorded_microseconds(seconds) / kMicrosecondsPerSecond;
}

// Sample matrix: samples[s * nranks + r] is rank r's time of sample s, in seconds.
// With window starts, a rank's time is its operation's end minus t0 on the common clock, and
// start_lateness_seconds (same shape) its start minus t0; empty for barrier starts.
// The point's rounds follow each other in the matrix: round j starts at sample round_starts[j].
struct RawSamples {
  int nranks = 0;
  std::vector<double> per_rank_seconds;
  std::vector<double> start_lateness_seconds;
  std::vector<int> world_ranks;  // column r of the matrix is this world rank
  std::vector<std::size_t> round_starts{0};
  std::size_t sample_count() const { return nranks ? per_rank_seconds.size() / nranks : 0; }
};

// Per sample, the slowest column's time.
std::vector<double> slowest_rank_times(const RawSamples& raw);

// One value per sample over a point's rounds; round j starts at round_starts[j].
struct SampleSeries {
  std::vector<double> seconds;
  std::vector<std::size_t> round_starts{0};
};

inline constexpr std::int64_t kNotChecked = -1;
inline constexpr double kNotApplicable = kNoValue;

// A point's validation (docs/reading-results.md, "Validation"): its wrong elements, summed over
// ranks, in the check before timing (in its first round) and in the check after the timed
// samples of its last round; kNotChecked where a check did not run.
struct Checks {
  std::int64_t before_timing = kNotChecked;
  std::int64_t after_timing = kNotChecked;
  // What #wrong shows: the check that found more.
  std::int64_t wrong() const { return before_timing > after_timing ? before_timing : after_timing; }
  bool failed() const { return wrong() > 0; }
};
// "the check after timing found 32768 wrong elements, the one before timing 0".
std::string checks_text(const Checks& checks);

struct PointResult {
  PointKey key;
  Summary summary;  // of the per-sample slowest-rank times, seconds
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  Checks checks;
  Implausible implausible = Implausible::no;  // judged on rank 0 once the rounds are in
  StopReason stop_reason = StopReason::converged;
  int ops_per_sample = 1;             // 1 in latency mode, the loop length in bandwidth mode
  // How finely a sample is read: the timer's step (harness/measure/timer_step.h) over
  // ops_per_sample; 0 where the timer showed none. Medians are known to a step at best.
  double sample_step_s = 0;
  std::uint64_t invalid_samples = 0;  // window samples a rank reached late: left out, counted
  double window_margin_s = kNotApplicable;  // window: rank 0's lead on t0 at the last sample
  double clock_error_s = kNotApplicable;    // window: the clocks' residual error after the point
  LibraryChoice chosen;  // what the library chose, by its own account; empty where it did not say
  OverlapMeasure overlap;  // latency points of runs with --overlap-load, from their first round
  std::vector<double> rank_median_seconds;  // per column of `samples`
  // OSU's own figure, at latency points started at a barrier: each rank's mean time per
  // operation over every sample of the point, averaged over the ranks that ran it (osu_allreduce
  // prints this as its latency); NaN elsewhere.
  double osu_mean_s = kNotApplicable;
  // Rank 0: the slowest rank's time in every sample, what the Summary is built from, while
  // `samples` may keep only some rows (--keep-samples). Every rank: its own time in every valid
  // sample, whose median is its column of rank_median_seconds and whose mean goes into
  // osu_mean_s. Neither is stored.
  SampleSeries slowest;
  std::vector<double> own_seconds;
  RawSamples samples;
};

// Each round's median of the slowest-rank times of the samples the point keeps (--keep-samples:
// every sample up to 1,000 a point by default, evenly spaced rows beyond), the same in the run
// that measured it and in its file; none when it keeps none.
std::vector<RoundMedian> kept_round_medians(const PointResult& point);

// Whether the point reached what it was sampled for: its --target-ci, or its fixed count, with
// enough samples for a 95% interval of the median. Every output marks the points that did not.
bool converged(const PointResult& point);

}  // namespace collbench
