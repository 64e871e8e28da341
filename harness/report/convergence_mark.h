#pragma once
// How every output states a point's precision in one token (the table's last column, markdown's
// `ci`, `ci_mark` in csv and json), and the legend of the marks a token can carry:
//   0.4%     the median's 95% interval: its wider side relative to the median;
//   +-3.4%   the rounds disagree (harness/stats/rounds.h; their medians from the samples the
//            point keeps) and the point stopped short: the medians lie within ±3.4% of the
//            middle of their range (round_spread), shown instead of an interval that their spread
//            keeps wider than the target, which more samples in this run would not narrow;
//   >100%    an interval wider than the value itself, which pins the median down to nothing;
//   -        no interval: too few samples for one;
//   !        after any of them: the point did not reach what it was sampled for
//            (harness/plan/point.h, converged()); after +-x% only where a limit (--max-time,
//            --time-limit) cut it, since the spread already says why it fell short.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/plan/point.h"

namespace collbench {

enum class Mark { rounds_disagree, wider_than_value, no_interval, short_of_target };

struct PrecisionText {
  std::string text;         // "0.4%", "+-3.4%", "+-3.4%!", ">100%!", "-!"
  std::vector<Mark> marks;  // those the text carries, in the order above
};

// A fraction as the column prints it: "0.4%", "36%".
std::string percent_text(double fraction);

PrecisionText precision_text(const PointResult& point);
// A table row's points in one token: its least precise point's (no interval, then rounds that
// disagree by the widest spread, then the widest interval), "!" when any point stopped short.
PrecisionText precision_text(std::span<const PointResult> points);

// The line that explains a mark, for a legend ("# ci +-x%: ...").
std::string_view legend(Mark mark);

// The legend line that says what the timer's step does to the precision of `point`, a latency
// point read in steps (PointResult::sample_step_s); empty at any other.
std::string step_legend(const PointResult& point);

std::string convergence_mark(const PointResult& point);  // precision_text(point).text

}  // namespace collbench
