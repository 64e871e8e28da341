#include "compare_files.h"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "harness/compare/history_verdicts.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

std::set<std::string> backends_of(const ResultFile& file) {
  std::set<std::string> backends;
  for (const auto& point : file.points) backends.insert(point.key.backend);
  return backends;
}

// What the verdicts' noise between runs came from, when it says something a reader must know.
std::optional<std::string> noise_note(const Comparison& c) {
  if (c.against_history())
    return fmt::format("a history of {} launches: each point against its medians since the "
                       "history's last change, their spread moderated toward its curve's; alerts "
                       "(the exit status) need two sizes next to each other SLOWER; fits are "
                       "shown, judged within the runs only, and do not set the exit status",
                       c.earlier_files.size() + 1);
  const bool any_rounds = std::ranges::any_of(c.points, [](const PointComparison& point) {
    return point.result.base_rounds > 1 || point.result.new_rounds > 1;
  });
  if (any_rounds) return std::nullopt;
  return "one round per point in both files: the intervals see the noise within a run only, not "
         "between runs (measure with --rounds 3 or more, or give several baselines)";
}

}  // namespace

Comparison compare_files(const std::vector<std::string>& base_files, const std::string& new_file,
                         const CompareOptions& options) {
  const ResultFile base = read_result_file(base_files.back(), true);
  const ResultFile now = read_result_file(new_file, true);
  std::vector<std::vector<PointResult>> earlier;
  for (auto file = base_files.begin(); file + 1 != base_files.end(); ++file)
    earlier.push_back(read_result_file(*file, false).points);
  Comparison c;
  c.base_file = base_files.back();
  c.earlier_files.assign(base_files.begin(), base_files.end() - 1);
  c.new_file = new_file;
  c.new_run = verdict_run(now.provenance.text_of("start_utc"), now.provenance.text_of("end_utc"));
  c.options = options;

  const auto base_backends = backends_of(base), new_backends = backends_of(now);
  bool ignore_backend = false;
  if (base_backends != new_backends && !base_backends.empty() && !new_backends.empty()) {
    ignore_backend = base_backends.size() == 1 && new_backends.size() == 1;
    c.notes.push_back(fmt::format(
        "the files ran on different backends (BASE {}, NEW {}){}", fmt::join(base_backends, ","),
        fmt::join(new_backends, ","),
        ignore_backend ? "; points are matched without the backend" : ""));
  }
  if (!base.complete)
    c.notes.push_back(fmt::format("BASE {} is from a run that did not finish", c.base_file));
  if (!now.complete)
    c.notes.push_back(fmt::format("NEW {} is from a run that did not finish", c.new_file));

  const PointMatch match = match_points(base.points, now.points, ignore_backend);
  if (earlier.empty()) {
    c.points = compare_points(base.points, now.points, match, options);
  } else {
    HistoryComparison history =
        compare_to_history(base.points, now.points, match, options, earlier);
    c.points = std::move(history.points);
    c.alerts = std::move(history.alerts);
  }
  if (auto note = noise_note(c)) c.notes.push_back(std::move(*note));
  for (const auto i : match.base_only) c.base_only.push_back(base.points[i].key);
  for (const auto i : match.new_only) c.new_only.push_back(now.points[i].key);
  for (const auto& point : c.points) c.point_counts.add(point.result.verdict);

  if (base.models && now.models)
    c.fits = compare_fits(*base.models, *now.models, options.threshold, ignore_backend);
  else if (base.models || now.models)
    c.notes.push_back(fmt::format("{} holds no fits (run with --no-fit?): fits not compared; "
                                  "`collbench fit` adds them",
                                  base.models ? "NEW" : "BASE"));
  for (const auto& fit : c.fits.comparisons) c.fit_counts.add(fit.verdict);
  return c;
}

Change Comparison::overall() const {
  const ChangeCounts& p = point_counts;
  if (any_slower()) return Change::slower;
  if (p.faster + fit_counts.faster > 0) return Change::faster;
  if (2 * p.same >= p.same + p.unsure + p.noisy && p.same > 0) return Change::same;
  return p.noisy > p.unsure ? Change::noisy : Change::unsure;
}

}  // namespace collbench
