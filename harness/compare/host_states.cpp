#include "harness/compare/host_states.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/stats/summary.h"

namespace collbench {
namespace {

// The expected range of two and of three draws of a normal distribution, in standard deviations
// (a run of one curve has no middle moment).
double expected_range(std::size_t draws) { return draws == 2 ? 1.128 : 1.693; }

std::map<std::size_t, std::vector<double>> logs_by_size(const HostProbe& probe) {
  std::map<std::size_t, std::vector<double>> by_size;
  for (const ProbeReading& reading : probe.readings)
    if (reading.copy_GBps > 0) by_size[reading.size_bytes].push_back(std::log(reading.copy_GBps));
  return by_size;
}

// Per size, the median of the launch's moments, as a log copy rate.
std::map<std::size_t, double> signature(const HostProbe& probe) {
  std::map<std::size_t, double> medians;
  for (const auto& [bytes, logs] : logs_by_size(probe)) medians[bytes] = summarize(logs).median;
  return medians;
}

bool has_probe(const HostProbe& probe) { return !probe.readings.empty(); }

}  // namespace

std::size_t HostStateMatch::matched() const {
  return static_cast<std::size_t>(std::ranges::count(state_of, 0u));
}

std::string HostStateMatch::host_changed() const {
  if (!base_in_state) return "host state changed: BASE's probe does not agree with NEW's";
  if (!changed()) return "";
  return fmt::format("host state not in the history: tonight's probe agrees with {} of its {} "
                     "probed launches, and a verdict needs 2",
                     matched(), launches() - unprobed);
}

std::string_view host_state_status(const HostStateMatch& match) {
  if (match.changed()) return "host_changed";
  return match.probed ? "matched" : "no probe";
}

std::map<std::size_t, double> state_tolerances(std::span<const HostProbe> probes) {
  std::map<std::size_t, std::vector<double>> noise;  // per size, each launch's range in sds
  for (const HostProbe& probe : probes)
    for (const auto& [bytes, logs] : logs_by_size(probe))
      if (logs.size() == 2 || logs.size() == 3)
        noise[bytes].push_back((std::ranges::max(logs) - std::ranges::min(logs)) /
                               expected_range(logs.size()));
  std::map<std::size_t, double> tolerances;
  for (auto& [bytes, sds] : noise)
    tolerances[bytes] = std::max(kStateFloor, kStateSpreads * summarize(sds).median);
  return tolerances;
}

bool same_state(const HostProbe& a, const HostProbe& b,
                const std::map<std::size_t, double>& tolerances) {
  const auto first = signature(a), second = signature(b);
  bool shared = false;
  for (const auto& [bytes, log_rate] : first) {
    const auto other = second.find(bytes);
    if (other == second.end()) continue;
    shared = true;
    const auto tolerance = tolerances.find(bytes);
    const double allowed = tolerance == tolerances.end() ? kStateFloor : tolerance->second;
    if (std::abs(log_rate - other->second) > allowed) return false;
  }
  return shared;
}

HostStateMatch match_host_state(std::span<const HostProbe> history, const HostProbe& tonight,
                                const HostProbe& base) {
  HostStateMatch match;
  match.state_of.assign(history.size(), 0);
  match.probed = has_probe(tonight) && std::ranges::any_of(history, has_probe);
  if (!has_probe(tonight)) return match;
  std::vector<HostProbe> compared(history.begin(), history.end());
  compared.push_back(tonight);
  if (has_probe(base)) compared.push_back(base);
  const auto tolerances = state_tolerances(compared);
  if (has_probe(base)) match.base_in_state = same_state(base, tonight, tolerances);
  if (!match.probed) return match;
  std::vector<const HostProbe*> firsts{&tonight};  // each state's first launch
  for (std::size_t k = 0; k < history.size(); ++k) {
    if (!has_probe(history[k])) ++match.unprobed;
    std::size_t state = 0;
    while (state < firsts.size() && !same_state(history[k], *firsts[state], tolerances)) ++state;
    if (state == firsts.size()) firsts.push_back(&history[k]);
    match.state_of[k] = state;
  }
  return match;
}

}  // namespace collbench
