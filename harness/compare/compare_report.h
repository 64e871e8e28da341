#pragma once
// A Comparison (compare_files.h) for people and for machines: the table `collbench compare`
// prints, its JSON, and one VerdictRecord per point and fit for the JUnit and Prometheus files.
#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare_files.h"
#include "harness/plan/point_identity.h"
#include "harness/report/verdict_files.h"

namespace collbench {

void print_table(std::ostream& out, const Comparison& comparison);
nlohmann::ordered_json comparison_json(const Comparison& comparison);
std::vector<VerdictRecord> verdict_records(const Comparison& comparison);

// What compare and trend print alike.
// "1.082 [1.041, 1.125]"; "n/a" without a ratio, the ratio alone without an interval.
std::string ratio_text(double ratio, const Interval& ci);
// [low, high], or null where the interval was not computed.
nlohmann::ordered_json interval_json(const Interval& ci);
// "allreduce float sum world 2 ranks latency: SLOWER at 3 sizes, 64 KiB-256 KiB, ratio
// 1.082-1.141": a group of points (indexes into `keys` and `ratios`, in size order).
std::string alert_text(std::span<const PointKey> keys, std::span<const double> ratios,
                       std::span<const std::size_t> group);
// The night as a whole (judge_night): "the night as a whole: ratio 1.081 [1.052, 1.111] SLOWER",
// with its reason when it has one; its alert line; its JSON; its record for JUnit and
// Prometheus.
std::string night_text(const LaunchVerdict& night);
std::string night_alert_text(const LaunchVerdict& night);
nlohmann::ordered_json night_json(const std::optional<LaunchVerdict>& night);
VerdictRecord night_record(const LaunchVerdict& night);
// The alerts in the JSON: each group's scope ("curve"), curve, sizes and text, then the night's
// (scope "night") when it is SLOWER.
nlohmann::ordered_json alerts_json(std::span<const PointKey> keys, std::span<const double> ratios,
                                   const std::vector<std::vector<std::size_t>>& alerts,
                                   const std::optional<LaunchVerdict>& night);
// The table's "# alert: " lines (each group's, then the night's when it is SLOWER) and, with
// alerts, the command that would confirm them.
void print_alerts(std::ostream& out, std::span<const PointKey> keys,
                  std::span<const double> ratios,
                  const std::vector<std::vector<std::size_t>>& alerts,
                  const std::optional<LaunchVerdict>& night, const std::string& confirm);
// The host-state match (host_states.h) in the JSON, and as a record for JUnit and Prometheus:
// MATCHED, HOST_CHANGED (an UNSURE's severity) or NO_PROBE, valued by the share of the
// history's launches in NEW's state.
nlohmann::ordered_json host_state_json(const HostStateMatch& state);
VerdictRecord host_state_record(const HostStateMatch& state);

}  // namespace collbench
