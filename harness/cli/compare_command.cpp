#include "compare_command.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/usage_error.h"
#include "harness/compare/compare_fits.h"
#include "harness/compare/compare_points.h"
#include "harness/plan/sizes.h"
#include "harness/report/verdict_files.h"
#include "harness/store/result_file.h"

namespace collbench {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kPromPrefix = "collbench_compare";
constexpr const char* kJunitSuite = "collbench compare";

double parse_threshold(std::string text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw UsageError(fmt::format("--threshold: '{}' is not a number (write 5% or 0.05)",
                                 text + (percent ? "%" : "")));
  if (!percent && value > 1)
    throw UsageError(fmt::format("--threshold: {} is ambiguous: write {}% for a percentage, or a "
                                 "fraction such as 0.05",
                                 text, text));
  const double fraction = percent ? value / 100 : value;
  if (!(fraction > 0) || fraction > 10)
    throw UsageError(fmt::format("--threshold: {} must be above 0% and at most 1000%",
                                 text + (percent ? "%" : "")));
  return fraction;
}

void check_output_path(const std::string& option, const std::string& file) {
  if (file.empty()) return;
  const std::filesystem::path path(file);
  const std::filesystem::path parent =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(parent, error))
    throw UsageError(fmt::format("{} {}: no such directory {}", option, file, parent.string()));
  if (std::filesystem::is_directory(path, error))
    throw UsageError(fmt::format("{} {}: is a directory", option, file));
}

CompareOptions compare_options(const CompareCommandOptions& o) {
  if (o.format != "table" && o.format != "json")
    throw UsageError(fmt::format("--format: unknown format '{}' (table or json)", o.format));
  if (!(o.confidence >= 0.5 && o.confidence < 1))
    throw UsageError(fmt::format("--confidence: {} must be at least 0.5 and below 1", o.confidence));
  if (o.bootstrap_replicates < 100)
    throw UsageError("--bootstrap must be at least 100 replicates");
  check_output_path("--junit", o.junit);
  check_output_path("--prom", o.prom);
  CompareOptions options;
  options.threshold = parse_threshold(o.threshold);
  options.confidence = o.confidence;
  options.replicates = o.bootstrap_replicates;
  options.seed = o.seed;
  return options;
}

std::set<std::string> backends_of(const ResultFile& file) {
  std::set<std::string> backends;
  for (const auto& point : file.points) backends.insert(point.key.backend);
  return backends;
}

std::string tuning_text(const PointKey& key) {
  if (key.algorithm.empty() && key.protocol.empty()) return "";
  return fmt::format(" {}/{}", key.algorithm.empty() ? "auto" : key.algorithm,
                     key.protocol.empty() ? "auto" : key.protocol);
}

// "allreduce float sum world 2 ranks bandwidth" (+ " in place", + a pinned tuning).
std::string curve_text(const PointKey& key) {
  return fmt::format("{} {} {} {} {} ranks {}{}{}", name(key.collective), name(key.datatype),
                     redop_label(key), key.placement, key.nranks, name(key.mode),
                     key.in_place ? " in place" : "", tuning_text(key));
}

std::string point_text(const PointKey& key) {
  return fmt::format("{} {}", curve_text(key), format_size(key.size_bytes));
}

std::string ratio_text(double ratio, const Interval& ci) {
  const std::string value = std::isfinite(ratio) ? fmt::format("{:.3f}", ratio) : "n/a";
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return value;
  return fmt::format("{} [{:.3f}, {:.3f}]", value, ci.low, ci.high);
}

std::string us_text(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.2f}", seconds * 1e6) : "n/a";
}

// alpha in us, beta as bandwidth in GB/s (its interval's ends swap under the inversion).
std::string fit_value_text(FitParameter parameter, const FitSide& side) {
  if (!(side.value > 0)) return "n/a";
  if (parameter == FitParameter::alpha)
    return fmt::format("alpha {:.3g} [{:.3g}, {:.3g}] us", side.value * 1e6, side.ci.low * 1e6,
                       side.ci.high * 1e6);
  return fmt::format("1/beta {:.3g} [{:.3g}, {:.3g}] GB/s", 1e-9 / side.value,
                     side.ci.high > 0 ? 1e-9 / side.ci.high : NAN,
                     side.ci.low > 0 ? 1e-9 / side.ci.low : NAN);
}

std::vector<std::pair<std::string, std::string>> key_labels(const PointKey& key) {
  return {{"backend", key.backend},
          {"collective", std::string(name(key.collective))},
          {"datatype", std::string(name(key.datatype))},
          {"redop", std::string(redop_label(key))},
          {"placement", key.placement},
          {"algorithm", key.algorithm},
          {"protocol", key.protocol},
          {"nranks", std::to_string(key.nranks)},
          {"mode", std::string(name(key.mode))},
          {"in_place", key.in_place ? "1" : "0"}};
}

Json key_json(const PointKey& key, bool with_size) {
  Json json;
  json["backend"] = key.backend;
  json["collective"] = name(key.collective);
  json["datatype"] = name(key.datatype);
  json["redop"] = redop_label(key);
  json["placement"] = key.placement;
  json["algorithm"] = key.algorithm;
  json["protocol"] = key.protocol;
  json["nranks"] = key.nranks;
  json["mode"] = name(key.mode);
  json["in_place"] = key.in_place;
  if (with_size) json["size_bytes"] = key.size_bytes;
  return json;
}

Json number_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json interval_json(const Interval& ci) {
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return nullptr;
  return Json::array({ci.low, ci.high});
}

struct Counts {
  std::size_t same = 0, faster = 0, slower = 0, unsure = 0;
  void add(Change v) {
    (v == Change::same ? same : v == Change::faster ? faster : v == Change::slower ? slower
                                                                                      : unsure)++;
  }
  std::size_t total() const { return same + faster + slower + unsure; }
  std::string text() const {
    return fmt::format("{} same, {} faster, {} slower, {} unsure", same, faster, slower, unsure);
  }
  Json json() const {
    return Json{{"same", same}, {"faster", faster}, {"slower", slower}, {"unsure", unsure}};
  }
};

struct Comparison {
  std::string base_file, new_file;
  CompareOptions options;
  std::vector<std::string> notes;
  std::vector<PointComparison> points;
  FitComparisons fits;
  std::vector<PointKey> base_only, new_only;  // points
  Counts point_counts, fit_counts;
  bool any_slower() const { return point_counts.slower + fit_counts.slower > 0; }
};

std::string interval_rule(const CompareOptions& o) {
  return fmt::format("threshold {:g}%: SLOWER when the whole {:g}% interval of NEW/BASE lies above "
                     "{:.4g}, FASTER below {:.4g}, SAME inside [{:.4g}, {:.4g}], else UNSURE",
                     o.threshold * 100, o.confidence * 100, 1 + o.threshold, 1 / (1 + o.threshold),
                     1 / (1 + o.threshold), 1 + o.threshold);
}

Comparison compare_files(const CompareCommandOptions& command, const CompareOptions& options) {
  const ResultFile base = read_result_file(command.base_file, true);
  const ResultFile now = read_result_file(command.new_file, true);
  Comparison c;
  c.base_file = command.base_file;
  c.new_file = command.new_file;
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
  c.points = compare_points(base.points, now.points, match, options);
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

std::string summary_line(const Comparison& c) {
  return fmt::format("# compare: {} points: {}; {} unmatched", c.points.size(),
                     c.point_counts.text(), c.base_only.size() + c.new_only.size());
}

std::string fit_summary_line(const Comparison& c) {
  return fmt::format("# compare: {} fit parameters: {}; {} unmatched curves",
                     c.fits.comparisons.size(), c.fit_counts.text(),
                     c.fits.base_only.size() + c.fits.new_only.size());
}

void print_table(std::ostream& out, const Comparison& c) {
  out << fmt::format("# collbench compare: BASE {} vs NEW {}\n", c.base_file, c.new_file);
  out << fmt::format("# {}; ratio = NEW/BASE median time (the slowest rank's per sample), "
                     "{} bootstrap replicates, seed {}\n",
                     interval_rule(c.options), c.options.replicates, c.options.seed);
  for (const auto& note : c.notes) out << fmt::format("# note: {}\n", note);
  const std::string ci_head = fmt::format("ratio [{:g}% CI]", c.options.confidence * 100);
  out << fmt::format("# {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>12} {:>12}  {:<25} {}\n",
                     "collective", "placement", "ranks", "type", "redop", "mode", "inplace",
                     "size(B)", "base(us)", "new(us)", ci_head, "verdict");
  for (const auto& point : c.points) {
    const PointKey& k = point.key;
    const RatioResult& r = point.result;
    std::string line = fmt::format(
        "  {:<14} {:<9} {:>5} {:<8} {:<5} {:<9} {:<8} {:>10} {:>12} {:>12}  {:<25} {}",
        name(k.collective), k.placement, k.nranks, name(k.datatype), redop_label(k), name(k.mode),
        k.in_place ? "yes" : "no", k.size_bytes, us_text(r.base_median_s), us_text(r.new_median_s),
        ratio_text(r.ratio, r.ratio_ci), name(r.verdict));
    if (!k.algorithm.empty() || !k.protocol.empty()) line += " |" + tuning_text(k);
    if (!r.reason.empty()) line += " | " + r.reason;
    out << line << '\n';
  }
  for (const auto& fit : c.fits.comparisons) {
    std::string line = fmt::format(
        "# fit {} | {} ({}-{}): {} -> {} | ratio {} {}", curve_text(fit.key), name(fit.parameter),
        format_size(fit.base.min_size_bytes), format_size(fit.base.max_size_bytes),
        fit_value_text(fit.parameter, fit.base), fit_value_text(fit.parameter, fit.now),
        ratio_text(fit.ratio, fit.ratio_ci), name(fit.verdict));
    if (!fit.reason.empty()) line += " | " + fit.reason;
    out << line << '\n';
  }
  for (const auto& key : c.base_only) out << fmt::format("# unmatched: only in BASE: {}\n", point_text(key));
  for (const auto& key : c.new_only) out << fmt::format("# unmatched: only in NEW: {}\n", point_text(key));
  for (const auto& key : c.fits.base_only)
    out << fmt::format("# unmatched: fit only in BASE: {}\n", curve_text(key));
  for (const auto& key : c.fits.new_only)
    out << fmt::format("# unmatched: fit only in NEW: {}\n", curve_text(key));
  if (!c.fits.comparisons.empty() || !c.fits.base_only.empty() || !c.fits.new_only.empty())
    out << fit_summary_line(c) << '\n';
  out << summary_line(c) << '\n';
}

Json fit_side_json(const FitSide& side) {
  return Json{{"value", number_or_null(side.value)},
              {"ci", interval_json(side.ci)},
              {"min_size_bytes", side.min_size_bytes},
              {"max_size_bytes", side.max_size_bytes},
              {"trusted", side.trusted}};
}

Json comparison_json(const Comparison& c) {
  Json json;
  json["base"] = c.base_file;
  json["new"] = c.new_file;
  json["threshold"] = c.options.threshold;
  json["confidence"] = c.options.confidence;
  json["bootstrap_replicates"] = c.options.replicates;
  json["seed"] = c.options.seed;
  json["notes"] = c.notes;
  Json points = Json::array();
  for (const auto& point : c.points) {
    const RatioResult& r = point.result;
    Json row = key_json(point.key, true);
    row["base_samples"] = r.base_samples;
    row["new_samples"] = r.new_samples;
    row["base_median_us"] = number_or_null(r.base_median_s * 1e6);
    row["new_median_us"] = number_or_null(r.new_median_s * 1e6);
    row["ratio"] = number_or_null(r.ratio);
    row["ratio_ci"] = interval_json(r.ratio_ci);
    row["verdict"] = name(r.verdict);
    row["reason"] = r.reason;
    points.push_back(std::move(row));
  }
  json["points"] = std::move(points);
  Json fits = Json::array();
  for (const auto& fit : c.fits.comparisons) {
    Json row = key_json(fit.key, false);
    row["parameter"] = name(fit.parameter);
    row["units"] = fit.parameter == FitParameter::alpha ? "s" : "s/B";
    row["base"] = fit_side_json(fit.base);
    row["new"] = fit_side_json(fit.now);
    row["ratio"] = number_or_null(fit.ratio);
    row["ratio_ci"] = interval_json(fit.ratio_ci);
    row["verdict"] = name(fit.verdict);
    row["reason"] = fit.reason;
    fits.push_back(std::move(row));
  }
  json["fits"] = std::move(fits);
  Json unmatched = Json::array();
  const auto add_unmatched = [&](const std::vector<PointKey>& keys, const char* side,
                                 const char* kind) {
    for (const auto& key : keys) {
      Json row{{"side", side}, {"kind", kind}};
      row.update(key_json(key, std::string_view(kind) == "point"));
      unmatched.push_back(std::move(row));
    }
  };
  add_unmatched(c.base_only, "base", "point");
  add_unmatched(c.new_only, "new", "point");
  add_unmatched(c.fits.base_only, "base", "fit");
  add_unmatched(c.fits.new_only, "new", "fit");
  json["unmatched"] = std::move(unmatched);
  Json summary;
  summary["points"] = c.points.size();
  summary.update(c.point_counts.json());
  summary["unmatched"] = c.base_only.size() + c.new_only.size();
  summary["fits"] = c.fits.comparisons.size();
  summary["fit_verdicts"] = c.fit_counts.json();
  summary["unmatched_fits"] = c.fits.base_only.size() + c.fits.new_only.size();
  summary["slower"] = c.point_counts.slower + c.fit_counts.slower;
  json["summary"] = std::move(summary);
  return json;
}

std::vector<VerdictRecord> verdict_records(const Comparison& c) {
  std::vector<VerdictRecord> records;
  const std::string against = fmt::format("threshold {:g}%, {:g}% interval", c.options.threshold * 100,
                                          c.options.confidence * 100);
  for (const auto& point : c.points) {
    const RatioResult& r = point.result;
    VerdictRecord record;
    record.name = point_text(point.key);
    record.verdict = name(r.verdict);
    record.severity = severity(r.verdict);
    record.message = fmt::format("NEW/BASE median time {} ({} us -> {} us; {} and {} samples); {}{}",
                                 ratio_text(r.ratio, r.ratio_ci), us_text(r.base_median_s),
                                 us_text(r.new_median_s), r.base_samples, r.new_samples, against,
                                 r.reason.empty() ? "" : "; " + r.reason);
    record.value = r.ratio;
    record.labels = key_labels(point.key);
    record.labels.insert(record.labels.begin(), {"kind", "point"});
    record.labels.emplace_back("size_bytes", std::to_string(point.key.size_bytes));
    records.push_back(std::move(record));
  }
  for (const auto& fit : c.fits.comparisons) {
    VerdictRecord record;
    record.name = fmt::format("fit {} {}", curve_text(fit.key), name(fit.parameter));
    record.verdict = name(fit.verdict);
    record.severity = severity(fit.verdict);
    record.message = fmt::format("NEW/BASE {} {} ({} -> {}); {}{}", name(fit.parameter),
                                 ratio_text(fit.ratio, fit.ratio_ci),
                                 fit_value_text(fit.parameter, fit.base),
                                 fit_value_text(fit.parameter, fit.now), against,
                                 fit.reason.empty() ? "" : "; " + fit.reason);
    record.value = fit.ratio;
    record.labels = key_labels(fit.key);
    record.labels.insert(record.labels.begin(), {"kind", "fit"});
    record.labels.emplace_back("parameter", std::string(name(fit.parameter)));
    records.push_back(std::move(record));
  }
  return records;
}

void write_verdict_files(const CompareCommandOptions& o, const Comparison& c) {
  if (o.junit.empty() && o.prom.empty()) return;
  const std::vector<VerdictRecord> records = verdict_records(c);
  try {
    if (!o.junit.empty()) write_junit(o.junit, kJunitSuite, records);
    if (!o.prom.empty()) write_prometheus(o.prom, kPromPrefix, records);
  } catch (const std::runtime_error& error) {
    std::error_code ignored;
    if (!o.junit.empty()) std::filesystem::remove(o.junit, ignored);
    throw UsageError(error.what());
  }
}

}  // namespace

void add_compare_options(CLI::App& command, CompareCommandOptions& o) {
  command.add_option("base", o.base_file, "the baseline result file (.h5)")->required();
  command.add_option("new", o.new_file, "the result file to judge against it (.h5)")->required();
  command.add_option("--threshold", o.threshold,
                     "smallest change that counts: 5% (or 0.05) slower, or 1/1.05 as fast")
      ->capture_default_str();
  command.add_option("--confidence", o.confidence, "level of the bootstrap interval of the ratio")
      ->capture_default_str();
  command.add_option("--bootstrap", o.bootstrap_replicates, "bootstrap replicates per point")
      ->capture_default_str();
  command.add_option("--seed", o.seed, "bootstrap seed (same seed, same intervals)")
      ->capture_default_str();
  command.add_option("--format", o.format, "table or json")->capture_default_str();
  command.add_option("--junit", o.junit, "also write the verdicts as JUnit XML to this file");
  command.add_option("--prom", o.prom,
                     "also write them in the Prometheus text format to this file (atomically)");
}

int compare_command(const CompareCommandOptions& command) {
  try {
    const CompareOptions options = compare_options(command);
    const Comparison comparison = compare_files(command, options);
    write_verdict_files(command, comparison);
    if (command.format == "json")
      std::cout << comparison_json(comparison).dump(2) << '\n';
    else
      print_table(std::cout, comparison);
    std::cout.flush();
    return comparison.any_slower() ? kExitWrongOrFailed : kExitOk;
  } catch (const UsageError& error) {
    fmt::print(stderr, "collbench compare: {}\n", error.what());
  } catch (const InvalidResultFile& error) {
    fmt::print(stderr, "collbench compare: {}\n", error.what());
  }
  return kExitUsage;
}

}  // namespace collbench
