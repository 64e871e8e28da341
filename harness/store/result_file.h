#pragma once
// The HDF5 record of a run (layout in results/SCHEMA.md). Rank 0 writes it; every finished
// point is flushed so that a reader opens the file after a kill -9 at any moment.
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/fit/curve_fits.h"
#include "harness/links/link_bounds.h"
#include "harness/links/link_fits.h"
#include "harness/plan/host_probe.h"
#include "harness/plan/point.h"
#include "harness/plan/sample_retention.h"
#include "harness/stats/stragglers.h"
#include "topo/rank_topology.h"

namespace collbench {

// 2: /fits, /families, /crossovers; 3: algorithm and protocol columns; 4: window starts (sync,
// invalid_samples, window_margin_us, clock_error_us, /start_lateness); 5: the library's own
// account of its choice (chosen_algorithm, chosen_protocol, chosen_channels); 6: rounds; 7: each
// rank family's coefficients in /families; 8: text in tables variable-length UTF-8, was
// fixed-length; 9: /samples and /start_lateness float32, contiguous, were float64 and compressed
// past 16 KiB; 10: /points counts its finished rows (finished_rows); 11: the links of
// `collbench links` (/links, /link_samples, /link_fits, /slow_hosts); 12: /stragglers, and the
// files of `collbench predict`; 13: the overlap_ columns of /points (--overlap-load), the tail
// columns of a predictions file; 14: the osu_mean_us column of /points; 15: its sample_step_us
// column; 16: time_ci_low_us and time_ci_high_us of /points and /links renamed
// time_median_ci_low_us and time_median_ci_high_us; 17: alltoall, broadcast and reduce, and the
// root column of /points and of the curve columns; 18: a units attribute on every table, derived
// from its columns' names; 19: the wrong_after_timing and implausible columns of /points, the
// plausibility_ attributes; 20: /host_probe; 21: text fixed-length again, in tables and
// attributes: no variable-length data (h5.h); 22: the sync column of the curve columns, a
// point's sync part of its identity; 23: gather, scatter and sendrecv. Older versions read,
// their missing columns as empty strings and zeros (wrong_after_timing as -1, not checked).
inline constexpr int kSchemaVersion = 23;
// Files from this schema on validate after timing too (/points' wrong_after_timing).
inline constexpr int kFirstSchemaCheckingAfterTiming = 19;
// Files from this schema on name a curve with its sync (CurveColumns::sync).
inline constexpr int kFirstSchemaWithCurveSync = 22;
inline constexpr const char* kSchemaName = "collbench-results";
// The `schema` of a file of `collbench predict` (harness/store/prediction_file.h).
inline constexpr const char* kPredictionSchemaName = "collbench-predictions";

// Scalar provenance, stored as attributes on the root group.
struct Provenance {
  std::map<std::string, std::string> text;   // command_line, collbench_version, start_utc, ...
  std::map<std::string, long long> integers;  // nranks, ranks_per_node, ...
  std::map<std::string, std::string> environment;  // filtered: NCCL_*, UCX_*, OMPI_*, SLURM_*, CUDA_*
  std::vector<std::string> hosts;

  // The text attribute, or empty when the file has none.
  std::string text_of(const std::string& key) const {
    const auto found = text.find(key);
    return found == text.end() ? std::string() : found->second;
  }
};

class ResultWriter {
 public:
  // Creates the file; refuses an existing one unless `overwrite`. Throws std::runtime_error.
  // `keep`: what each point keeps of its raw samples.
  ResultWriter(const std::filesystem::path& path, bool overwrite,
               KeepSamples keep = KeepSamples::all);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  void write_provenance(const Provenance& provenance);
  void write_topology(const std::vector<RankTopology>& ranks);
  void append_point(const PointResult& point);  // flushed before it returns
  // `collbench links` (harness/store/link_tables.h): a point, flushed before it returns; the
  // fits and the slow links and hosts, replacing any before.
  void append_link_point(const LinkPoint& point);
  void write_link_analysis(const LinkAnalysis& analysis, double shortfall);
  // Replaces the fitted models (harness/store/model_tables.h); flushed before it returns.
  void write_models(const ModelReport& report);
  // Replaces /stragglers (harness/store/straggler_table.h); flushed before it returns.
  void write_stragglers(const StragglerRecord& record);
  // Replaces /host_probe (harness/store/host_probe_table.h); flushed before it returns.
  void write_host_probe(const HostProbe& probe);
  // Sets end_utc and complete = 1, then closes.
  void finish(const std::string& end_utc);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ResultFile {
  Provenance provenance;
  bool complete = false;
  int schema_version = 0;
  std::vector<RankTopology> topology;
  std::vector<PointResult> points;  // with raw samples when read with samples
  std::optional<ModelReport> models;  // when the run was fitted
  std::optional<LinkRecord> links;     // a file of `collbench links`
  std::optional<LinkBoundRecord> link_bounds;  // a run judged against links (fit --links)
  std::optional<StragglerRecord> stragglers;   // once the run ended, or was fitted
  HostProbe host_probe;                        // no readings before schema 20
};

// Throws InvalidResultFile (a std::runtime_error) naming the problem when the file cannot be
// opened, is not HDF5, or is not a collbench file of a known schema version.
struct InvalidResultFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};
ResultFile read_result_file(const std::filesystem::path& path, bool with_samples);

// What a command says once, on stderr, of a file whose run did not finish: "PATH is from a run
// that did not finish; it holds the N points finished before it stopped" (a links run's: its
// link points). Empty for a finished run.
std::string unfinished_note(const ResultFile& file, const std::string& path);

}  // namespace collbench
