#pragma once
// Who came last in one point's samples: per sample the rank whose end (or start) was latest, per
// rank how far behind the others it typically was, and the rank that was latest most often, when
// one was, by a margin that matters. The evidence that stragglers.h weighs over a run's points.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace collbench {

enum class StragglerKind {
  finishes_last,  // the operation's end, on the common clock
  starts_late,    // the operation's start after t0, counted only past the margin's floor
};
inline constexpr StragglerKind kStragglerKinds[] = {StragglerKind::finishes_last,
                                                    StragglerKind::starts_late};
std::string_view name(StragglerKind kind);
std::optional<StragglerKind> parse_straggler_kind(std::string_view text);

// How far behind the others a point's typical latest rank must be for it to count: an
// algorithm's structure (the last rank of a reduce-then-broadcast is last every time, by a
// message's latency) and a shared core (on this 2-core VM, 3 and 4 ranks lag each other by up
// to 19% of a point's median) make some rank latest in most samples of most points of an
// unloaded run; docs/reading-results.md, "Stragglers", has the measurements behind these numbers.
struct LagMargin {
  double share = 0.25;     // of the point's median time
  double floor_s = 1e-6;   // and at least this, or the clocks' error where that is larger
};

struct PointEvidence {
  std::size_t samples = 0;
  std::vector<std::size_t> times_last;  // per column: samples in which it alone was latest
  std::vector<double> lag_s;  // per column: median over samples of its value minus the others'
                              // median in that sample
  std::vector<std::size_t> latest_most_often;  // the columns tied for the most samples latest
  double margin_s = 0;  // the lag that makes a column the point's typical latest

  // Whether `column` was the point's typical latest: latest most often, alone, by the margin.
  bool typical_last(std::size_t column) const {
    return latest_most_often.size() == 1 && latest_most_often[0] == column && behind(column);
  }
  bool behind(std::size_t column) const { return lag_s[column] >= margin_s; }
};

// `values`: [sample x column] of `kind`'s times in seconds after t0, at least two columns.
// `median_s`: the point's median time; `clock_error_s`: its clocks' error (NaN or 0 when the
// ranks share a clock).
PointEvidence point_evidence(std::span<const double> values, std::size_t columns,
                             StragglerKind kind, double median_s, double clock_error_s,
                             const LagMargin& margin);

}  // namespace collbench
