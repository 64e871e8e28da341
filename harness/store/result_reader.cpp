#include "harness/store/result_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <new>
#include <span>
#include <string_view>
#include <stdexcept>

#include "harness/errors.h"
#include "harness/store/damaged_file_guard.h"
#include "harness/store/h5.h"
#include "harness/store/host_probe_table.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/link_bound_table.h"
#include "harness/store/link_tables.h"
#include "harness/store/model_tables.h"
#include "harness/store/point_record.h"
#include "harness/store/record_table.h"
#include "harness/store/straggler_table.h"
#include "harness/store/topology_record.h"

namespace collbench {
namespace {

int read_schema_version(hid_t root) {
  if (h5::has_attribute(root, layout::kSchema) &&
      h5::attribute_class(root, layout::kSchema) == H5T_STRING &&
      h5::read_string_attribute(root, layout::kSchema) == kPredictionSchemaName)
    throw std::runtime_error(
        "a file of `collbench predict`, not a run's: `collbench plot` draws it, h5py reads it");
  if (!h5::has_attribute(root, layout::kSchema) ||
      h5::attribute_class(root, layout::kSchema) != H5T_STRING ||
      h5::read_string_attribute(root, layout::kSchema) != kSchemaName)
    throw std::runtime_error(fmt::format(
        "not a collbench result file (no root attribute schema = \"{}\")", kSchemaName));
  if (!h5::has_attribute(root, layout::kSchemaVersion))
    throw std::runtime_error("no schema_version attribute");
  const std::int64_t version = h5::read_int_attribute(root, layout::kSchemaVersion);
  if (version > kSchemaVersion)
    throw std::runtime_error(fmt::format(
        "schema_version {} is newer than this collbench reads ({}); use a newer collbench", version,
        kSchemaVersion));
  if (version < 1) throw std::runtime_error(fmt::format("unknown schema_version {}", version));
  return static_cast<int>(version);
}

Provenance read_provenance(hid_t root) {
  Provenance provenance;
  for (const std::string& name : h5::attribute_names(root)) {
    if (name == layout::kSchema || name == layout::kSchemaVersion || name == layout::kComplete)
      continue;
    if (name == layout::kHosts) {
      provenance.hosts = h5::read_string_list_attribute(root, name);
      continue;
    }
    switch (h5::attribute_class(root, name)) {
      case H5T_STRING: provenance.text[name] = h5::read_string_attribute(root, name); break;
      case H5T_INTEGER: provenance.integers[name] = h5::read_int_attribute(root, name); break;
      default: break;  // not provenance this version knows; left to newer readers
    }
  }
  if (h5::link_exists(root, layout::kEnvironment)) {
    const h5::Handle environment = h5::open_group(root, layout::kEnvironment);
    for (const std::string& name : h5::attribute_names(environment.get()))
      provenance.environment[name] = h5::read_string_attribute(environment.get(), name);
  }
  return provenance;
}

std::vector<RankTopology> read_topology(hid_t root) {
  if (!h5::link_exists(root, layout::kTopology)) return {};
  return read_records(root, layout::kTopology, topology_row_type(), from_topology_row);
}

// Row-major [point x world rank] matrix of per-rank medians, microseconds.
struct RankMedians {
  hsize_t points = 0;
  hsize_t world_size = 0;
  std::vector<double> microseconds;

  double at(hsize_t point, int world_rank) const {
    if (point >= points || static_cast<hsize_t>(world_rank) >= world_size)
      return std::numeric_limits<double>::quiet_NaN();
    return microseconds[point * world_size + world_rank];
  }
};

// Only the finished points' rows: a killed run's unfinished last row may lie in a chunk that the
// file's recorded end of allocation does not cover yet, and reading it fails ("addr overflow").
RankMedians read_rank_medians(hid_t root, hsize_t finished_points) {
  const h5::Handle dataset = h5::open_dataset(root, layout::kRankMedians);
  const std::vector<hsize_t> dims = h5::extent(dataset.get());
  const hsize_t points = std::min(dims.at(0), finished_points);
  RankMedians medians{.points = points,
                      .world_size = dims.at(1),
                      .microseconds = std::vector<double>(points * dims.at(1))};
  const hsize_t start[] = {0, 0};
  const hsize_t count[] = {medians.points, medians.world_size};
  if (!medians.microseconds.empty())
    h5::read_block(dataset.get(), H5T_NATIVE_DOUBLE, start, count, medians.microseconds.data());
  return medians;
}

std::vector<double> read_seconds(hid_t dataset, std::size_t columns, const std::string& name) {
  const std::vector<hsize_t> dims = h5::extent(dataset);
  if (dims.size() != 2 || dims[1] != columns)
    throw std::runtime_error(fmt::format("{}: shape does not match world_ranks", name));
  std::vector<double> seconds(dims[0] * dims[1]);
  if (!seconds.empty()) h5::read_all(dataset, H5T_NATIVE_DOUBLE, seconds.data());
  for (double& value : seconds) value /= kMicrosecondsPerSecond;
  return seconds;
}

// The sample matrix's columns say which world ranks took part, so rank medians are read through
// them even when the samples themselves are not wanted. Files before schema 4 have no
// /start_lateness (`lateness_group` < 0).
void read_samples(hid_t samples_group, hid_t lateness_group, std::int64_t point_id,
                  bool with_samples, PointResult& point) {
  const std::string name = layout::samples_name(point_id);
  if (!h5::link_exists(samples_group, name)) return;
  const h5::Handle dataset = h5::open_dataset(samples_group, name);
  RawSamples& samples = point.samples;
  samples.world_ranks = h5::read_int_list_attribute(dataset.get(), layout::kWorldRanks);
  samples.nranks = static_cast<int>(samples.world_ranks.size());
  if (!with_samples) return;
  samples.per_rank_seconds =
      read_seconds(dataset.get(), samples.world_ranks.size(), "samples/" + name);
  // Files before schema 6 measured every point in one round.
  if (h5::has_attribute(dataset.get(), layout::kRoundStarts)) {
    const std::vector<int> starts = h5::read_int_list_attribute(dataset.get(), layout::kRoundStarts);
    const auto count = static_cast<int>(samples.sample_count());
    if (starts.empty() || starts.front() != 0 || !std::ranges::is_sorted(starts) ||
        starts.back() > count)
      throw std::runtime_error(fmt::format("samples/{}: round_starts is not an ascending list "
                                           "from 0 within the samples",
                                           name));
    samples.round_starts.assign(starts.begin(), starts.end());
  }
  if (lateness_group < 0 || !h5::link_exists(lateness_group, name)) return;
  const h5::Handle lateness = h5::open_dataset(lateness_group, name);
  samples.start_lateness_seconds =
      read_seconds(lateness.get(), samples.world_ranks.size(), "start_lateness/" + name);
}

// The point_ids of the rows that belong to finished points: all of a complete run's. A killed
// run's last row may be unfinished, in a chunk or with text that never reached the file, and is
// never read. Before schema 10 the table did not count its finished rows: a row was finished
// once numbered.
std::vector<std::int64_t> finished_point_ids(hid_t table, bool complete) {
  const std::size_t stored = h5::row_count(table);
  if (complete) return h5::read_integer_column(table, layout::kPointId, stored);
  std::vector<std::int64_t> ids;
  if (h5::has_attribute(table, layout::kFinishedRows)) {
    const std::int64_t count = h5::read_int_attribute(table, layout::kFinishedRows);
    if (count < 0 || count > static_cast<std::int64_t>(stored))
      throw std::runtime_error(
          fmt::format("{} is {} in a table of {} rows", layout::kFinishedRows, count, stored));
    ids = h5::read_integer_column(table, layout::kPointId, static_cast<std::size_t>(count));
  } else {
    ids = h5::read_integer_column(table, layout::kPointId, stored);
    std::size_t numbered = 0;
    while (numbered < ids.size() && ids[numbered] == static_cast<std::int64_t>(numbered))
      ++numbered;
    ids.resize(numbered);
  }
  if (stored - ids.size() > 1)
    throw std::runtime_error(
        fmt::format("{} rows after the {} finished ones", stored - ids.size(), ids.size()));
  return ids;
}

// The finished rows of /points, each numbered by its row: point_id is the row's index.
std::vector<PointResult> read_finished_points(hid_t root, bool complete) {
  try {
    const h5::Handle table = h5::open_dataset(root, layout::kPoints);
    const std::vector<std::int64_t> ids = finished_point_ids(table.get(), complete);
    for (std::size_t row = 0; row < ids.size(); ++row)
      if (ids[row] != static_cast<std::int64_t>(row))
        throw std::runtime_error(fmt::format("row {} is numbered {}", row, ids[row]));
    return read_point_rows(table.get(), ids.size(), complete);
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("/") + layout::kPoints + ": " + error.what());
  }
}

std::vector<PointResult> read_points(hid_t root, bool with_samples, bool complete) {
  std::vector<PointResult> points = read_finished_points(root, complete);
  const RankMedians medians = read_rank_medians(root, points.size());
  const h5::Handle samples_group = h5::open_group(root, layout::kSamples);
  const h5::Handle lateness_group = h5::link_exists(root, layout::kStartLateness)
                                        ? h5::open_group(root, layout::kStartLateness)
                                        : h5::Handle();
  for (std::size_t index = 0; index < points.size(); ++index) {
    PointResult& point = points[index];
    read_samples(samples_group.get(), lateness_group.get(), static_cast<std::int64_t>(index),
                 with_samples, point);
    for (int world_rank : point.samples.world_ranks)
      point.rank_median_seconds.push_back(medians.at(index, world_rank) / kMicrosecondsPerSecond);
  }
  return points;
}

// Files before schema 22 name a curve without its sync: one run's latency points share one
// (--sync), and bandwidth points start at a barrier.
void take_points_sync(ModelReport& models, std::span<const PointResult> points) {
  const auto latency = std::ranges::find(points, Mode::latency,
                                         [](const PointResult& p) { return p.key.mode; });
  const SampleStart latency_sync =
      latency == points.end() ? SampleStart::window : latency->key.sync;
  const auto take = [&](PointKey& key) { key.sync = sync_of(key.mode, latency_sync); };
  for (CurveFit& curve : models.curves) take(curve.key);
  for (FamilyReport& family : models.families) take(family.key);
  for (CrossoverReport& crossover : models.crossovers) take(crossover.key);
}

}  // namespace

ResultFile read_result_file(const std::filesystem::path& path, bool with_samples) {
  if (!std::filesystem::exists(path))
    throw InvalidResultFile(fmt::format("{}: no such file", path.string()));
  if (!h5::is_hdf5_file(path))
    throw InvalidResultFile(fmt::format("{}: not an HDF5 file", path.string()));
  const DamagedFileGuard guard(path);
  try {
    const h5::Handle file = h5::open_file_read_only(path);
    const hid_t root = file.get();
    ResultFile result;
    result.schema_version = read_schema_version(root);
    result.complete = h5::has_attribute(root, layout::kComplete) &&
                      h5::read_int_attribute(root, layout::kComplete) == 1;
    result.provenance = read_provenance(root);
    result.topology = read_topology(root);
    result.points = read_points(root, with_samples, result.complete);
    if (result.schema_version < kFirstSchemaCheckingAfterTiming)  // whose column reads 0
      for (PointResult& point : result.points) point.checks.after_timing = kNotChecked;
    result.models = read_model_tables(root);
    if (result.models && result.schema_version < kFirstSchemaWithCurveSync)
      take_points_sync(*result.models, result.points);
    result.links = read_link_tables(root, with_samples);
    result.link_bounds = read_link_bounds(root);
    result.stragglers = read_straggler_table(root);
    result.host_probe = read_host_probe_table(root);
    return result;
  } catch (const FileHeldOpen&) {
    throw;  // the file may be fine: a fault of the moment, not bad input
  } catch (const std::runtime_error& error) {
    throw InvalidResultFile(fmt::format("{}: {}", path.string(), error.what()));
  } catch (const std::bad_alloc&) {  // a damaged extent, seen in damaged copies
    throw InvalidResultFile(fmt::format("{}: a dataset claims more than this machine's memory "
                                        "holds: damaged, or too large to read here",
                                        path.string()));
  }
}

std::string unfinished_note(const ResultFile& file, const std::string& path) {
  if (file.complete) return "";
  if (file.links)
    return fmt::format("{} is from a links run that did not finish; it holds the {} link points "
                       "finished before it stopped",
                       path, file.links->points.size());
  return fmt::format("{} is from a run that did not finish; it holds the {} points finished "
                     "before it stopped",
                     path, file.points.size());
}

}  // namespace collbench
