#include "compare_files.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "harness/compare/confirm_command.h"
#include "harness/compare/history_verdicts.h"
#include "harness/compare/interleaved_verdicts.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

constexpr const char* kOneLaunch =
    "one launch per side: the spread between launches is unknown";

std::set<std::string> backends_of(const std::vector<PointResult>& points) {
  std::set<std::string> backends;
  for (const auto& point : points) backends.insert(point.key.backend);
  return backends;
}

// Launches and their host-state probes, oldest first.
struct History {
  std::vector<std::vector<PointResult>> points;
  std::vector<HostProbe> probes;
};

History history_of(const std::vector<std::string>& files) {
  History history;
  for (const auto& file : files) {
    ResultFile launch = read_result_file(file, false);
    history.points.push_back(std::move(launch.points));
    history.probes.push_back(std::move(launch.host_probe));
  }
  return history;
}

// What the host-state match means for the verdicts, as a note.
std::string host_state_note(const HostStateMatch& state) {
  if (const std::string changed = state.host_changed(); !changed.empty())
    return fmt::format("{}: every point and the night UNSURE unless beyond {:g}x; the night says "
                       "what the machine did, not the build",
                       changed, kHostStateReach);
  if (!state.probed)
    return "no host-state probe in NEW or in the history (files before schema 20): the history "
           "is taken as one host state, and a night in another can alert";
  return fmt::format("host state: NEW's probe agrees with {} of the history's {} launches; the "
                     "others lend their spread between launches, never their level{}",
                     state.matched(), state.launches(),
                     state.unprobed ? fmt::format(" ({} without a probe lend nothing)",
                                                  state.unprobed)
                                    : "");
}

// The match of BASE's points with NEW's, with a note when the backends differ (then matched
// without the backend when each file ran on one).
PointMatch matched(Comparison& c, const std::vector<PointResult>& base,
                   const std::vector<PointResult>& now) {
  const auto base_backends = backends_of(base), new_backends = backends_of(now);
  bool ignore_backend = false;
  if (base_backends != new_backends && !base_backends.empty() && !new_backends.empty()) {
    ignore_backend = base_backends.size() == 1 && new_backends.size() == 1;
    c.notes.push_back(fmt::format(
        "the files ran on different backends (BASE {}, NEW {}){}", fmt::join(base_backends, ","),
        fmt::join(new_backends, ","),
        ignore_backend ? "; points are matched without the backend" : ""));
  }
  PointMatch match = match_points(base, now, ignore_backend);
  for (const auto i : match.base_only) c.base_only.push_back(base[i].key);
  for (const auto i : match.new_only) c.new_only.push_back(now[i].key);
  return match;
}

// What the verdicts' spread between launches came from.
std::string replication_note(const Comparison& c) {
  constexpr const char* kAlerts = "alerts (the exit status) need two sizes next to each other "
                                  "SLOWER; fits are judged within the runs only";
  switch (c.replication) {
    case Replication::history:
      return fmt::format("a history of {} launches: each point against its medians since the "
                         "history's last change, their spread moderated toward its curve's, and "
                         "the night as a whole against the launches' levels, SLOWER an alert "
                         "too; {}",
                         c.earlier_files.size() + 1, kAlerts);
    case Replication::pair:
      return fmt::format("NEW against BASE, each point's spread between launches from the {} "
                         "launches of the history, moderated toward its curve's; {}",
                         c.history_files.size(), kAlerts);
    case Replication::interleaved:
      return fmt::format("{} interleaved pairs of launches: each point's change the mean of the "
                         "pairs' log differences, judged against their spread, moderated toward "
                         "its curve's; {}",
                         c.a_files.size(), kAlerts);
    case Replication::one_launch: break;
  }
  const auto beyond = std::ranges::count_if(c.points, [&](const PointComparison& point) {
    const Interval& ci = point.result.ratio_ci;
    return ci.low > 1 + c.options.threshold || ci.high < 1 / (1 + c.options.threshold);
  });
  return fmt::format("{}, so no point or fit is judged (UNSURE, exit 0); the intervals hold the "
                     "noise within the launches only: by them {} of {} points lie beyond the "
                     "threshold, as a second launch of the same build may also do. To judge: several baselines (a history), --history DIR, or "
                     "--interleaved A B",
                     kOneLaunch, beyond, c.points.size());
}

// Nothing from one launch per side is a verdict: the magnitude stays, with its interval.
template <typename Judged>
void unjudged(Judged& judged) {
  if (judged.reason.empty()) judged.reason = kOneLaunch;
  judged.verdict = Change::unsure;
}

void count(Comparison& c) {
  if (c.replication == Replication::one_launch) {
    for (auto& point : c.points) unjudged(point.result);
    for (auto& fit : c.fits.comparisons) unjudged(fit);
  }
  c.notes.push_back(replication_note(c));
  for (const auto& point : c.points) c.point_counts.add(point.result.verdict);
  for (const auto& fit : c.fits.comparisons) c.fit_counts.add(fit.verdict);
}

void take(Comparison& c, LaunchComparison judged) {
  c.points = std::move(judged.points);
  c.alerts = std::move(judged.alerts);
  c.faster_groups = std::move(judged.faster_groups);
  c.night = std::move(judged.night);
}

void compare_models(Comparison& c, const ResultFile& base, const ResultFile& now,
                    bool ignore_backend) {
  if (base.models && now.models)
    c.fits = compare_fits(*base.models, *now.models, c.options.threshold, ignore_backend);
  else if (base.models || now.models)
    c.notes.push_back(fmt::format("{} holds no fits (run with --no-fit?): fits not compared; "
                                  "`collbench fit` adds them",
                                  base.models ? "NEW" : "BASE"));
}

void note_unfinished(Comparison& c, const ResultFile& file, const char* side,
                     const std::string& name) {
  if (!file.complete)
    c.notes.push_back(fmt::format("{} {} is from a run that did not finish", side, name));
}

}  // namespace

std::string_view name(Replication replication) {
  switch (replication) {
    case Replication::history: return "history";
    case Replication::pair: return "pair";
    case Replication::interleaved: return "interleaved";
    case Replication::one_launch: break;
  }
  return "one launch";
}

Comparison compare_files(const std::vector<std::string>& base_files, const std::string& new_file,
                         const std::vector<std::string>& history_files,
                         const CompareOptions& options) {
  // Raw samples only for one launch a side: the launch verdicts use the stored medians.
  const bool one_launch = base_files.size() == 1 && history_files.empty();
  const ResultFile base = read_result_file(base_files.back(), one_launch);
  const ResultFile now = read_result_file(new_file, one_launch);
  Comparison c;
  c.base_file = base_files.back();
  c.earlier_files.assign(base_files.begin(), base_files.end() - 1);
  c.history_files = history_files;
  c.new_file = new_file;
  c.new_run = verdict_run(now.provenance.text_of("start_utc"), now.provenance.text_of("end_utc"));
  c.options = options;
  c.replication = one_launch                ? Replication::one_launch
                  : !c.earlier_files.empty() ? Replication::history
                                             : Replication::pair;
  note_unfinished(c, base, "BASE", c.base_file);
  note_unfinished(c, now, "NEW", c.new_file);

  const PointMatch match = matched(c, base.points, now.points);
  if (c.replication == Replication::one_launch) {
    c.points = compare_points(base.points, now.points, match, options);
  } else {
    const bool nightly = c.replication == Replication::history;
    History history = history_of(nightly ? c.earlier_files : history_files);
    if (nightly) history.probes.push_back(base.host_probe);
    c.host_state = nightly ? match_host_state(history.probes, now.host_probe)
                           : match_host_state(history.probes, now.host_probe, base.host_probe);
    c.notes.push_back(host_state_note(c.host_state));
    take(c, compare_to_history(base.points, now.points, match, options, history.points, nightly,
                               c.host_state));
    if (c.any_slower()) c.confirm = confirm_command(base.provenance, now.provenance);
  }
  compare_models(c, base, now, match.ignore_backend);
  count(c);
  return c;
}

Comparison compare_interleaved_files(const std::string& a_name,
                                     const std::vector<std::string>& a_files,
                                     const std::string& b_name,
                                     const std::vector<std::string>& b_files,
                                     const CompareOptions& options) {
  const ResultFile first_a = read_result_file(a_files.front(), false);
  const ResultFile first_b = read_result_file(b_files.front(), false);
  Comparison c;
  c.replication = Replication::interleaved;
  c.base_file = a_name;
  c.new_file = b_name;
  c.a_files = a_files;
  c.b_files = b_files;
  const ResultFile last_b = read_result_file(b_files.back(), false);
  c.new_run = verdict_run(first_b.provenance.text_of("start_utc"),
                          last_b.provenance.text_of("end_utc"));
  c.options = options;
  note_unfinished(c, first_a, "A", a_files.front());
  note_unfinished(c, first_b, "B", b_files.front());
  const PointMatch match = matched(c, first_a.points, first_b.points);
  take(c, compare_interleaved(history_of(a_files).points, history_of(b_files).points, match,
                              options));
  compare_models(c, first_a, first_b, match.ignore_backend);
  count(c);
  return c;
}

std::size_t night_alerts(const std::optional<LaunchVerdict>& night) {
  return night && night->verdict == Change::slower ? 1 : 0;
}

Change Comparison::overall() const {
  return overall_change(point_counts, any_slower(), !faster_groups.empty());
}

Change overall_change(const ChangeCounts& p, bool slower_alert, bool faster_group) {
  if (slower_alert) return Change::slower;
  if (faster_group) return Change::faster;
  if (2 * p.same >= p.same + p.unsure + p.noisy && p.same > 0) return Change::same;
  return p.noisy > p.unsure ? Change::noisy : Change::unsure;
}

}  // namespace collbench
