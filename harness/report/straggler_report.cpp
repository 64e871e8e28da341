#include "harness/report/straggler_report.h"

#include <cmath>

#include <fmt/format.h>

namespace collbench {
namespace {

// 1200 as "1,200".
std::string grouped(std::uint64_t count) {
  const std::string digits = std::to_string(count);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

std::string lag_text(double seconds) {
  const double us = seconds * 1e6;
  if (std::abs(us) < 1e3) return fmt::format("{:.3g} us", us);
  if (std::abs(us) < 1e6) return fmt::format("{:.3g} ms", us / 1e3);
  return fmt::format("{:.3g} s", us / 1e6);
}

std::string who(const Straggler& straggler) {
  if (straggler.rank != Straggler::kHostRow)
    return fmt::format("rank {} on host {}", straggler.rank, straggler.host);
  return fmt::format("host {} ({} of {} ranks)", straggler.host,
                     std::lround(straggler.chance * straggler.ranks), straggler.ranks);
}

}  // namespace

std::vector<std::string> straggler_footer_lines(const StragglerRecord& record,
                                                const std::string& binding_warning) {
  std::vector<std::string> lines;
  for (const Straggler& s : record.named) {
    const bool ends = s.kind == StragglerKind::finishes_last;
    const double share = s.samples ? static_cast<double>(s.times_last) / s.samples : 0;
    lines.push_back(fmt::format(
        "# Straggler: {} {} last in {} of {} points (chance {:.0f}% each, p = {}) and in {:.0f}% "
        "of {} samples, {}{} {} the others at the median",
        who(s), ends ? "finished" : "started", s.points_last, s.points, 100 * s.chance,
        s.p_value > 0 ? fmt::format("{:.2g}", s.p_value) : "0 to double precision",
        100 * share, grouped(s.samples),
        s.rank == Straggler::kHostRow ? "its latest rank " : "", lag_text(s.median_lag_s),
        ends ? "behind" : "after"));
  }
  if (!lines.empty() && !binding_warning.empty())
    lines.push_back(fmt::format("# Stragglers named under the warning '{}': a rank may be last "
                                "for the scheduler's sake, not the machine's",
                                binding_warning));
  return lines;
}

nlohmann::ordered_json stragglers_json(const StragglerRecord& record) {
  nlohmann::ordered_json named = nlohmann::ordered_json::array();
  for (const Straggler& s : record.named)
    named.push_back({{"rank", s.rank},
                     {"host", s.host},
                     {"kind", name(s.kind)},
                     {"ranks", s.ranks},
                     {"points", s.points},
                     {"points_last", s.points_last},
                     {"samples", s.samples},
                     {"times_last", s.times_last},
                     {"chance", s.chance},
                     {"p_value", s.p_value},
                     {"median_lag_us", s.median_lag_s * 1e6}});
  return named;
}

}  // namespace collbench
