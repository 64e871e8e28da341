#include "harness/report/convergence_mark.h"

#include <utility>

#include <fmt/format.h>

#include "harness/stats/reading_step.h"
#include "harness/stats/rounds.h"

namespace collbench {
namespace {

// What a point's token shows, from the most precise kind to the least.
enum class Shown { interval, wider_than_value, rounds_disagree, no_interval };

struct Reading {
  Shown shown = Shown::interval;
  double value = 0;  // the interval's relative half-width, or the rounds' spread
  bool short_of_target = false;
  auto rank() const { return std::pair{shown, value}; }
};

Reading reading_of(const PointResult& point) {
  Reading reading{.short_of_target = !converged(point)};
  if (!median_interval_covers(point.summary.samples)) {
    reading.shown = Shown::no_interval;
    return reading;
  }
  if (reading.short_of_target) {
    const std::vector<RoundMedian> rounds = kept_round_medians(point);
    if (rounds.size() >= 2 && !rounds_agree(rounds)) {
      reading.shown = Shown::rounds_disagree;
      reading.value = round_spread(rounds);
      // The spread is why the point fell short, and its token says so; `!` is left for a limit
      // that cut it, which more time would lift.
      reading.short_of_target = point.stop_reason == StopReason::max_time ||
                                point.stop_reason == StopReason::time_limit;
      return reading;
    }
  }
  reading.value = relative_ci_halfwidth(point.summary);
  if (reading.value > 1) reading.shown = Shown::wider_than_value;
  return reading;
}

PrecisionText text_of(const Reading& reading) {
  PrecisionText text;
  switch (reading.shown) {
    case Shown::interval: text.text = percent_text(reading.value); break;
    case Shown::wider_than_value:
      text.text = ">100%";
      text.marks.push_back(Mark::wider_than_value);
      break;
    case Shown::rounds_disagree:
      text.text = "+-" + percent_text(reading.value);
      text.marks.push_back(Mark::rounds_disagree);
      break;
    case Shown::no_interval:
      text.text = "-";
      text.marks.push_back(Mark::no_interval);
      break;
  }
  if (reading.short_of_target) {
    text.text += "!";
    text.marks.push_back(Mark::short_of_target);
  }
  return text;
}

}  // namespace

std::string percent_text(double fraction) {
  const double value = fraction * 100;
  return value < 10 ? fmt::format("{:.1f}%", value) : fmt::format("{:.0f}%", value);
}

PrecisionText precision_text(const PointResult& point) {
  return precision_text(std::span(&point, 1));
}

PrecisionText precision_text(std::span<const PointResult> points) {
  Reading least;
  bool short_of_target = false;
  for (const auto& point : points) {
    const Reading reading = reading_of(point);
    if (reading.rank() > least.rank()) least = reading;
    short_of_target = short_of_target || reading.short_of_target;
  }
  least.short_of_target = short_of_target;
  return text_of(least);
}

std::string_view legend(Mark mark) {
  switch (mark) {
    case Mark::rounds_disagree:
      return "# ci +-x%: rounds disagree, more than their own intervals explain: their medians lie "
             "within ±x% of their middle (shown in place of a ci)";
    case Mark::wider_than_value:
      return "# ci >100%: the 95% interval is wider than the median itself";
    case Mark::no_interval: return "# ci -: no 95% interval (fewer than 6 samples)";
    case Mark::short_of_target:
      return "# ci !: short of --target-ci: stopped by --max-time or --time-limit (more time "
             "would narrow it), or held back by rounds that disagree where no +-x% says so";
  }
  return "";
}

std::string step_legend(const PointResult& point) {
  const double step = point.sample_step_s;
  if (point.key.mode != Mode::latency || !(step > 0) || !(point.summary.median > 0)) return "";
  return fmt::format(
      "# ci: the timer reads in steps of {:.2f} ns: a median is known to a step at best, and no "
      "ci is asked to be under {:g} steps ({} of a {:.2f} us median)",
      step * 1e9, kStepsHeld, percent_text(kStepsHeld * step / point.summary.median),
      point.summary.median * 1e6);
}

std::string convergence_mark(const PointResult& point) { return precision_text(point).text; }

}  // namespace collbench
