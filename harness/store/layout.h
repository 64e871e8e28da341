#pragma once
// Names of the objects in a result file, shared by its writer and reader (results/SCHEMA.md).
#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace collbench::layout {

// Root attributes the store owns; provenance may not use these names.
inline constexpr const char* kSchema = "schema";
inline constexpr const char* kSchemaVersion = "schema_version";
inline constexpr const char* kComplete = "complete";
inline constexpr const char* kHosts = "hosts";
inline constexpr const char* kEndUtc = "end_utc";

inline constexpr const char* kEnvironment = "environment";
inline constexpr const char* kTopology = "topology";
inline constexpr const char* kPoints = "points";
// Attribute of /points: the rows, from the first, that belong to finished points.
inline constexpr const char* kFinishedRows = "finished_rows";
inline constexpr const char* kRankMedians = "rank_median_us";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kStartLateness = "start_lateness";

// `collbench links` (schema 11).
inline constexpr const char* kLinks = "links";
inline constexpr const char* kLinkSamples = "link_samples";
inline constexpr const char* kLinkFits = "link_fits";
inline constexpr const char* kSlowHosts = "slow_hosts";
// Attribute of /link_fits: the shortfall below its peers that names a link or host slow.
inline constexpr const char* kShortfall = "shortfall";
// A run file's points judged against a links file's links (`collbench fit --links`).
inline constexpr const char* kLinkBounds = "link_bounds";
inline constexpr const char* kLinksFile = "links_file";
inline constexpr const char* kLinksStartUtc = "links_start_utc";

// A file of `collbench predict` (schema 12).
inline constexpr const char* kPredictions = "predictions";
inline constexpr const char* kPredictionChecks = "prediction_checks";
inline constexpr const char* kPredictedFrom = "predicted_from";
inline constexpr const char* kInputs = "inputs";
inline constexpr const char* kComputeMs = "compute_ms";
inline constexpr const char* kOverlap = "overlap";

// Ranks and hosts that came last more often than chance, and how they were judged (schema 12).
inline constexpr const char* kStragglers = "stragglers";
inline constexpr const char* kStragglerPoints = "points";
inline constexpr const char* kStragglerAlpha = "alpha";
inline constexpr const char* kStragglerLagShare = "lag_share";
inline constexpr const char* kStragglerLagFloor = "lag_floor_us";

// The host-state probe's readings (schema 20).
inline constexpr const char* kHostProbe = "host_probe";

inline constexpr const char* kUnits = "units";
inline constexpr const char* kDims = "dims";
inline constexpr const char* kPointId = "point_id";
inline constexpr const char* kWorldRanks = "world_ranks";
inline constexpr const char* kRoundStarts = "round_starts";

// The samples of point 42 are /samples/000042 (its start lateness /start_lateness/000042), so
// names sort in point order.
inline constexpr unsigned kSamplesNameLength = 6;
inline std::string samples_name(std::int64_t point_id) {
  return fmt::format("{:0{}d}", point_id, kSamplesNameLength);
}
// The links a samples group (/samples, /start_lateness, /link_samples) holds in its own header;
// the header is rewritten whole at every point, so room is not free. Past this, HDF5's dense
// link storage takes over: as fast, but a kill can tear it.
inline constexpr unsigned kSamplesCompactLinks = 8192;

}  // namespace collbench::layout
