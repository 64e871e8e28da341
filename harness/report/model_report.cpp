#include "model_report.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "harness/plan/sizes.h"
#include "harness/plan/point_identity.h"
#include "harness/report/json_number.h"
#include "harness/report/reporter.h"

namespace collbench {
namespace {

bool flagged(const SegmentReport& segment, std::string_view parameter) {
  for (const auto& flag : segment.flags)
    if (flag.find(parameter) != std::string::npos) return true;
  return false;
}

std::string alpha_text(const SegmentReport& s) {
  return flagged(s, "alpha") ? "n/a"
                             : fmt::format("{:.3g} [{:.3g}, {:.3g}] us", s.alpha_s * 1e6,
                                           s.alpha_ci.low * 1e6, s.alpha_ci.high * 1e6);
}

// 1/beta in GB/s: the interval's ends swap under the inversion, and where beta reaches 0 (the
// time did not grow with size: one rank moves nothing) the bandwidth is unbounded, infinite here,
// "unbounded" in text and null in JSON (never a negative end: "141.7 [43.6, -255.2]").
double gbps(double beta_s_per_byte) {
  return beta_s_per_byte > 0 ? 1e-9 / beta_s_per_byte : std::numeric_limits<double>::infinity();
}

std::string gbps_text(double beta_s_per_byte) {
  const double bandwidth = gbps(beta_s_per_byte);
  return std::isinf(bandwidth) ? "unbounded" : fmt::format("{:.3g}", bandwidth);
}

std::string bandwidth_text(double beta_s_per_byte, const Interval& beta_ci) {
  return fmt::format("{} [{}, {}] GB/s", gbps_text(beta_s_per_byte), gbps_text(beta_ci.high),
                     gbps_text(beta_ci.low));
}

std::string bandwidth_text(const SegmentReport& s) {
  return flagged(s, "beta") ? "n/a" : bandwidth_text(s.beta_s_per_byte, s.beta_ci);
}

std::string half_size_text(const SegmentReport& s) {
  return s.trusted() ? fmt::format("{} [{}, {}]", bytes_text(s.half_size_bytes),
                                   bytes_text(s.half_size_ci.low), bytes_text(s.half_size_ci.high))
                     : "n/a";
}

std::string flags_text(const std::vector<std::string>& flags) {
  return flags.empty() ? "" : fmt::format("{}", fmt::join(flags, "; "));
}

std::string interval_text(double value, const Interval& ci, double scale, const char* unit) {
  return fmt::format("{:.3g} [{:.3g}, {:.3g}] {}", value * scale, ci.low * scale,
                     ci.high * scale, unit);
}

// Where n½ lies against the measured sizes, in words.
std::string half_size_words(const Headline& h, const CurveFit& curve) {
  const std::string value = fmt::format("n½ {} [{}, {}]", bytes_text(h.half_size_bytes),
                                        bytes_text(h.half_size_ci.low),
                                        bytes_text(h.half_size_ci.high));
  if (h.half_size_ci.high < static_cast<double>(curve.min_size_bytes))
    return fmt::format("{}, below the smallest size ({}): bandwidth dominates every size measured",
                       value, format_size(curve.min_size_bytes));
  if (h.half_size_ci.low > static_cast<double>(curve.max_size_bytes))
    return fmt::format("{}, beyond the largest size ({}): latency dominates every size measured",
                       value, format_size(curve.max_size_bytes));
  return value + ": latency dominates below it";
}

// Where the bootstrap's betas reach 0 the bandwidth and n½ have no upper end; the line says
// why once, in words.
bool unbounded(const Headline& h) { return !(h.beta_s_per_byte > 0 && h.beta_ci.low > 0); }

constexpr const char* kUnboundedWhy =
    "unbounded: in at least 2.5% of the bootstrap replicates the large-message time did not grow "
    "with size (beta <= 0), which leaves the bandwidth and n½ no upper end";

std::string crossover_line(const CrossoverReport& crossover) {
  const auto& family = crossover.family;
  const Interval& ci = crossover.crossover_ranks_ci;
  return fmt::format(
      "# crossover {}: ring alpha {:.3g} us, 1/beta {} GB/s; p*({}) = {}{}{}",
      curve_text(crossover.key), family.alpha_s * 1e6, gbps_text(family.beta_s_per_byte),
      bytes_text(crossover.size_bytes),
      crossover.crossover_ranks
          ? fmt::format("{:.0f} ranks{}", *crossover.crossover_ranks, ranks_interval_text(ci))
          : "n/a (alpha <= 0)",
      crossover.extrapolated()
          ? fmt::format(" (extrapolated: measured up to {})", crossover.max_ranks_measured)
          : "",
      std::isinf(ci.high) && std::isfinite(ci.low)
          ? "; unbounded: in at least 2.5% of the bootstrap replicates the ring family had no "
            "latency term (alpha 0), which puts p* beyond every rank count"
          : "");
}

}  // namespace

std::string bytes_text(double bytes) {
  if (std::isinf(bytes)) return "unbounded";
  return bytes >= 1 ? format_size(static_cast<std::size_t>(std::llround(bytes)))
                    : fmt::format("{:.2g} B", bytes);
}

std::string ranks_interval_text(const Interval& ci) {
  if (std::isnan(ci.low)) return "";
  if (std::isinf(ci.low)) return " [no latency term in most replicates]";
  return std::isinf(ci.high) ? fmt::format(" [{:.0f}, unbounded]", ci.low)
                             : fmt::format(" [{:.0f}, {:.0f}]", ci.low, ci.high);
}

std::string headline_text(const CurveFit& curve) {
  if (curve.segments.empty()) return "not fitted: " + flags_text(curve.flags);
  if (!curve.headline) return "no headline (fitted before schema 5: run `collbench fit` again)";
  const Headline& h = *curve.headline;
  const bool latency = !curve.segments.front().alpha_at_bound;
  std::vector<std::string> parts;
  parts.push_back(latency ? half_size_words(h, curve)
                          : "no latency term: bandwidth-bound from the smallest size");
  if (latency) parts.push_back("alpha " + interval_text(h.alpha_s, h.alpha_ci, 1e6, "us"));
  parts.push_back(fmt::format("bandwidth {}{}", bandwidth_text(h.beta_s_per_byte, h.beta_ci),
                              curve.segments.size() > 1
                                  ? " from " + format_size(curve.segments.back().min_size_bytes)
                                  : ""));
  if (h.bandwidth_falls_at_bytes)
    parts.push_back(fmt::format("bandwidth falls from {:.3g} GB/s above {}",
                                1e-9 / h.peak_beta_s_per_byte,
                                format_size(h.bandwidth_falls_at_bytes)));
  parts.push_back(fmt::format("misfit {:.1f}%", 100 * h.misfit));
  if (unbounded(h)) parts.push_back(kUnboundedWhy);
  std::string text = fmt::format("{}", fmt::join(parts, "; "));
  if (!h.trusted()) text += fmt::format(" (untrusted: {})", flags_text(h.flags));
  return text;
}

void print_model_table(std::ostream& out, const ModelReport& report, bool segments) {
  for (const auto& curve : report.curves) {
    fmt::print(out, "# {}\n  {}\n", curve_text(curve.key), headline_text(curve));
    if (curve.holdout_median_rel_error)
      fmt::print(out, "  held-out sizes: median relative error {:.1f}%\n",
                 100 * *curve.holdout_median_rel_error);
    if (!segments || curve.segments.empty()) continue;
    fmt::print(out, "  {:<22} {:>26} {:>26} {:>30} {:>10} {:>7}  {}\n", "sizes",
               "alpha [95% CI]", "1/beta [95% CI]", "n½ [95% CI]", "9·n½",
               "rms err", "flags");
    for (const auto& s : curve.segments)
      fmt::print(out, "  {:<22} {:>26} {:>26} {:>30} {:>10} {:>6.1f}%  {}\n",
                 fmt::format("{} – {}", format_size(s.min_size_bytes), format_size(s.max_size_bytes)),
                 alpha_text(s), bandwidth_text(s), half_size_text(s),
                 s.trusted() ? bytes_text(9 * s.half_size_bytes) : "n/a", 100 * s.rms_rel_error,
                 flags_text(s.flags));
  }
  for (const auto& crossover : report.crossovers) fmt::print(out, "{}\n", crossover_line(crossover));
}

std::vector<std::string> model_footer_lines(const ModelReport& report) {
  std::vector<std::string> lines;
  for (const auto& curve : report.curves)
    lines.push_back(fmt::format("# fit {}: {}", curve_text(curve.key), headline_text(curve)));
  for (const auto& crossover : report.crossovers) lines.push_back(crossover_line(crossover));
  return lines;
}

nlohmann::ordered_json model_json(const ModelReport& report) {
  // An unbounded end (an n½ whose betas reached 0) is null, as JSON has no infinity.
  const auto interval = [](const Interval& i) {
    return nlohmann::ordered_json::array({finite_or_null(i.low), finite_or_null(i.high)});
  };
  nlohmann::ordered_json json;
  json["curves"] = nlohmann::ordered_json::array();
  for (const auto& curve : report.curves) {
    auto entry = key_json(curve.key, false);
    entry["sizes"] = curve.sizes;
    entry["flags"] = curve.flags;
    if (curve.holdout_median_rel_error) entry["holdout_median_rel_error"] = *curve.holdout_median_rel_error;
    if (curve.headline) {
      const Headline& h = *curve.headline;
      const bool falls = h.bandwidth_falls_at_bytes != 0;
      entry["headline"] = {
          {"text", headline_text(curve)},
          {"half_size_bytes", finite_or_null(h.half_size_bytes)},
          {"half_size_ci_bytes", interval(h.half_size_ci)},
          {"half_size_position", h.half_size_ci.high < double(curve.min_size_bytes)  ? "below"
                                 : h.half_size_ci.low > double(curve.max_size_bytes) ? "beyond"
                                                                                     : "inside"},
          {"alpha_us", h.alpha_s * 1e6},
          {"alpha_ci_us", interval({h.alpha_ci.low * 1e6, h.alpha_ci.high * 1e6})},
          {"beta_ns_per_byte", h.beta_s_per_byte * 1e9},
          {"beta_ci_ns_per_byte", interval({h.beta_ci.low * 1e9, h.beta_ci.high * 1e9})},
          {"bandwidth_GBps", finite_or_null(gbps(h.beta_s_per_byte))},
          {"misfit_median_rel_error", h.misfit},
          {"bandwidth_falls_at_bytes",
           falls ? nlohmann::ordered_json(h.bandwidth_falls_at_bytes) : nullptr},
          {"peak_bandwidth_GBps", falls ? finite_or_null(gbps(h.peak_beta_s_per_byte)) : nullptr},
          {"trusted", h.trusted()},
          {"flags", h.flags}};
    }
    entry["segments"] = nlohmann::ordered_json::array();
    for (const auto& s : curve.segments)
      entry["segments"].push_back(
          {{"min_size_bytes", s.min_size_bytes},
           {"max_size_bytes", s.max_size_bytes},
           {"sizes", s.sizes},
           {"alpha_us", s.alpha_s * 1e6},
           {"alpha_at_bound", s.alpha_at_bound},
           {"alpha_ci_us", interval({s.alpha_ci.low * 1e6, s.alpha_ci.high * 1e6})},
           {"beta_ns_per_byte", s.beta_s_per_byte * 1e9},
           {"beta_ci_ns_per_byte", interval({s.beta_ci.low * 1e9, s.beta_ci.high * 1e9})},
           {"bandwidth_GBps", finite_or_null(gbps(s.beta_s_per_byte))},
           {"half_size_bytes", finite_or_null(s.half_size_bytes)},
           {"half_size_ci_bytes", interval(s.half_size_ci)},
           {"n90_bytes", finite_or_null(9 * s.half_size_bytes)},
           {"rms_rel_error", s.rms_rel_error},
           {"max_rel_error", s.max_rel_error},
           {"trusted", s.trusted()},
           {"flags", s.flags}});
    json["curves"].push_back(entry);
  }
  json["crossovers"] = nlohmann::ordered_json::array();
  for (const auto& c : report.crossovers) {
    auto entry = key_json(c.key, false);
    entry["family"] = c.family.family.name;
    entry["alpha_us"] = c.family.alpha_s * 1e6;
    entry["beta_ns_per_byte"] = c.family.beta_s_per_byte * 1e9;
    entry["size_bytes"] = c.size_bytes;
    entry["crossover_ranks"] = c.crossover_ranks ? nlohmann::ordered_json(*c.crossover_ranks) : nullptr;
    // An unbounded end (replicates without a latency term) is null, as JSON has no infinity.
    entry["crossover_ranks_ci"] = nlohmann::ordered_json::array(
        {finite_or_null(c.crossover_ranks_ci.low), finite_or_null(c.crossover_ranks_ci.high)});
    entry["max_ranks_measured"] = c.max_ranks_measured;
    entry["extrapolated"] = c.extrapolated();
    json["crossovers"].push_back(entry);
  }
  json["families"] = nlohmann::ordered_json::array();
  for (const auto& f : report.families) {
    auto entry = key_json(f.key, false);
    entry["rank_counts"] = f.rank_counts;
    entry["fits"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < f.families.size(); ++i)
      entry["fits"].push_back({{"family", f.families[i].family.name},
                               {"chosen", i == 0},
                               {"alpha_us", f.families[i].alpha_s * 1e6},
                               {"beta_ns_per_byte", f.families[i].beta_s_per_byte * 1e9},
                               {"rms_rel_error", f.families[i].rms_rel_error},
                               {"bic", f.families[i].bic},
                               {"held_out_rel_error", finite_or_null(f.families[i].held_out_rel_error)}});
    json["families"].push_back(entry);
  }
  return json;
}

}  // namespace collbench
