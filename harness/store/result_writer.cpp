#include "harness/store/result_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "harness/store/column_units.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/host_probe_table.h"
#include "harness/store/layout.h"
#include "harness/store/link_tables.h"
#include "harness/store/model_tables.h"
#include "harness/store/point_record.h"
#include "harness/store/record_table.h"
#include "harness/store/straggler_table.h"
#include "harness/store/topology_record.h"

namespace collbench {
namespace {

constexpr hsize_t kTableChunkRows = 64;
constexpr hsize_t kRankMedianChunkColumns = 64;

void check_shape(const PointResult& point) {
  const RawSamples& samples = point.samples;
  const auto ranks = static_cast<std::size_t>(samples.nranks);
  if (samples.nranks < 0 || samples.world_ranks.size() != ranks ||
      (ranks > 0 && samples.per_rank_seconds.size() % ranks != 0) ||
      (ranks == 0 && !samples.per_rank_seconds.empty()))
    throw std::invalid_argument(
        "point samples: world_ranks and per_rank_seconds do not match nranks");
  if (!samples.start_lateness_seconds.empty() &&
      samples.start_lateness_seconds.size() != samples.per_rank_seconds.size())
    throw std::invalid_argument("point start lateness: one per sample and rank expected");
  if (point.rank_median_seconds.size() != ranks)
    throw std::invalid_argument("point rank medians: one per column of the samples expected");
  if (std::any_of(samples.world_ranks.begin(), samples.world_ranks.end(),
                  [](int rank) { return rank < 0; }))
    throw std::invalid_argument("point samples: negative world rank");
}

void check_provenance_names(const Provenance& provenance) {
  auto check_name = [&provenance](const std::string& name) {
    for (const char* reserved :
         {layout::kSchema, layout::kSchemaVersion, layout::kComplete, layout::kHosts})
      if (name == reserved)
        throw std::invalid_argument(fmt::format("provenance may not use the name '{}'", name));
  };
  for (const auto& [name, value] : provenance.text) check_name(name);
  for (const auto& [name, value] : provenance.integers) {
    check_name(name);
    if (provenance.text.contains(name))
      throw std::invalid_argument(fmt::format("provenance names '{}' twice", name));
  }
}

}  // namespace

struct ResultWriter::Impl {
  // Declared first so that it closes last, after every object in it.
  h5::Handle file;
  h5::Handle points;
  h5::Handle rank_medians;
  h5::Handle samples;
  h5::Handle start_lateness;
  hsize_t points_written = 0;
  hsize_t world_size = 0;  // columns of rank_median_us
  KeepSamples keep = KeepSamples::all;
  // Kept from point to point. A matrix past glibc's mmap threshold (32 MB at most) would be
  // mapped and faulted in afresh for every point: point_bookkeeping_bench, alternating, took
  // 1.09-1.41 s a point of `all` at 1,024 ranks with a fresh vector, 0.90-0.92 s with this one.
  std::vector<RecordedMicroseconds> staged_microseconds;

  void create_layout();
  void write_samples(const RawSamples& raw, std::int64_t point_id);
  void write_matrix(hid_t group, const std::vector<double>& seconds, const RawSamples& raw,
                    std::int64_t point_id);
  void append_rank_medians(const PointResult& point);
  void widen_rank_medians(hsize_t columns);
};

void ResultWriter::Impl::create_layout() {
  const hid_t root = file.get();
  h5::write_string_attribute(root, layout::kSchema, kSchemaName);
  h5::write_int_attribute(root, layout::kSchemaVersion, kSchemaVersion);
  h5::write_int_attribute(root, layout::kComplete, 0);

  // The tables are chunked but not compressed: a compressed chunk can move when rewritten, and
  // space freed by the move and reused before the next flush would overwrite rows that the file
  // on disk still points to. Uncompressed chunks are rewritten in place.
  const h5::Handle row_type = h5::table_type(point_row_type());
  points = h5::create_dataset(root, layout::kPoints, row_type.get(),
                              {.dims = {0}, .chunk = {kTableChunkRows}, .extendible = true});
  write_column_units(points.get());
  h5::write_int_attribute(points.get(), layout::kFinishedRows, 0);

  const double missing = std::numeric_limits<double>::quiet_NaN();
  rank_medians = h5::create_dataset(
      root, layout::kRankMedians, H5T_IEEE_F64LE,
      {.dims = {0, 0}, .chunk = {kTableChunkRows, kRankMedianChunkColumns}, .extendible = true},
      &missing);
  h5::write_string_attribute(rank_medians.get(), layout::kUnits, "us");
  h5::write_string_attribute(rank_medians.get(), layout::kDims, "point,world_rank");

  samples = h5::create_compact_group(root, layout::kSamples, layout::kSamplesCompactLinks,
                                     layout::kSamplesNameLength);
  start_lateness = h5::create_compact_group(root, layout::kStartLateness,
                                            layout::kSamplesCompactLinks,
                                            layout::kSamplesNameLength);
}

// A [sample x rank] matrix of `raw`'s shape, in float32 microseconds, named by the point.
// Contiguous and not compressed: shuffle and gzip took 40 to 70 times as long as the plain write
// for a matrix of times 1.2 to 1.3 times smaller, and at 1,024 ranks alone were over 1% of a
// point's measuring (results/SCHEMA.md, "Changes", 9).
void ResultWriter::Impl::write_matrix(hid_t group, const std::vector<double>& seconds,
                                      const RawSamples& raw, std::int64_t point_id) {
  static_assert(std::is_same_v<RecordedMicroseconds, float>);
  staged_microseconds.resize(seconds.size());
  std::transform(seconds.begin(), seconds.end(), staged_microseconds.begin(),
                 recorded_microseconds);
  const hsize_t samples = raw.sample_count();
  const hsize_t ranks = raw.nranks;
  const h5::Handle dataset =
      h5::create_dataset(group, layout::samples_name(point_id), H5T_IEEE_F32LE,
                         {.dims = {samples, ranks}, .chunk = {}});
  if (!seconds.empty())
    h5::write_all(dataset.get(), H5T_NATIVE_FLOAT, staged_microseconds.data());
  h5::write_string_attribute(dataset.get(), layout::kUnits, "us");
  h5::write_string_attribute(dataset.get(), layout::kDims, "sample,rank");
  h5::write_int_attribute(dataset.get(), layout::kPointId, point_id);
  h5::write_int_list_attribute(dataset.get(), layout::kWorldRanks, raw.world_ranks);
  h5::write_int_list_attribute(dataset.get(), layout::kRoundStarts,
                               std::vector<int>(raw.round_starts.begin(), raw.round_starts.end()));
}

void ResultWriter::Impl::write_samples(const RawSamples& raw, std::int64_t point_id) {
  write_matrix(samples.get(), raw.per_rank_seconds, raw, point_id);
  if (!raw.start_lateness_seconds.empty())
    write_matrix(start_lateness.get(), raw.start_lateness_seconds, raw, point_id);
}

void ResultWriter::Impl::widen_rank_medians(hsize_t columns) {
  world_size = std::max(world_size, columns);
  const hsize_t dims[] = {h5::extent(rank_medians.get()).at(0), world_size};
  h5::set_extent(rank_medians.get(), dims);
}

void ResultWriter::Impl::append_rank_medians(const PointResult& point) {
  const std::vector<int>& world_ranks = point.samples.world_ranks;
  const int highest_rank =
      world_ranks.empty() ? -1 : *std::max_element(world_ranks.begin(), world_ranks.end());
  world_size = std::max<hsize_t>(world_size, highest_rank + 1);

  std::vector<double> row(world_size, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t column = 0; column < world_ranks.size(); ++column)
    row[world_ranks[column]] = point.rank_median_seconds[column] * kMicrosecondsPerSecond;

  const hsize_t dims[] = {points_written + 1, world_size};
  h5::set_extent(rank_medians.get(), dims);
  if (world_size == 0) return;
  const hsize_t start[] = {points_written, 0};
  const hsize_t count[] = {1, world_size};
  h5::write_block(rank_medians.get(), H5T_NATIVE_DOUBLE, start, count, row.data());
}

ResultWriter::ResultWriter(const std::filesystem::path& path, bool overwrite, KeepSamples keep)
    : impl_(std::make_unique<Impl>()) {
  impl_->keep = keep;
  const std::filesystem::path parent = path.parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent))
    throw std::runtime_error(fmt::format("cannot create {}: directory {} does not exist",
                                         path.string(), parent.string()));
  if (!overwrite && std::filesystem::exists(path))
    throw std::runtime_error(fmt::format("{} exists; pass --force to overwrite", path.string()));
  impl_->file = h5::create_file(path, overwrite);
  impl_->create_layout();
  h5::flush(impl_->file.get());
}

ResultWriter::~ResultWriter() = default;

void ResultWriter::write_provenance(const Provenance& provenance) {
  if (!impl_) throw std::logic_error("ResultWriter::write_provenance after finish");
  check_provenance_names(provenance);
  const hid_t root = impl_->file.get();
  for (const auto& [name, value] : provenance.text) h5::write_string_attribute(root, name, value);
  for (const auto& [name, value] : provenance.integers) h5::write_int_attribute(root, name, value);
  h5::write_string_list_attribute(root, layout::kHosts, provenance.hosts);

  const h5::Handle environment = h5::link_exists(root, layout::kEnvironment)
                                     ? h5::open_group(root, layout::kEnvironment)
                                     : h5::create_group(root, layout::kEnvironment);
  for (const auto& [name, value] : provenance.environment)
    h5::write_string_attribute(environment.get(), name, value);
  h5::flush(root);
}

void ResultWriter::write_topology(const std::vector<RankTopology>& ranks) {
  if (!impl_) throw std::logic_error("ResultWriter::write_topology after finish");
  const hid_t root = impl_->file.get();
  if (h5::link_exists(root, layout::kTopology))
    throw std::logic_error("ResultWriter::write_topology called twice");
  write_records(root, layout::kTopology, topology_row_type(), ranks, to_topology_row);
  impl_->widen_rank_medians(ranks.size());
  h5::flush(root);
}

void ResultWriter::append_point(const PointResult& point) {
  if (!impl_) throw std::logic_error("ResultWriter::append_point after finish");
  check_shape(point);
  Impl& out = *impl_;
  const auto point_id = static_cast<std::int64_t>(out.points_written);
  // A flush writes its blocks in no order a kill could rely on: the table's grown extent may
  // reach the disk before the row's text in the global heap, or before the superblock's end of
  // allocation that covers a new heap block. Reading such a row fails or crashes HDF5 1.10, and
  // h5py reads a row's text whichever of its columns is asked for. So the row is appended
  // unnumbered, and numbered and counted in finished_rows by a flush of its own, after
  // everything it refers to is on disk; readers of a killed run read that many rows.
  // First: a name too long for its column leaves the file as it was.
  write_point_row(out.points.get(), out.points_written, point, kUnnumberedRow);
  if (point.samples.nranks > 0) out.write_samples(kept_samples(point.samples, out.keep), point_id);
  out.append_rank_medians(point);
  h5::flush(out.file.get());
  h5::write_integer_cell(out.points.get(), layout::kPointId, out.points_written, point_id);
  ++out.points_written;
  h5::update_int_attribute(out.points.get(), layout::kFinishedRows, out.points_written);
  h5::flush(out.file.get());
}

void ResultWriter::append_link_point(const LinkPoint& point) {
  if (!impl_) throw std::logic_error("ResultWriter::append_link_point after finish");
  collbench::append_link_point(impl_->file.get(), point);
}

void ResultWriter::write_link_analysis(const LinkAnalysis& analysis, double shortfall) {
  if (!impl_) throw std::logic_error("ResultWriter::write_link_analysis after finish");
  collbench::write_link_analysis(impl_->file.get(), analysis, shortfall);
}

void ResultWriter::write_models(const ModelReport& report) {
  if (!impl_) throw std::logic_error("ResultWriter::write_models called after finish");
  write_model_tables(impl_->file.get(), report);
}

void ResultWriter::write_stragglers(const StragglerRecord& record) {
  if (!impl_) throw std::logic_error("ResultWriter::write_stragglers called after finish");
  write_straggler_table(impl_->file.get(), record);
}

void ResultWriter::write_host_probe(const HostProbe& probe) {
  if (!impl_) throw std::logic_error("ResultWriter::write_host_probe called after finish");
  write_host_probe_table(impl_->file.get(), probe);
}

void ResultWriter::finish(const std::string& end_utc) {
  if (!impl_) throw std::logic_error("ResultWriter::finish called twice");
  const hid_t root = impl_->file.get();
  h5::write_string_attribute(root, layout::kEndUtc, end_utc);
  h5::write_int_attribute(root, layout::kComplete, 1);
  h5::flush(root);
  impl_.reset();
}

}  // namespace collbench
