// What a nightly job sees, per night, over simulated histories of a host that has states: how
// often an unchanged night exits 1 (an alert: neighbouring sizes SLOWER, or the night as a whole),
// how often a night 10% slower at every point does, and what share of points each flags. 4 curves
// of 24 sizes (8 B to 64 MiB), 8 launches of history and tonight's, 1,000 histories per
// scenario, each scenario's rates with exact (Clopper-Pearson) 95% bounds. Every launch carries a
// host-state probe that reads its state with noise; the verdict judges tonight within it
// (host_states.h). Each scenario has a negative control, the same histories judged with the
// shared terms dropped (no state matching, no shared launch effect), which must fail the bound
// the verdict meets: so the scenario does test what the verdict does about the host.
// docs/nightly.md quotes the printed rates.
//
// Within a state, a launch moves every point together by 1% (sd) and each point on its own by
// 0.5-3% (median 1.5%): what this project's VM shows inside one state. The probe reads copies
// up to 256 KiB within 2% (sd, each moment) and larger ones within 20%, as this VM's did. The
// states, each independent of what is compared:
//   B  small sizes (up to 2 MiB) 2x faster, larger ones 1.2x slower: this VM's other state;
//      its probe reads copies up to 256 KiB 1.3x slower, as this VM's did;
//   C  1.3x slower at every size, its probe's copies up to 256 KiB 1.2x slower: a rare state
//      worse than any the history holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "harness/compare/history_verdicts.h"
#include "harness/stats/sampling_distributions.h"
#include "harness/trend/trend_files.h"

namespace collbench {
namespace {

constexpr int kCurves = 4, kSizes = 24, kHistory = 8, kNights = 1000;
constexpr int kSmallSizes = 19;      // 8 B to 2 MiB
constexpr int kProbeSizes = 8;       // 4 KiB to 64 MiB by 4
constexpr int kProbeSmallSizes = 4;  // up to 256 KiB, which repeat within 2%; the rest 20%

enum class State { a, b, c };

struct Scenario {
  const char* name;
  double other_state = 0;       // chance a launch is in B, each launch on its own
  bool persistent = false;      // A and B in runs of 3-5 launches
  double rare_slower = 0;       // chance a launch is in C
  double per_size_sd = 0;       // B's factor drawn per launch and size, shared by the curves
  bool heavy = false;           // Student's t(4) effects, scaled to the same sd
};

const Scenario kScenarios[] = {
    {"a quiet host"},
    {"B in 10% of launches", 0.10},
    {"B in 25% of launches", 0.25},
    {"B in 50% of launches", 0.50},
    {"B and A in runs of 3-5 launches", 0, true},
    {"C, 1.3x slower, in 8% of launches", 0, false, 0.08},
    {"B in 25%, its factor drawn per launch and size (sd 5%)", 0.25, false, 0, 0.05},
    {"B in 25%, t(4) effects", 0.25, false, 0, 0, true},
};

double collective_factor(State state, int size) {
  if (state == State::b) return size < kSmallSizes ? 0.5 : 1.2;
  return state == State::c ? 1.3 : 1.0;
}

double probe_factor(State state, int probe_size) {
  if (probe_size >= kProbeSmallSizes) return 1;
  return state == State::b ? 1 / 1.3 : state == State::c ? 1 / 1.2 : 1.0;
}

class Simulator {
 public:
  Simulator(const Scenario& scenario, std::uint64_t seed) : s_(scenario), engine_(seed) {}

  // States of `launches` in time order.
  std::vector<State> states(int launches) {
    std::vector<State> states;
    if (s_.persistent) {
      State state = std::bernoulli_distribution(0.5)(engine_) ? State::b : State::a;
      std::uniform_int_distribution<int> run(3, 5);
      int left = run(engine_) - std::uniform_int_distribution<int>(0, 4)(engine_);
      for (int k = 0; k < launches; ++k) {
        if (left-- <= 0) {
          state = state == State::a ? State::b : State::a;
          left = run(engine_) - 1;
        }
        states.push_back(state);
      }
      return states;
    }
    for (int k = 0; k < launches; ++k) {
      const double u = std::uniform_real_distribution<double>()(engine_);
      states.push_back(u < s_.rare_slower                   ? State::c
                       : u < s_.rare_slower + s_.other_state ? State::b
                                                              : State::a);
    }
    return states;
  }

  HostProbe probe(State state) {
    HostProbe probe;
    for (ProbeMoment moment : {ProbeMoment::start, ProbeMoment::middle, ProbeMoment::end})
      for (int p = 0; p < kProbeSizes; ++p)
        probe.readings.push_back(
            {moment, std::size_t{4096} << (2 * p),
             20 * probe_factor(state, p) *
                 std::exp((p < kProbeSmallSizes ? 0.02 : 0.20) * normal_(engine_))});
    return probe;
  }

  // Each launch's medians, [launch][point], times `slower` in the launches from `slowed_from`.
  std::vector<std::vector<double>> medians(const std::vector<State>& states, double slower,
                                           std::size_t slowed_from) {
    if (own_sd_.empty())
      for (int i = 0; i < kCurves * kSizes; ++i)
        own_sd_.push_back(std::clamp(0.015 * std::exp(0.6 * normal_(engine_)), 0.005, 0.03));
    std::vector<std::vector<double>> launches;
    for (std::size_t k = 0; k < states.size(); ++k) {
      const double shared = 0.01 * unit();
      std::vector<double> per_size(kSizes);
      if (states[k] == State::b)
        for (double& f : per_size) f = s_.per_size_sd * normal_(engine_);
      std::vector<double> points;
      for (int curve = 0; curve < kCurves; ++curve)
        for (int size = 0; size < kSizes; ++size) {
          const double level = 1e-6 * std::pow(1.6, size) * (1 + curve);
          points.push_back(level * collective_factor(states[k], size) *
                           std::exp(shared + per_size[size] +
                                    own_sd_[curve * kSizes + size] * unit()) *
                           (k >= slowed_from ? slower : 1));
        }
      launches.push_back(std::move(points));
    }
    return launches;
  }

 private:
  double unit() {  // mean 0, sd 1
    return s_.heavy ? heavy_(engine_) / std::sqrt(2.0) : normal_(engine_);
  }

  const Scenario& s_;
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_;
  std::student_t_distribution<double> heavy_{4};
  std::vector<double> own_sd_;
};

PointKey key_of(int point) {
  PointKey key;
  key.collective = static_cast<CollectiveKind>(point / kSizes);
  key.nranks = 2;
  key.size_bytes = std::size_t{8} << (point % kSizes);
  return key;
}

// One night: tonight (the last launch) against the launches before it.
struct Night {
  std::vector<LaunchHistory> points;
  HostStateMatch state;
};

Night night_of(Simulator& simulator, double slower) {
  const std::vector<State> states = simulator.states(kHistory + 1);
  const auto medians = simulator.medians(states, slower, kHistory);
  std::vector<HostProbe> probes;
  for (State state : states) probes.push_back(simulator.probe(state));
  const HostProbe tonight = probes.back();
  probes.pop_back();
  Night night;
  night.state = match_host_state(probes, tonight);
  for (int i = 0; i < kCurves * kSizes; ++i) {
    LaunchHistory point{key_of(i), {}, {medians[kHistory][i]}, kNoValue};
    for (int k = 0; k < kHistory; ++k) point.medians_s.push_back(medians[k][i]);
    night.points.push_back(std::move(point));
  }
  return night;
}

// A night's verdicts: its points' and the night's as a whole.
struct Judged {
  std::vector<LaunchVerdict> points;
  LaunchVerdict night;
};

// The verdicts, or with `shared_dropped` those of the negative control: the points without their
// shared term, the night without the host's states.
Judged judged_of(const Night& night, bool shared_dropped) {
  const CompareOptions options;
  if (!shared_dropped)
    return {judge_against_history(night.points, options, night.state),
            judge_night(night.points, options, night.state)};
  std::vector<LaunchEvidence> evidence = history_evidence(night.points, options);
  for (LaunchEvidence& point : evidence) point.shared = {};
  return {judge_launches(evidence, options), judge_night(night.points, options)};
}

// Exit 1: two neighbouring sizes of a curve SLOWER, or the night as a whole.
bool alerted(const Judged& judged) {
  std::vector<PointKey> keys;
  for (int i = 0; i < kCurves * kSizes; ++i) keys.push_back(key_of(i));
  return !grouped_sizes(keys, judged.points, Change::slower).empty() ||
         judged.night.verdict == Change::slower;
}

double share_of(const std::vector<LaunchVerdict>& verdicts, auto is) {
  return static_cast<double>(std::ranges::count_if(verdicts, is)) /
         static_cast<double>(verdicts.size());
}

// Exact one-sided 95% bounds of a rate of `k` in `n`.
double upper_bound(std::size_t k, std::size_t n) {
  if (k == n) return 1;
  double low = static_cast<double>(k) / static_cast<double>(n), high = 1;
  for (int step = 0; step < 60; ++step) {  // P(X <= k) falls as p grows
    const double p = (low + high) / 2;
    (1 - binomial_upper_tail(k + 1, n, p) > 0.05 ? low : high) = p;
  }
  return high;
}

double lower_bound(std::size_t k, std::size_t n) {
  if (k == 0) return 0;
  double low = 0, high = static_cast<double>(k) / static_cast<double>(n);
  for (int step = 0; step < 60; ++step) {  // P(X >= k) grows with p
    const double p = (low + high) / 2;
    (binomial_upper_tail(k, n, p) < 0.05 ? low : high) = p;
  }
  return low;
}

double percentile(std::vector<double> values, double q) {
  std::ranges::sort(values);
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

struct Unchanged {
  std::size_t nights = 0, alerts = 0, host_changed = 0, slower_when_changed = 0;
  std::vector<double> flagged;  // per night, the share of points SLOWER or FASTER
};

Unchanged unchanged_nights(const Scenario& scenario, std::uint64_t seed, bool shared_dropped) {
  Simulator simulator(scenario, seed);
  Unchanged u;
  for (int n = 0; n < kNights; ++n) {
    const Night night = night_of(simulator, 1.0);
    const Judged judged = judged_of(night, shared_dropped);
    const auto& verdicts = judged.points;
    ++u.nights;
    u.alerts += alerted(judged);
    const bool changed = !shared_dropped && !night.state.host_changed().empty();
    u.host_changed += changed;
    u.slower_when_changed +=
        changed && (judged.night.verdict == Change::slower ||
                    std::ranges::any_of(verdicts, [](const LaunchVerdict& v) {
                      return v.verdict == Change::slower;
                    }));
    u.flagged.push_back(share_of(verdicts, [](const LaunchVerdict& v) {
      return v.verdict == Change::slower || v.verdict == Change::faster;
    }));
  }
  return u;
}

struct Slower {
  std::size_t judged = 0, alerts = 0;
  double mean_slower = 0;  // share of points SLOWER, over the judged nights
};

Slower slower_nights(const Scenario& scenario, std::uint64_t seed) {
  Simulator simulator(scenario, seed);
  Slower s;
  for (int n = 0; n < kNights; ++n) {
    const Night night = night_of(simulator, 1.10);
    if (!night.state.host_changed().empty()) continue;
    const Judged judged = judged_of(night, false);
    const auto& verdicts = judged.points;
    ++s.judged;
    s.alerts += alerted(judged);
    s.mean_slower +=
        share_of(verdicts, [](const LaunchVerdict& v) { return v.verdict == Change::slower; });
  }
  s.mean_slower /= static_cast<double>(std::max<std::size_t>(s.judged, 1));
  return s;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// Unchanged nights: at most 5% exit 1 (the upper bound), a night in a state the history lacks is
// never SLOWER, the points flagged are few; where the host has states, judging without them
// (the negative control) fails that bound. A quiet host has no shared term large enough to drop:
// its control passes, and it is shown, not asserted. A night 10% slower at every point alerts on
// at least 90% of the judged nights (99% on a quiet host), with at least 60% of its points
// SLOWER (75%).
TEST(NightlyRates, UnchangedNightsRarelyAlertSlowerOnesAreSeenAndTheControlFails) {
  std::uint64_t seed = 48000;
  for (const Scenario& scenario : kScenarios) {
    const Unchanged u = unchanged_nights(scenario, ++seed, false);
    const Unchanged control = unchanged_nights(scenario, seed, true);
    const Slower s = slower_nights(scenario, ++seed);
    const bool quiet = scenario.other_state == 0 && !scenario.persistent &&
                       scenario.rare_slower == 0;
    std::printf("| %s | %zu of %zu (%.1f%%, at most %.1f%%) | %.1f%% | %.2f%%, p99 %.1f%% | %zu "
                "of %zu (%.1f%%, at least %.1f%%), %.0f%% of points SLOWER | %zu of %zu "
                "(%.1f%%, at least %.1f%%) |\n",
                scenario.name, u.alerts, u.nights, 100.0 * u.alerts / u.nights,
                100 * upper_bound(u.alerts, u.nights), 100.0 * u.host_changed / u.nights,
                100 * mean(u.flagged), 100 * percentile(u.flagged, 0.99), s.alerts, s.judged,
                100.0 * s.alerts / s.judged, 100 * lower_bound(s.alerts, s.judged),
                100 * s.mean_slower, control.alerts, control.nights,
                100.0 * control.alerts / control.nights,
                100 * lower_bound(control.alerts, control.nights));
    SCOPED_TRACE(scenario.name);
    EXPECT_LE(upper_bound(u.alerts, u.nights), 0.05);
    EXPECT_EQ(u.slower_when_changed, 0u);
    EXPECT_LE(mean(u.flagged), 0.01);
    EXPECT_LE(percentile(u.flagged, 0.99), 0.10);
    EXPECT_GE(s.mean_slower, quiet ? 0.75 : 0.60);
    EXPECT_GE(static_cast<double>(s.alerts) / static_cast<double>(s.judged), quiet ? 0.99 : 0.90);
    if (!quiet) {
      EXPECT_GT(lower_bound(control.alerts, control.nights), 0.05);
    }
  }
}

// `trend` over unchanged histories of 6 to 12 nights, B in 25% of launches: the newest level
// against the runs before it.
TEST(NightlyRates, TrendOverUnchangedHistoriesRarelyExitsOne) {
  const Scenario& scenario = kScenarios[2];
  for (int runs = 6; runs <= 12; ++runs) {
    Simulator simulator(scenario, 4800 + runs);
    std::size_t alerts = 0;
    for (int n = 0; n < kNights; ++n) {
      const std::vector<State> states = simulator.states(runs);
      const auto medians = simulator.medians(states, 1.0, runs);
      std::vector<HostProbe> probes;
      for (State state : states) probes.push_back(simulator.probe(state));
      Trend trend;
      for (int i = 0; i < kCurves * kSizes; ++i) {
        TrendPoint point;
        point.key = key_of(i);
        for (int k = 0; k < runs; ++k) {
          point.runs.push_back(static_cast<std::size_t>(k));
          point.medians_s.push_back(medians[k][i]);
        }
        trend.points.push_back(std::move(point));
      }
      judge_trend(trend, probes);
      alerts += trend.alert_count() > 0;
    }
    std::printf("| trend, %d unchanged runs | %zu of %d (%.1f%%, at most %.1f%%) |\n", runs,
                alerts, kNights, 100.0 * alerts / kNights, 100 * upper_bound(alerts, kNights));
    EXPECT_LE(upper_bound(alerts, kNights), 0.05) << runs << " runs";
  }
}

}  // namespace
}  // namespace collbench
