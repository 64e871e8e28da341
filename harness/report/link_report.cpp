#include "harness/report/link_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include "harness/plan/point.h"

namespace collbench {
namespace {

constexpr int kHostWidth = 14;

std::string bandwidth_cell(double gbps) { return gbps > 0 ? fmt::format("{:.3f}", gbps) : "-"; }

// Fitted bandwidth by host pair, the hosts in the order they first appear.
std::string bandwidth_matrix(const LinkAnalysis& analysis, bool by_rank) {
  if (by_rank) return "";
  std::vector<std::string> hosts;
  std::map<std::pair<std::string, std::string>, double> speed;
  for (const LinkFit& fit : analysis.fits) {
    if (fit.kind != LinkKind::inter) continue;
    for (const std::string& host : {fit.first_host, fit.second_host})
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
    speed[{fit.first_host, fit.second_host}] = speed[{fit.second_host, fit.first_host}] =
        fit.bandwidth_GBps;
  }
  if (hosts.size() < 2) return "";
  std::string text = "# Bandwidth between hosts (GB/s, the slower direction at the largest size)\n#" + std::string(kHostWidth, ' ');
  for (const std::string& host : hosts) text += fmt::format(" {:>{}}", host, kHostWidth);
  text += '\n';
  for (const std::string& row : hosts) {
    text += fmt::format("# {:<{}}", row, kHostWidth - 1);
    for (const std::string& column : hosts) {
      const auto found = speed.find({row, column});
      text += fmt::format(" {:>{}}", found == speed.end() ? "-" : bandwidth_cell(found->second),
                          kHostWidth);
    }
    text += '\n';
  }
  return text;
}

}  // namespace

std::string link_points_header() {
  return fmt::format("# {:>{}} {:>{}}  {:<5} {:<24} {:<13} {:>10} {:>12} {:>12} {:>9} {:>7}  {}\n",
                     "source", kHostWidth, "destination", kHostWidth, "kind", "transport", "mode",
                     "size", "time(us)", "p99(us)", "GB/s", "samples", "stop");
}

std::string link_point_row(const LinkPoint& point) {
  constexpr double us = kMicrosecondsPerSecond;
  return fmt::format("  {:>{}} {:>{}}  {:<5} {:<24} {:<13} {:>10} {:>12.2f} {:>12.2f} {:>9.3f} {:>7}  {}\n",
                     point.source_host, kHostWidth, point.destination_host, kHostWidth,
                     name(point.kind), point.transport, name(point.mode), point.size_bytes,
                     point.summary.median * us, point.summary.p99 * us, point.bandwidth_GBps(),
                     point.summary.samples, name(point.stop_reason));
}

std::string link_record_json(const LinkRecord& record) {
  constexpr double us = kMicrosecondsPerSecond;
  nlohmann::ordered_json json;
  json["links"] = nlohmann::json::array();
  for (const LinkPoint& point : record.points)
    json["links"].push_back(nlohmann::ordered_json{
        {"source_rank", point.source_rank}, {"destination_rank", point.destination_rank},
        {"source_host", point.source_host}, {"destination_host", point.destination_host},
        {"kind", name(point.kind)}, {"transport", point.transport}, {"mode", name(point.mode)},
        {"size_bytes", point.size_bytes}, {"messages_per_sample", point.messages_per_sample},
        {"samples", point.summary.samples}, {"time_median_us", point.summary.median * us},
        {"time_p99_us", point.summary.p99 * us}, {"bandwidth_GBps", point.bandwidth_GBps()},
        {"stop_reason", name(point.stop_reason)}});
  json["fits"] = nlohmann::json::array();
  json["slow_hosts"] = nlohmann::json::array();
  if (record.analysis) {
    for (const LinkFit& fit : record.analysis->fits)
      json["fits"].push_back(nlohmann::ordered_json{
          {"first_rank", fit.first_rank}, {"second_rank", fit.second_rank},
          {"first_host", fit.first_host}, {"second_host", fit.second_host},
          {"kind", name(fit.kind)}, {"transport", fit.transport}, {"alpha_us", fit.alpha_us},
          {"bandwidth_GBps", fit.bandwidth_GBps}, {"forward_GBps", fit.forward_GBps},
          {"backward_GBps", fit.backward_GBps}, {"bidirectional_GBps", fit.bidirectional_GBps},
          {"alpha_bytes", fit.alpha_bytes}, {"largest_bytes", fit.largest_bytes},
          {"slow", fit.slow}});
    for (const SlowHost& host : record.analysis->slow_hosts)
      json["slow_hosts"].push_back(nlohmann::ordered_json{{"name", host.name},
                                                          {"kind", name(host.kind)},
                                                          {"typical_GBps", host.typical_GBps},
                                                          {"median_GBps", host.median_GBps}});
    json["shortfall"] = record.shortfall;
  }
  return json.dump(2) + "\n";
}

std::string link_summary(const LinkAnalysis& analysis, double shortfall) {
  const bool by_rank = named_by_rank(analysis.fits);
  std::string text =
      "# Links: T(n) = alpha + n / bandwidth, one way; alpha the smallest latency over the sizes, "
      "the bandwidth the slower direction's at the largest\n";
  text += fmt::format("# {:<34} {:<5} {:>10} {:>8} {:>9} {:>9} {:>9} {:>10}\n", "link", "kind",
                      "alpha(us)", "GB/s", "-> GB/s", "<- GB/s", "<-> GB/s", "at size");
  for (const LinkFit& fit : analysis.fits)
    text += fmt::format("  {:<34} {:<5} {:>10.2f} {:>8.3f} {:>9} {:>9} {:>9} {:>10}{}\n",
                        pair_label(fit, by_rank), name(fit.kind), fit.alpha_us,
                        fit.bandwidth_GBps, bandwidth_cell(fit.forward_GBps),
                        bandwidth_cell(fit.backward_GBps), bandwidth_cell(fit.bidirectional_GBps),
                        fit.largest_bytes, fit.slow ? "  SLOW" : "");
  text += bandwidth_matrix(analysis, by_rank);
  const int percent = static_cast<int>(shortfall * 100 + 0.5);
  for (const SlowHost& host : analysis.slow_hosts)
    text += fmt::format(
        "# Slow host: {} ({}): its links' median {:.3f} GB/s, the median host's {:.3f} GB/s "
        "(more than {}% below)\n",
        host.name, name(host.kind), host.typical_GBps, host.median_GBps, percent);
  for (const LinkFit& fit : analysis.fits)
    if (fit.slow)
      text += fmt::format("# Slow link: {} ({}): {:.3f} GB/s (more than {}% below its "
                          "hosts' typical link)\n",
                          pair_label(fit, by_rank), name(fit.kind), fit.bandwidth_GBps, percent);
  const bool any_slow = !analysis.slow_hosts.empty() ||
                        std::any_of(analysis.fits.begin(), analysis.fits.end(),
                                    [](const LinkFit& fit) { return fit.slow; });
  if (!any_slow)
    text += fmt::format("# No slow link or host: none more than {}% below its peers\n", percent);
  return text;
}

}  // namespace collbench
