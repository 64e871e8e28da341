#include "link_bound_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "harness/plan/point_identity.h"
#include "harness/plan/sizes.h"
#include "harness/report/ordered_json.h"

namespace collbench {

// A bound and a curve's summary in JSON: their members under their own names, as the
// /link_bounds table names its columns.
void to_json(nlohmann::ordered_json& json, LinkKind kind) { json = name(kind); }
COLLBENCH_ORDERED_JSON(LinkBound, point_id, kind, links, alpha_us, bandwidth_GBps, algorithm,
                       predicted_us, measured_us)
COLLBENCH_ORDERED_JSON(CurveBound, points, smallest_bytes, smallest_ratio, largest_bytes,
                       largest_ratio, median_ratio)

void print_link_bounds(std::ostream& out, const LinkBoundRecord& record,
                       std::span<const PointResult> points) {
  fmt::print(out,
             "# Measured over predicted from the links of {} (measured {}): the fastest textbook "
             "algorithm on the slowest link each point crosses, reductions free\n",
             record.links_file, record.links_start_utc);
  fmt::print(out, "# {:<52} {:>10} {:>5} {:>10} {:>10} {:<18} {:>13} {:>12} {:>6}\n", "point",
             "size", "kind", "alpha(us)", "GB/s", "algorithm", "predicted(us)", "measured(us)",
             "ratio");
  for (const LinkBound& bound : record.bounds) {
    const PointKey& key = points[bound.point_id].key;
    fmt::print(out, "  {:<52} {:>10} {:>5} {:>10.2f} {:>10.4g} {:<18} {:>13.2f} {:>12.2f} {:>6.2f}\n",
               curve_text(key), format_size(key.size_bytes), name(bound.kind), bound.alpha_us,
               bound.bandwidth_GBps, bound.algorithm, bound.predicted_us, bound.measured_us,
               bound.ratio());
  }
  for (const CurveBound& curve : bound_curves(points, record.bounds))
    fmt::print(out, "# {}: measured/predicted {:.2f} at {}, {:.2f} at {}, median {:.2f} over {} sizes\n",
               curve_text(curve.curve), curve.smallest_ratio, format_size(curve.smallest_bytes),
               curve.largest_ratio, format_size(curve.largest_bytes), curve.median_ratio,
               curve.points);
}

nlohmann::ordered_json link_bounds_json(const LinkBoundRecord& record,
                                        std::span<const PointResult> points) {
  nlohmann::ordered_json json{{"links_file", record.links_file},
                              {"links_start_utc", record.links_start_utc},
                              {"points", nlohmann::ordered_json::array()},
                              {"curves", nlohmann::ordered_json::array()}};
  for (const LinkBound& bound : record.bounds) {
    auto entry = key_json(points[bound.point_id].key, true);
    entry.update(nlohmann::ordered_json(bound));
    entry["ratio"] = bound.ratio();
    json["points"].push_back(std::move(entry));
  }
  for (const CurveBound& curve : bound_curves(points, record.bounds)) {
    auto entry = key_json(curve.curve, false);
    entry.update(nlohmann::ordered_json(curve));
    json["curves"].push_back(std::move(entry));
  }
  return json;
}

}  // namespace collbench
