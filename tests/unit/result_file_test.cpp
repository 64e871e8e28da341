#include "harness/store/result_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/link_bound_table.h"
#include "harness/store/point_record.h"
#include "harness/store/straggler_table.h"
#include "harness/store/model_tables.h"

namespace collbench {
namespace {

namespace fs = std::filesystem;

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = fs::temp_directory_path() /
                 ("collbench-result-file-test-" + std::to_string(getpid()) + "-" + test->name());
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  fs::path file(const std::string& name) const { return directory_ / name; }

 private:
  fs::path directory_;
};

template <typename Exception, typename Action>
std::string thrown_message(Action action) {
  try {
    action();
  } catch (const Exception& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Provenance example_provenance() {
  Provenance provenance;
  provenance.text = {{"command_line", "collbench run -b 8 -e 128M --ops allreduce"},
                     {"start_utc", "2025-01-02T03:04:05Z"},
                     {"mpi_library", "Open MPI v4.1.4 \u00b5-build"}};
  provenance.integers = {{"nranks", 4}, {"ranks_per_node", 2}, {"nccl_version", 22105}};
  provenance.environment = {{"NCCL_DEBUG", "INFO"}, {"SLURM_JOB_ID", "4242"}};
  provenance.hosts = {"node-a", "node-b"};
  return provenance;
}

std::vector<RankTopology> example_topology() {
  std::vector<RankTopology> ranks;
  for (int rank = 0; rank < 4; ++rank)
    ranks.push_back({.rank = rank,
                     .host = rank < 2 ? "node-a" : "node-b",
                     .local_rank = rank % 2,
                     .node_index = rank / 2,
                     .cpu_affinity = rank % 2 ? "8-15" : "0-7",
                     .gpu_name = "NVIDIA H100 80GB HBM3",
                     .gpu_bus_id = "00000000:1B:00." + std::to_string(rank),
                     .gpu_peers = rank % 2 ? "00000000:1B:00.0" : "00000000:1B:00.1",
                     .nic = "mlx5_" + std::to_string(rank)});
  return ranks;
}

PointResult example_point(PointKey key, std::vector<int> world_ranks, std::size_t sample_count,
                          double scale) {
  PointResult point;
  point.key = std::move(key);
  point.summary = {.samples = sample_count,
                   .median = 2.0 * scale,
                   .min = 1.0 * scale,
                   .p5 = 1.1 * scale,
                   .p95 = 3.0 * scale,
                   .p99 = 3.5 * scale,
                   .max = 4.0 * scale,
                   .mean = 2.2 * scale,
                   .stddev = 0.3 * scale,
                   .ci_low = 1.9 * scale,
                   .ci_high = 2.1 * scale};
  point.algbw_gbps = 12.5 / scale;
  point.busbw_gbps = 18.75 / scale;
  point.samples.nranks = static_cast<int>(world_ranks.size());
  point.samples.world_ranks = world_ranks;
  for (std::size_t sample = 0; sample < sample_count; ++sample)
    for (std::size_t column = 0; column < world_ranks.size(); ++column)
      point.samples.per_rank_seconds.push_back(
          as_recorded(scale * (1.0 + 0.001 * sample + 0.1 * column)));
  if (sample_count >= 2) point.samples.round_starts = {0, sample_count / 2};
  for (std::size_t column = 0; column < world_ranks.size(); ++column)
    point.rank_median_seconds.push_back(scale * (2.0 + 0.1 * column));
  return point;
}

std::vector<PointResult> example_points() {
  PointResult world = example_point({.backend = "mpi",
                                     .collective = CollectiveKind::allreduce,
                                     .datatype = DataType::float32,
                                     .op = ReduceOp::sum,
                                     .placement = Placement::world,
                                     .nranks = 4,
                                     .mode = Mode::latency,
                                     .in_place = false,
                                     .size_bytes = 1 << 20,
                                     .count = 1 << 18,
                                     .algorithm = "",
                                     .protocol = ""},
                                    {0, 1, 2, 3}, 5, 1e-5);
  world.checks = {.before_timing = 0, .after_timing = 0};
  world.implausible = Implausible::busbw_above_copy;
  world.stop_reason = StopReason::converged;
  world.osu_mean_s = 1.7e-5;  // a barrier-started latency point's; NaN at the others
  world.sample_step_s = 10.02e-9 / 5;  // kvm-clock's step over a loop of 5

  PointResult intra = example_point({.backend = "nccl",
                                     .collective = CollectiveKind::allgather,
                                     .datatype = DataType::int8,
                                     .op = ReduceOp::sum,
                                     .placement = Placement::intra,
                                     .nranks = 2,
                                     .mode = Mode::bandwidth,
                                     .in_place = true,
                                     .size_bytes = 4096,
                                     .count = 2048,
                                     .algorithm = "Ring",
                                     .protocol = "LL128"},
                                    {2, 3}, 3, 2e-6);
  intra.stop_reason = StopReason::max_time;
  intra.ops_per_sample = 50;
  store_choice_name("RING", intra.chosen.algorithm);
  store_choice_name("LL128", intra.chosen.protocol);
  intra.chosen.channels = 8;

  // A larger matrix; columns not in world-rank order.
  PointResult inter = example_point({.backend = "ucx",
                                     .collective = CollectiveKind::reduce_scatter,
                                     .datatype = DataType::float64,
                                     .op = ReduceOp::max,
                                     .placement = Placement::inter,
                                     .nranks = 2,
                                     .mode = Mode::latency,
                                     .in_place = false,
                                     .size_bytes = 8 << 20,
                                     .count = 1 << 19,
                                     .algorithm = "CollNetDirect",
                                     .protocol = ""},
                                    {3, 1}, 2000, 3e-4);
  inter.checks = {.before_timing = 7, .after_timing = kNotChecked};
  inter.implausible = Implausible::time_below_empty_call;
  inter.stop_reason = StopReason::time_limit;
  return {world, intra, inter};
}

void expect_same_point(const PointResult& expected, const PointResult& actual, bool with_samples) {
  const PointKey& want = expected.key;
  const PointKey& got = actual.key;
  EXPECT_EQ(want.backend, got.backend);
  EXPECT_EQ(want.collective, got.collective);
  EXPECT_EQ(want.datatype, got.datatype);
  EXPECT_EQ(want.op, got.op);
  EXPECT_EQ(want.placement, got.placement);
  EXPECT_EQ(want.nranks, got.nranks);
  EXPECT_EQ(want.mode, got.mode);
  EXPECT_EQ(want.in_place, got.in_place);
  EXPECT_EQ(want.size_bytes, got.size_bytes);
  EXPECT_EQ(want.count, got.count);
  EXPECT_EQ(want.algorithm, got.algorithm);
  EXPECT_EQ(want.protocol, got.protocol);
  EXPECT_EQ(choice_name(expected.chosen.algorithm), choice_name(actual.chosen.algorithm));
  EXPECT_EQ(choice_name(expected.chosen.protocol), choice_name(actual.chosen.protocol));
  EXPECT_EQ(expected.chosen.channels, actual.chosen.channels);

  // Stored in microseconds, so seconds come back within rounding.
  EXPECT_EQ(expected.summary.samples, actual.summary.samples);
  EXPECT_DOUBLE_EQ(expected.summary.median, actual.summary.median);
  EXPECT_DOUBLE_EQ(expected.summary.min, actual.summary.min);
  EXPECT_DOUBLE_EQ(expected.summary.p5, actual.summary.p5);
  EXPECT_DOUBLE_EQ(expected.summary.p95, actual.summary.p95);
  EXPECT_DOUBLE_EQ(expected.summary.p99, actual.summary.p99);
  EXPECT_DOUBLE_EQ(expected.summary.max, actual.summary.max);
  EXPECT_DOUBLE_EQ(expected.summary.mean, actual.summary.mean);
  EXPECT_DOUBLE_EQ(expected.summary.stddev, actual.summary.stddev);
  EXPECT_DOUBLE_EQ(expected.summary.ci_low, actual.summary.ci_low);
  EXPECT_DOUBLE_EQ(expected.summary.ci_high, actual.summary.ci_high);
  EXPECT_DOUBLE_EQ(expected.algbw_gbps, actual.algbw_gbps);
  EXPECT_DOUBLE_EQ(expected.busbw_gbps, actual.busbw_gbps);
  EXPECT_EQ(expected.checks.before_timing, actual.checks.before_timing);
  EXPECT_EQ(expected.checks.after_timing, actual.checks.after_timing);
  EXPECT_EQ(expected.implausible, actual.implausible);
  EXPECT_EQ(expected.stop_reason, actual.stop_reason);
  EXPECT_EQ(expected.ops_per_sample, actual.ops_per_sample);
  EXPECT_DOUBLE_EQ(expected.sample_step_s, actual.sample_step_s);
  if (std::isnan(expected.osu_mean_s))
    EXPECT_TRUE(std::isnan(actual.osu_mean_s)) << actual.osu_mean_s;
  else
    EXPECT_DOUBLE_EQ(expected.osu_mean_s, actual.osu_mean_s);

  ASSERT_EQ(expected.rank_median_seconds.size(), actual.rank_median_seconds.size());
  for (std::size_t i = 0; i < expected.rank_median_seconds.size(); ++i)
    EXPECT_DOUBLE_EQ(expected.rank_median_seconds[i], actual.rank_median_seconds[i]);
  EXPECT_EQ(expected.samples.nranks, actual.samples.nranks);
  EXPECT_EQ(expected.samples.world_ranks, actual.samples.world_ranks);
  if (!with_samples) {
    EXPECT_TRUE(actual.samples.per_rank_seconds.empty());
    return;
  }
  ASSERT_EQ(expected.samples.per_rank_seconds.size(), actual.samples.per_rank_seconds.size());
  for (std::size_t i = 0; i < expected.samples.per_rank_seconds.size(); ++i)
    EXPECT_DOUBLE_EQ(expected.samples.per_rank_seconds[i], actual.samples.per_rank_seconds[i]);
  EXPECT_EQ(expected.samples.round_starts, actual.samples.round_starts);
}

// Two curves that differ only in their tuning, and a family across rank counts of the tuned one.
ModelReport example_models() {
  const SegmentReport segment{.min_size_bytes = 8,
                              .max_size_bytes = 1 << 20,
                              .sizes = 18,
                              .alpha_s = 5e-6,
                              .beta_s_per_byte = 1e-10,
                              .alpha_ci = {4e-6, 6e-6},
                              .beta_ci = {0.9e-10, 1.1e-10},
                              .half_size_bytes = 5e4,
                              .half_size_ci = {4e4, 6e4},
                              .rms_rel_error = 0.01,
                              .max_rel_error = 0.03,
                              // As long as a noisy broadcast's: more than 255 bytes, which a
                              // row once cut without a word.
                              .flags = {"too few sizes to trust (5 < 6)",
                                        "misfit 77.6% above 5%: the time steps 8.8x from 64 B to "
                                        "512 B, faster than the size (8x): a switch of protocol "
                                        "or algorithm, or a cache outgrown, that one line cannot "
                                        "follow",
                                        "alpha interval wider than alpha",
                                        "beta not significant"}};
  ModelReport report;
  PointKey tuned = curve_key(example_points()[1].key);
  PointKey library_choice = tuned;
  library_choice.algorithm.clear();
  library_choice.protocol.clear();
  CurveFit curve;
  curve.key = tuned;
  curve.sizes = 18;
  curve.min_size_bytes = 8;
  curve.max_size_bytes = 1 << 20;
  curve.segments = {segment};
  Headline headline;
  headline.alpha_s = 5e-6;
  headline.alpha_ci = {4e-6, 6e-6};
  headline.beta_s_per_byte = 1e-10;
  headline.beta_ci = {0.9e-10, 1.1e-10};
  headline.half_size_bytes = 5e4;
  headline.half_size_ci = {4e4, 6e4};
  headline.misfit = 0.012;
  headline.bandwidth_falls_at_bytes = 1 << 16;
  headline.peak_beta_s_per_byte = 0.5e-10;
  headline.flags = {"misfit 1.2% above 1%", "alpha interval wider than alpha"};
  curve.headline = headline;
  report.curves.push_back(curve);
  curve.key = library_choice;
  curve.headline.reset();  // fitted before headlines existed
  report.curves.push_back(curve);
  FamilyReport family;
  family.key = tuned;
  family.key.nranks = 0;
  family.rank_counts = {2, 4};
  family.families = {{.family = describe(CollectiveKind::allreduce).families[0],
                       .alpha_s = 5e-6,
                       .beta_s_per_byte = 1e-10,
                       .rms_rel_error = 0.01,
                       .bic = -100,
                       .held_out_rel_error = 0.034}};
  report.crossovers.push_back(
      {family.key, family.families[0], 25.0 * (1 << 20), 5.2, {3.1, 9.4}, 4});
  report.families.push_back(family);
  return report;
}

void write_example(const fs::path& path, const ModelReport* models = nullptr) {
  ResultWriter writer(path, false);
  writer.write_provenance(example_provenance());
  writer.write_topology(example_topology());
  for (const PointResult& point : example_points()) writer.append_point(point);
  if (models) writer.write_models(*models);
  writer.finish("2025-01-02T04:00:00Z");
}

void expect_same_topology(const std::vector<RankTopology>& expected,
                          const std::vector<RankTopology>& actual) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].rank, expected[i].rank);
    EXPECT_EQ(actual[i].host, expected[i].host);
    EXPECT_EQ(actual[i].local_rank, expected[i].local_rank);
    EXPECT_EQ(actual[i].node_index, expected[i].node_index);
    EXPECT_EQ(actual[i].cpu_affinity, expected[i].cpu_affinity);
    EXPECT_EQ(actual[i].gpu_name, expected[i].gpu_name);
    EXPECT_EQ(actual[i].gpu_bus_id, expected[i].gpu_bus_id);
    EXPECT_EQ(actual[i].gpu_peers, expected[i].gpu_peers);
    EXPECT_EQ(actual[i].nic, expected[i].nic);
  }
}

// The text the model tables hold, and a number of each row to show the row is whole.
void expect_same_models(const ModelReport& expected, const ModelReport& actual) {
  ASSERT_EQ(actual.curves.size(), expected.curves.size());
  for (std::size_t i = 0; i < expected.curves.size(); ++i) {
    const CurveFit& want = expected.curves[i];
    const CurveFit& got = actual.curves[i];
    EXPECT_EQ(got.key, want.key);
    EXPECT_EQ(got.flags, want.flags);
    ASSERT_EQ(got.segments.size(), want.segments.size());
    for (std::size_t k = 0; k < want.segments.size(); ++k) {
      EXPECT_EQ(got.segments[k].flags, want.segments[k].flags);
      EXPECT_DOUBLE_EQ(got.segments[k].alpha_s, want.segments[k].alpha_s);
    }
    ASSERT_EQ(got.headline.has_value(), want.headline.has_value());
    if (want.headline) {
      EXPECT_EQ(got.headline->flags, want.headline->flags);
      EXPECT_DOUBLE_EQ(got.headline->beta_s_per_byte, want.headline->beta_s_per_byte);
    }
  }
  ASSERT_EQ(actual.families.size(), expected.families.size());
  for (std::size_t i = 0; i < expected.families.size(); ++i) {
    EXPECT_EQ(actual.families[i].key, expected.families[i].key);
    EXPECT_EQ(actual.families[i].rank_counts, expected.families[i].rank_counts);
    ASSERT_EQ(actual.families[i].families.size(), expected.families[i].families.size());
    for (std::size_t k = 0; k < expected.families[i].families.size(); ++k) {
      EXPECT_EQ(actual.families[i].families[k].family.name,
                expected.families[i].families[k].family.name);
      EXPECT_DOUBLE_EQ(actual.families[i].families[k].bic, expected.families[i].families[k].bic);
    }
  }
  ASSERT_EQ(actual.crossovers.size(), expected.crossovers.size());
  for (std::size_t i = 0; i < expected.crossovers.size(); ++i) {
    EXPECT_EQ(actual.crossovers[i].key, expected.crossovers[i].key);
    EXPECT_EQ(actual.crossovers[i].family.family.name, expected.crossovers[i].family.family.name);
    EXPECT_EQ(actual.crossovers[i].crossover_ranks, expected.crossovers[i].crossover_ranks);
  }
}

// "fixed" or "variable": how a table keeps a text column.
std::string text_column_class(const fs::path& path, const char* table, const char* column) {
  const h5::Handle file = h5::open_file_read_only(path);
  const h5::Handle dataset = h5::open_dataset(file.get(), table);
  const h5::Handle stored = h5::own(H5Dget_type(dataset.get()), "H5Dget_type");
  const h5::Handle member = h5::own(
      H5Tget_member_type(stored.get(), H5Tget_member_index(stored.get(), column)), "member");
  return H5Tis_variable_str(member.get()) > 0 ? "variable" : "fixed";
}

// One text column of a table, read on its own through the HDF5 API; since schema 21 the file
// keeps text fixed-length, null-terminated UTF-8.
std::vector<std::string> text_column(const fs::path& path, const char* table, const char* column) {
  const h5::Handle file = h5::open_file_read_only(path);
  const h5::Handle dataset = h5::open_dataset(file.get(), table);
  const h5::Handle stored = h5::own(H5Dget_type(dataset.get()), "H5Dget_type");
  const int index = H5Tget_member_index(stored.get(), column);
  H5Eclear2(H5E_DEFAULT);
  if (index < 0) {
    ADD_FAILURE() << "/" << table << " has no column " << column;
    return {};
  }
  const h5::Handle member = h5::own(H5Tget_member_type(stored.get(), index), "H5Tget_member_type");
  EXPECT_EQ(H5Tget_class(member.get()), H5T_STRING) << column;
  EXPECT_EQ(H5Tis_variable_str(member.get()), 0) << column << " is variable-length text";
  EXPECT_EQ(H5Tget_cset(member.get()), H5T_CSET_UTF8) << column;
  const std::size_t bytes = H5Tget_size(member.get());
  const h5::Handle type = h5::own(H5Tcreate(H5T_COMPOUND, bytes), "H5Tcreate");
  h5::check(H5Tinsert(type.get(), column, 0, member.get()), "H5Tinsert");
  std::vector<char> texts(h5::extent(dataset.get()).at(0) * bytes);
  if (texts.empty()) return {};
  h5::read_all(dataset.get(), type.get(), texts.data());
  std::vector<std::string> values;
  for (std::size_t at = 0; at < texts.size(); at += bytes)
    values.push_back(h5::load_fixed_string(std::span(texts).subspan(at, bytes)));
  return values;
}

// The names of /points' columns before schema 16.
const std::map<std::string, std::string> kNamesBeforeSchema16 = {
    {"time_median_ci_low_us", "time_ci_low_us"}, {"time_median_ci_high_us", "time_ci_high_us"}};

// How an older schema kept a table's text: fixed-length, each column as long as its longest
// value (schema 7 and older), or variable-length (schema 8 to 20).
enum class OlderText { fixed, variable };

// Rewrites a table as an older schema wrote it: the same rows without the `dropped` columns,
// columns named as `older_names` says, text kept as `text` says.
void rewrite_as_older(hid_t file, const char* name, const std::vector<std::string>& dropped,
                      OlderText text, const std::map<std::string, std::string>& older_names = {}) {
  struct Column {
    std::string name;
    h5::Handle type;  // as stored
    std::size_t offset = 0;
    bool text = false;
    std::vector<std::string> values;  // a text column's, row by row
  };
  std::vector<Column> columns;
  std::size_t row_bytes = 0;
  hsize_t rows = 0;
  std::vector<std::byte> data;
  {
    const h5::Handle table = h5::open_dataset(file, name);
    const h5::Handle stored = h5::own(H5Dget_type(table.get()), "H5Dget_type");
    for (int i = 0, n = H5Tget_nmembers(stored.get()); i < n; ++i) {
      Column column;
      column.name = h5::member_name(stored.get(), i);
      if (std::find(dropped.begin(), dropped.end(), column.name) != dropped.end()) continue;
      column.type = h5::own(H5Tget_member_type(stored.get(), i), "H5Tget_member_type");
      column.text = H5Tget_class(column.type.get()) == H5T_STRING;
      column.offset = row_bytes;
      row_bytes += H5Tget_size(column.type.get());
      columns.push_back(std::move(column));
    }
    const h5::Handle read_type = h5::own(H5Tcreate(H5T_COMPOUND, row_bytes), "H5Tcreate");
    for (const Column& column : columns)
      h5::check(H5Tinsert(read_type.get(), column.name.c_str(), column.offset, column.type.get()),
                "H5Tinsert");
    rows = h5::extent(table.get()).at(0);
    data.resize(rows * row_bytes);
    if (rows) h5::read_all(table.get(), read_type.get(), data.data());
  }
  std::size_t older_bytes = 0;
  std::vector<h5::Handle> older_types;
  for (Column& column : columns) {
    std::size_t longest = 0;
    for (hsize_t row = 0; column.text && row < rows; ++row) {
      const auto* field = reinterpret_cast<const char*>(data.data() + row * row_bytes + column.offset);
      column.values.push_back(h5::load_fixed_string({field, H5Tget_size(column.type.get())}));
      longest = std::max(longest, column.values.back().size());
    }
    older_types.push_back(!column.text                  ? h5::own(H5Tcopy(column.type.get()), "H5Tcopy")
                          : text == OlderText::variable ? h5::utf8_string_type()
                                                        : h5::fixed_string_type(longest + 1));
    older_bytes += H5Tget_size(older_types.back().get());
  }
  const h5::Handle older = h5::own(H5Tcreate(H5T_COMPOUND, older_bytes), "H5Tcreate");
  std::vector<std::byte> rewritten(rows * older_bytes);
  for (std::size_t i = 0, offset = 0; i < columns.size(); ++i) {
    const Column& column = columns[i];
    const std::size_t bytes = H5Tget_size(older_types[i].get());
    const auto older_name = older_names.find(column.name);
    const std::string& stored_name =
        older_name == older_names.end() ? column.name : older_name->second;
    h5::check(H5Tinsert(older.get(), stored_name.c_str(), offset, older_types[i].get()),
              "H5Tinsert");
    for (hsize_t row = 0; row < rows; ++row) {
      std::byte* target = rewritten.data() + row * older_bytes + offset;
      if (!column.text) {
        std::memcpy(target, data.data() + row * row_bytes + column.offset, bytes);
      } else if (text == OlderText::variable) {
        const char* value = column.values[row].c_str();
        std::memcpy(target, &value, sizeof value);
      } else {
        std::memcpy(target, column.values[row].c_str(), column.values[row].size() + 1);
      }
    }
    offset += bytes;
  }
  h5::check(H5Ldelete(file, name, H5P_DEFAULT), "H5Ldelete");
  const h5::Handle table = h5::create_dataset(file, name, older.get(), {.dims = {rows}, .chunk = {}});
  if (rows) h5::write_all(table.get(), older.get(), rewritten.data());
}

constexpr const char* kTables[] = {"points", "topology", "fits", "headlines", "families",
                                   "crossovers"};

// What collbench wrote at schema_version 7: text in tables fixed-length.
void make_schema_7(const fs::path& path) {
  const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
  for (const char* table : kTables)
    if (h5::link_exists(file.get(), table))
      rewrite_as_older(file.get(), table, {"wrong_after_timing", "implausible"}, OlderText::fixed,
                       kNamesBeforeSchema16);
  h5::write_int_attribute(file.get(), "schema_version", 7);
}

// What collbench wrote at schema_version 2: no algorithm or protocol columns anywhere, nor the
// library's chosen ones, nor OSU's figure.
void make_schema_2(const fs::path& path) {
  const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
  for (const char* table : kTables)
    if (h5::link_exists(file.get(), table))
      rewrite_as_older(file.get(), table,
                       {"algorithm", "protocol", "chosen_algorithm", "chosen_protocol",
                        "chosen_channels", "alpha_at_bound", "osu_mean_us", "wrong_after_timing",
                        "implausible"},
                       OlderText::fixed, kNamesBeforeSchema16);
  if (h5::link_exists(file.get(), "headlines"))
    h5::check(H5Ldelete(file.get(), "headlines", H5P_DEFAULT), "H5Ldelete");
  h5::write_int_attribute(file.get(), "schema_version", 2);
}

TEST_F(ResultFileTest, ReadsBackEveryField) {
  const fs::path path = file("run.h5");
  write_example(path);
  const ResultFile result = read_result_file(path, true);

  EXPECT_TRUE(result.complete);
  EXPECT_EQ(result.schema_version, kSchemaVersion);
  Provenance expected = example_provenance();
  expected.text["end_utc"] = "2025-01-02T04:00:00Z";
  EXPECT_EQ(result.provenance.text, expected.text);
  EXPECT_EQ(result.provenance.integers, expected.integers);
  EXPECT_EQ(result.provenance.environment, expected.environment);
  EXPECT_EQ(result.provenance.hosts, expected.hosts);

  expect_same_topology(example_topology(), result.topology);
  const std::vector<PointResult> points = example_points();
  ASSERT_EQ(result.points.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    expect_same_point(points[i], result.points[i], true);
  }
}

TEST_F(ResultFileTest, EveryTextColumnIsFixedLengthUtf8) {
  const fs::path path = file("run.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  const h5::Handle opened = h5::open_file_read_only(path);
  int text_columns = 0;
  for (const char* table : kTables) {
    const h5::Handle dataset = h5::open_dataset(opened.get(), table);
    const h5::Handle stored = h5::own(H5Dget_type(dataset.get()), "H5Dget_type");
    for (int i = 0; i < H5Tget_nmembers(stored.get()); ++i) {
      const h5::Handle member = h5::own(H5Tget_member_type(stored.get(), i), "H5Tget_member_type");
      if (H5Tget_class(member.get()) != H5T_STRING) continue;
      ++text_columns;
      const std::string column = std::string(table) + "/" + h5::member_name(stored.get(), i);
      EXPECT_EQ(H5Tis_variable_str(member.get()), 0) << column;
      EXPECT_EQ(H5Tget_cset(member.get()), H5T_CSET_UTF8) << column;
    }
  }
  // points 13, topology 6, each model table 9 for its curve, the flags of fits and headlines,
  // the family of families and crossovers, and the families' rank counts
  EXPECT_EQ(text_columns, 13 + 6 + 4 * 9 + 2 + 2 + 1);
  EXPECT_EQ(text_column(path, "topology", "gpu_name")[0], "NVIDIA H100 80GB HBM3");
}

// Measurement rounds a time to the record's float32 microseconds once: a second rounding changes
// nothing, and the first moves a time by at most half a float32 step (2^-24 of it).
TEST(RecordedTime, IsTheNearestFloat32MicrosecondAndStaysSo) {
  for (double seconds : {1.234567891e-6, 9.87654321e-5, 0.3333333333, 12.345678901, -2.5e-7}) {
    const double recorded = as_recorded(seconds);
    EXPECT_EQ(as_recorded(recorded), recorded) << seconds;
    EXPECT_LE(std::abs(recorded - seconds), std::abs(seconds) * 0x1p-24) << seconds;
    EXPECT_EQ(static_cast<float>(recorded * 1e6), static_cast<float>(seconds * 1e6)) << seconds;
  }
}

// The samples and the start lateness are float32 microseconds in a contiguous matrix (schema 9),
// exactly the recorded times.
TEST_F(ResultFileTest, KeepsTimesAsFloat32Microseconds) {
  PointResult point = example_points()[0];
  point.samples.start_lateness_seconds = point.samples.per_rank_seconds;
  for (double& lateness : point.samples.start_lateness_seconds) lateness = as_recorded(-lateness / 7);
  const fs::path path = file("float32.h5");
  {
    ResultWriter writer(path, false, KeepSamples::all);
    writer.append_point(point);
    writer.finish("2025-01-02T04:00:00Z");
  }
  const h5::Handle opened = h5::open_file_read_only(path);
  const std::pair<const char*, const std::vector<double>*> matrices[] = {
      {"samples/000000", &point.samples.per_rank_seconds},
      {"start_lateness/000000", &point.samples.start_lateness_seconds}};
  for (const auto& [name, seconds] : matrices) {
    SCOPED_TRACE(name);
    const h5::Handle dataset = h5::open_dataset(opened.get(), name);
    const h5::Handle stored = h5::own(H5Dget_type(dataset.get()), "H5Dget_type");
    EXPECT_EQ(H5Tget_class(stored.get()), H5T_FLOAT);
    EXPECT_EQ(H5Tget_size(stored.get()), 4u);
    const h5::Handle creation = h5::own(H5Dget_create_plist(dataset.get()), "H5Dget_create_plist");
    EXPECT_EQ(H5Pget_layout(creation.get()), H5D_CONTIGUOUS);
    std::vector<float> microseconds(seconds->size());
    h5::read_all(dataset.get(), H5T_NATIVE_FLOAT, microseconds.data());
    for (std::size_t i = 0; i < seconds->size(); ++i)
      ASSERT_EQ(microseconds[i], static_cast<float>((*seconds)[i] * 1e6)) << i;
  }
  const PointResult read = read_result_file(path, true).points.at(0);
  EXPECT_EQ(read.samples.per_rank_seconds, point.samples.per_rank_seconds);
  EXPECT_EQ(read.samples.start_lateness_seconds, point.samples.start_lateness_seconds);
}

// Schema 7 and older kept text fixed-length; HDF5 converts neither way between the two, so the
// reader takes each layout on its own path.
TEST_F(ResultFileTest, ReadsSchema7FileWithFixedLengthText) {
  const fs::path path = file("v7.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  const ResultFile written = read_result_file(path, true);
  make_schema_7(path);
  EXPECT_EQ(text_column_class(path, "points", "collective"), "fixed") << "not a schema-7 table";
  {
    const h5::Handle file = h5::open_file_read_only(path);
    const h5::Handle points = h5::open_dataset(file.get(), "points");
    const h5::Handle stored = h5::own(H5Dget_type(points.get()), "H5Dget_type");
    ASSERT_GE(H5Tget_member_index(stored.get(), "time_ci_low_us"), 0)
        << "the median's interval is not under its name before schema 16";
  }

  const ResultFile result = read_result_file(path, true);
  EXPECT_EQ(result.schema_version, 7);
  EXPECT_TRUE(result.complete);
  expect_same_topology(example_topology(), result.topology);
  ASSERT_EQ(result.points.size(), written.points.size());
  for (std::size_t i = 0; i < written.points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    PointResult expected = written.points[i];
    expected.checks.after_timing = kNotChecked;  // not checked before schema 19, not zero
    expected.implausible = Implausible::no;      // nor judged
    expect_same_point(expected, result.points[i], true);
  }
  ASSERT_TRUE(result.models && written.models);
  expect_same_models(*written.models, *result.models);
}

// Schemas 8 to 20 kept text variable-length, in tables and attributes: read alike.
TEST_F(ResultFileTest, ReadsSchema20FileWithVariableLengthText) {
  const fs::path path = file("v20.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  const ResultFile written = read_result_file(path, true);
  {
    const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    for (const char* table : kTables)
      if (h5::link_exists(file.get(), table))
        rewrite_as_older(file.get(), table, {}, OlderText::variable);
    const h5::Handle utf8 = h5::utf8_string_type();
    const char* hosts[] = {"node-a", "node-b"};
    const hsize_t count[] = {2};
    const h5::Handle list = h5::own(H5Screate_simple(1, count, nullptr), "H5Screate_simple");
    const char* command_line = "collbench run -b 8 -e 128M --ops allreduce";
    const h5::Handle scalar = h5::own(H5Screate(H5S_SCALAR), "H5Screate");
    for (const auto& [name, space, data] :
         {std::tuple{"hosts", list.get(), static_cast<const void*>(hosts)},
          std::tuple{"command_line", scalar.get(), static_cast<const void*>(&command_line)}}) {
      h5::check(H5Adelete(file.get(), name), "H5Adelete");
      const h5::Handle attribute = h5::own(
          H5Acreate2(file.get(), name, utf8.get(), space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2");
      h5::check(H5Awrite(attribute.get(), utf8.get(), data), "H5Awrite");
    }
    h5::write_int_attribute(file.get(), "schema_version", 20);
  }
  EXPECT_EQ(text_column_class(path, "points", "collective"), "variable") << "not a schema-20 table";
  const ResultFile result = read_result_file(path, true);
  EXPECT_EQ(result.schema_version, 20);
  EXPECT_EQ(result.provenance.hosts, written.provenance.hosts);
  EXPECT_EQ(result.provenance.text, written.provenance.text);
  expect_same_topology(example_topology(), result.topology);
  ASSERT_EQ(result.points.size(), written.points.size());
  for (std::size_t i = 0; i < written.points.size(); ++i)
    expect_same_point(written.points[i], result.points[i], true);
  ASSERT_TRUE(result.models && written.models);
  expect_same_models(*written.models, *result.models);
}

// Before schema 22 a curve was named without its sync: it takes its points' (one run's latency
// points share one), and a bandwidth curve a barrier's, so that its fits still meet its points.
TEST_F(ResultFileTest, OlderFilesCurvesTakeTheirPointsSync) {
  const fs::path path = file("v21.h5");
  std::vector<PointResult> points = example_points();
  ASSERT_EQ(points[0].key.mode, Mode::latency);
  points[0].key.sync = SampleStart::window;
  ModelReport models = example_models();
  CurveFit latency = models.curves.front();
  latency.key = curve_key(points[0].key);
  models.curves.push_back(latency);
  {
    ResultWriter writer(path, false);
    writer.write_provenance(example_provenance());
    writer.write_topology(example_topology());
    for (const PointResult& point : points) writer.append_point(point);
    writer.write_models(models);
    writer.finish("2025-01-02T04:00:00Z");
  }
  {
    const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    for (const char* table : {"fits", "headlines", "families", "crossovers"})
      if (h5::link_exists(file.get(), table))
        rewrite_as_older(file.get(), table, {"sync"}, OlderText::fixed);
    h5::write_int_attribute(file.get(), "schema_version", 21);
  }
  const ResultFile result = read_result_file(path, false);
  ASSERT_TRUE(result.models);
  ASSERT_EQ(result.models->curves.size(), models.curves.size());
  for (const CurveFit& curve : result.models->curves)
    EXPECT_EQ(curve.key.sync, curve.key.mode == Mode::latency ? SampleStart::window
                                                              : SampleStart::barrier)
        << name(curve.key.mode);
  EXPECT_EQ(result.models->curves.back().key, curve_key(points[0].key));
  for (const FamilyReport& family : result.models->families)
    EXPECT_EQ(family.key.sync, SampleStart::barrier);
}

// The statistics and the per-rank medians come from every sample whatever the file keeps.
TEST_F(ResultFileTest, KeepsTheSamplesItsRetentionSays) {
  PointResult point = example_points()[0];
  point = example_point(point.key, {0, 1, 2, 3}, 2500, 1e-5);
  for (KeepSamples keep : {KeepSamples::all, KeepSamples::capped, KeepSamples::summary}) {
    SCOPED_TRACE(std::string(name(keep)));
    const fs::path path = file(std::string(name(keep)) + ".h5");
    {
      ResultWriter writer(path, false, keep);
      writer.append_point(point);
      writer.finish("2025-01-02T04:00:00Z");
    }
    const ResultFile result = read_result_file(path, true);
    ASSERT_EQ(result.points.size(), 1u);
    const PointResult& read = result.points[0];
    const RawSamples expected = kept_samples(point.samples, keep);
    EXPECT_EQ(read.samples.sample_count(), keep == KeepSamples::all      ? 2500u
                                           : keep == KeepSamples::capped ? kCappedSamples
                                                                         : 0u);
    EXPECT_EQ(read.samples.per_rank_seconds.size(), expected.per_rank_seconds.size());
    for (std::size_t i = 0; i < expected.per_rank_seconds.size(); ++i)
      ASSERT_NEAR(read.samples.per_rank_seconds[i], expected.per_rank_seconds[i], 1e-15);
    EXPECT_EQ(read.samples.round_starts, expected.round_starts);
    EXPECT_EQ(read.samples.world_ranks, point.samples.world_ranks);
    EXPECT_EQ(read.summary.samples, 2500u);
    ASSERT_EQ(read.rank_median_seconds.size(), point.rank_median_seconds.size());
    for (std::size_t r = 0; r < point.rank_median_seconds.size(); ++r)
      EXPECT_DOUBLE_EQ(read.rank_median_seconds[r], point.rank_median_seconds[r]);
  }
}

TEST_F(ResultFileTest, TuningIsAColumnOfThePointsTable) {
  const fs::path path = file("run.h5");
  write_example(path);
  // Empty where the library chose: the MPI point, and the UCX point's protocol.
  EXPECT_EQ(text_column(path, "points", "algorithm"),
            (std::vector<std::string>{"", "Ring", "CollNetDirect"}));
  EXPECT_EQ(text_column(path, "points", "protocol"), (std::vector<std::string>{"", "LL128", ""}));
}

TEST_F(ResultFileTest, RefusesTuningTooLongForItsColumn) {
  const fs::path path = file("run.h5");
  ResultWriter writer(path, false);
  PointResult point = example_points()[1];
  point.key.protocol = std::string(40, 'P');
  EXPECT_THROW(writer.append_point(point), std::invalid_argument);
}

TEST_F(ResultFileTest, ReadsBackEveryDatatypeAndReduceOp) {
  const fs::path path = file("run.h5");
  std::vector<PointResult> points;
  const PointResult base = example_points()[0];
  for (DataType type : all_datatypes()) {
    points.push_back(base);
    points.back().key.datatype = type;
  }
  for (ReduceOp op : all_reduce_ops()) {
    points.push_back(base);
    points.back().key.op = op;
  }
  {
    ResultWriter writer(path, false);
    for (const PointResult& point : points) writer.append_point(point);
    writer.finish("2025-01-02T04:00:00Z");
  }
  const ResultFile result = read_result_file(path, false);
  ASSERT_EQ(result.points.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(result.points[i].key.datatype, points[i].key.datatype) << name(points[i].key.datatype);
    EXPECT_EQ(result.points[i].key.op, points[i].key.op) << name(points[i].key.op);
  }
  EXPECT_EQ(text_column(path, "points", "datatype")[static_cast<int>(DataType::bfloat16)],
            "bfloat16");
}

TEST_F(ResultFileTest, ModelsKeepTheirTuning) {
  const fs::path path = file("run.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  const ResultFile result = read_result_file(path, false);
  ASSERT_TRUE(result.models);
  ASSERT_EQ(result.models->curves.size(), 2u);
  EXPECT_TRUE(result.models->curves[0].key == models.curves[0].key);
  EXPECT_EQ(result.models->curves[0].key.algorithm, "Ring");
  // The headline travels with its curve, every field of it.
  const auto& headline = result.models->curves[0].headline;
  ASSERT_TRUE(headline);
  EXPECT_DOUBLE_EQ(headline->alpha_s, 5e-6);
  EXPECT_DOUBLE_EQ(headline->alpha_ci.low, 4e-6);
  EXPECT_DOUBLE_EQ(headline->beta_ci.high, 1.1e-10);
  EXPECT_DOUBLE_EQ(headline->half_size_ci.high, 6e4);
  EXPECT_DOUBLE_EQ(headline->misfit, 0.012);
  EXPECT_EQ(headline->bandwidth_falls_at_bytes, 1u << 16);
  EXPECT_NEAR(headline->peak_beta_s_per_byte, 0.5e-10, 1e-22);
  EXPECT_EQ(headline->flags,
            (std::vector<std::string>{"misfit 1.2% above 1%", "alpha interval wider than alpha"}));
  EXPECT_EQ(result.models->curves[0].max_size_bytes, 1u << 20);
  EXPECT_FALSE(result.models->curves[1].headline);
  EXPECT_EQ(result.models->curves[0].key.protocol, "LL128");
  EXPECT_TRUE(result.models->curves[1].key == models.curves[1].key);
  EXPECT_EQ(result.models->curves[1].key.algorithm, "");
  ASSERT_EQ(result.models->families.size(), 1u);
  EXPECT_EQ(result.models->families[0].key.algorithm, "Ring");
  EXPECT_EQ(result.models->families[0].key.protocol, "LL128");
  EXPECT_EQ(result.models->families[0].rank_counts, (std::vector<int>{2, 4}));
  EXPECT_DOUBLE_EQ(result.models->families[0].families[0].held_out_rel_error, 0.034);
  ASSERT_EQ(result.models->crossovers.size(), 1u);
  EXPECT_EQ(result.models->crossovers[0].key.algorithm, "Ring");
  EXPECT_DOUBLE_EQ(result.models->crossovers[0].crossover_ranks_ci.low, 3.1);
  EXPECT_DOUBLE_EQ(result.models->crossovers[0].crossover_ranks_ci.high, 9.4);
  EXPECT_EQ(result.models->crossovers[0].max_ranks_measured, 4);
  EXPECT_EQ(text_column(path, "fits", "algorithm"), (std::vector<std::string>{"Ring", ""}));
  EXPECT_EQ(text_column(path, "families", "protocol"), (std::vector<std::string>{"LL128"}));
  EXPECT_EQ(text_column(path, "crossovers", "algorithm"), (std::vector<std::string>{"Ring"}));
}

TEST_F(ResultFileTest, ReadsSchema2FileWithoutTuningColumns) {
  const fs::path path = file("v2.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  make_schema_2(path);
  {
    const h5::Handle file = h5::open_file_read_only(path);
    const h5::Handle points = h5::open_dataset(file.get(), "points");
    const h5::Handle stored = h5::own(H5Dget_type(points.get()), "H5Dget_type");
    ASSERT_LT(H5Tget_member_index(stored.get(), "algorithm"), 0) << "not a schema-2 table";
    H5Eclear2(H5E_DEFAULT);
  }

  const ResultFile result = read_result_file(path, true);
  EXPECT_EQ(result.schema_version, 2);
  EXPECT_TRUE(result.complete);
  std::vector<PointResult> points = example_points();
  ASSERT_EQ(result.points.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    points[i].key.algorithm.clear();  // the library chose: all a schema-2 file can say
    points[i].key.protocol.clear();
    points[i].chosen = {};
    points[i].osu_mean_s = kNotApplicable;  // unknown before schema 14, not zero
    points[i].checks.after_timing = kNotChecked;  // not checked before schema 19, not zero
    points[i].implausible = Implausible::no;
    expect_same_point(points[i], result.points[i], true);
  }
  ASSERT_TRUE(result.models);
  ASSERT_EQ(result.models->curves.size(), 2u);
  for (const CurveFit& curve : result.models->curves) {
    EXPECT_EQ(curve.key.algorithm, "");
    EXPECT_EQ(curve.key.protocol, "");
    EXPECT_EQ(curve.key.backend, "nccl");
    EXPECT_EQ(curve.key.placement, Placement::intra);
    EXPECT_EQ(curve.key.nranks, 2);
    ASSERT_EQ(curve.segments.size(), 1u);
    EXPECT_DOUBLE_EQ(curve.segments[0].alpha_s, 5e-6);
    EXPECT_FALSE(curve.headline) << "a schema-2 file has no headlines";
  }
  ASSERT_EQ(result.models->families.size(), 1u);
  EXPECT_EQ(result.models->families[0].key.algorithm, "");
  EXPECT_EQ(result.models->families[0].rank_counts, (std::vector<int>{2, 4}));
  EXPECT_TRUE(std::isnan(result.models->families[0].families[0].held_out_rel_error))
      << "a schema-2 file has no held-out error: unknown, not zero";
  ASSERT_EQ(result.models->crossovers.size(), 1u);
  EXPECT_DOUBLE_EQ(*result.models->crossovers[0].crossover_ranks, 5.2);
  EXPECT_TRUE(std::isnan(result.models->crossovers[0].crossover_ranks_ci.low));
}

// Only the columns a newer schema added may be missing; any other is a broken file.
TEST_F(ResultFileTest, TableMissingAnOlderColumnIsInvalid) {
  const fs::path path = file("broken.h5");
  write_example(path);
  {
    const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    rewrite_as_older(file.get(), "points", {"placement"}, OlderText::fixed);
  }
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find("points"), std::string::npos) << message;
  EXPECT_NE(message.find("placement"), std::string::npos) << message;
}

// Files before schema 6 have no round_starts: one round. A list that does not fit the samples
// is a broken file.
TEST_F(ResultFileTest, RoundStartsAbsentAreOneRoundAndWrongOnesAreInvalid) {
  const fs::path path = file("rounds.h5");
  write_example(path);
  const auto edit_first_samples = [&](const std::function<void(hid_t)>& change) {
    const h5::Handle file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    const h5::Handle samples = h5::open_dataset(file.get(), "samples/000000");
    change(samples.get());
  };
  edit_first_samples([](hid_t samples) { ASSERT_GE(H5Adelete(samples, "round_starts"), 0); });
  EXPECT_EQ(read_result_file(path, true).points.at(0).samples.round_starts,
            (std::vector<std::size_t>{0}));
  edit_first_samples([](hid_t samples) {
    h5::write_int_list_attribute(samples, "round_starts", std::vector<int>{0, 1000000});
  });
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, true); });
  EXPECT_NE(message.find("round_starts"), std::string::npos) << message;
}

TEST_F(ResultFileTest, ReadsRankMediansWithoutSamples) {
  const fs::path path = file("run.h5");
  write_example(path);
  const ResultFile result = read_result_file(path, false);
  const std::vector<PointResult> points = example_points();
  ASSERT_EQ(result.points.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    expect_same_point(points[i], result.points[i], false);
  }
}

TEST_F(ResultFileTest, RankMediansAreNanWhereAWorldRankTookNoPart) {
  const fs::path path = file("run.h5");
  write_example(path);
  const h5::Handle file = h5::open_file_read_only(path);
  const h5::Handle medians = h5::open_dataset(file.get(), "rank_median_us");
  ASSERT_EQ(h5::extent(medians.get()), (std::vector<hsize_t>{3, 4}));
  std::vector<double> values(12);
  h5::read_all(medians.get(), H5T_NATIVE_DOUBLE, values.data());
  const std::vector<bool> took_part = {true,  true,  true,  true,   // world ranks 0-3
                                       false, false, true,  true,   // 2, 3
                                       false, true,  false, true};  // 3, 1
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(!std::isnan(values[i]), took_part[i]) << i;
  EXPECT_DOUBLE_EQ(values[9], 2.1 * 3e-4 * 1e6);  // world rank 1 is column 1 of point 2
}

TEST_F(ResultFileTest, CompleteOnlyAfterFinish) {
  const fs::path path = file("run.h5");
  ResultWriter writer(path, false);
  writer.append_point(example_points().front());
  const ResultFile running = read_result_file(path, false);
  EXPECT_FALSE(running.complete);
  EXPECT_EQ(running.points.size(), 1u);
  writer.finish("2025-01-02T04:00:00Z");
  EXPECT_TRUE(read_result_file(path, false).complete);
}

TEST_F(ResultFileTest, UnfinishedWriterLeavesIncompleteFile) {
  const fs::path path = file("run.h5");
  {
    ResultWriter writer(path, false);
    writer.append_point(example_points().front());
  }
  const ResultFile result = read_result_file(path, false);
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.points.size(), 1u);
}

// Who wrote a killed run's file: this writer, or one before schema 10, which did not count the
// finished rows: a row was finished once numbered.
enum class Writer { current, before_schema_10 };

// The first `finished` example points by a writer that never finished, then /points grown by
// one row, as a kill after growing the table leaves it; `tear` may then write that row's chunk.
void kill_after_growing_points(const fs::path& path, std::size_t finished, Writer writer,
                               const std::function<void(hid_t file, hid_t points)>& tear = {}) {
  {
    ResultWriter killed(path, false);
    for (std::size_t i = 0; i < finished; ++i) killed.append_point(example_points().at(i));
  }
  const h5::Handle killed = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
  const h5::Handle points = h5::open_dataset(killed.get(), "points");
  if (writer == Writer::before_schema_10) {
    h5::check(H5Adelete(points.get(), "finished_rows"), "H5Adelete");
    h5::write_int_attribute(killed.get(), "schema_version", 9);
  }
  const hsize_t grown[] = {finished + 1};
  h5::set_extent(points.get(), grown);
  if (tear) tear(killed.get(), points.get());
}

// What a kill between growing the table and recording the row's chunk leaves: a row of zeros,
// whose point_id 0 is its row number when it is the first.
TEST_F(ResultFileTest, IgnoresHalfWrittenLastRowOfKilledRun) {
  for (Writer writer : {Writer::current, Writer::before_schema_10})
    for (std::size_t finished : {0, 3}) {
      const fs::path path = file(fmt::format("run{}-{}.h5", static_cast<int>(writer), finished));
      kill_after_growing_points(path, finished, writer);
      const ResultFile result = read_result_file(path, false);
      EXPECT_FALSE(result.complete);
      EXPECT_EQ(result.points.size(), finished);
    }
}

TEST_F(ResultFileTest, CountsEachPointFinishedOnlyOnceItsRowIsWhole) {
  const fs::path path = file("run.h5");
  ResultWriter writer(path, false);
  const auto finished_rows = [&] {
    const h5::Handle opened = h5::open_file_read_only(path);
    const h5::Handle points = h5::open_dataset(opened.get(), "points");
    return h5::read_int_attribute(points.get(), "finished_rows");
  };
  EXPECT_EQ(finished_rows(), 0);
  for (std::size_t i = 0; i < 3; ++i) {
    writer.append_point(example_points().at(i));
    EXPECT_EQ(finished_rows(), static_cast<std::int64_t>(i + 1));
  }
}

// HDF5 1.10 reads a global heap, where variable-length data lives, without checking it: a damaged
// one crashed every reader. A file holds none, whatever it stores.
TEST_F(ResultFileTest, HoldsNoGlobalHeap) {
  const fs::path path = file("run.h5");
  const ModelReport models = example_models();
  write_example(path, &models);
  EXPECT_EQ(contents(path).find("GCOL"), std::string::npos);
}

TEST_F(ResultFileTest, RefusesMoreFinishedRowsThanTheTableHolds) {
  const fs::path path = file("run.h5");
  kill_after_growing_points(path, 2, Writer::current, [](hid_t, hid_t points) {
    h5::update_int_attribute(points, "finished_rows", 4);
  });
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find("/points: finished_rows is 4 in a table of 3 rows"), std::string::npos)
      << message;
}

// What a kill during the flush after a row was appended can leave: the row on disk, numbered,
// but not counted finished. The row is not a finished point; the ones before it are. A reader
// that counted numbered rows would take it for one.
TEST_F(ResultFileTest, ANumberedRowIsNoPointUntilFinishedRowsCountsIt) {
  for (Writer writer : {Writer::current, Writer::before_schema_10}) {
    const fs::path path = file(fmt::format("run{}.h5", static_cast<int>(writer)));
    const std::int64_t point_id = writer == Writer::current ? 3 : kUnnumberedRow;
    kill_after_growing_points(path, 3, writer, [point_id](hid_t, hid_t points) {
      write_point_row(points, 3, example_points()[2], point_id);
    });
    const ResultFile result = read_result_file(path, false);
    EXPECT_FALSE(result.complete);
    ASSERT_EQ(result.points.size(), 3u);
    expect_same_point(example_points()[2], result.points[2], false);
  }
}

// The end of allocation that the superblock (version 0, what the writer's earliest format bound
// makes) records: the file's bytes past it are not the file's to a reader.
constexpr std::size_t kSuperblockEndOfAllocation = 40;

std::uint64_t recorded_end_of_allocation(const fs::path& path) {
  const std::string bytes = contents(path);
  EXPECT_EQ(bytes.compare(0, 8, "\x89HDF\r\n\x1a\n"), 0);
  EXPECT_EQ(bytes.at(8), 0) << "superblock version";
  std::uint64_t end = 0;
  std::memcpy(&end, bytes.data() + kSuperblockEndOfAllocation, sizeof end);
  return end;
}

void record_end_of_allocation(const fs::path& path, std::uint64_t end) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(kSuperblockEndOfAllocation);
  file.write(reinterpret_cast<const char*>(&end), sizeof end);
}

// What a kill inside the flush after a point's rank medians opened a new chunk can leave: the
// chunk written and indexed, the superblock's end of allocation still the one before it (the
// blocks of a flush reach the disk in no fixed order). Reading that chunk fails with "addr
// overflow"; the points finished before it must all read. 64 points fill the first chunk.
TEST_F(ResultFileTest, NeverReadsRankMediansPastTheFinishedPoints) {
  const fs::path path = file("run.h5");
  constexpr hsize_t kFinished = 64;
  {
    ResultWriter killed(path, false);
    for (hsize_t i = 0; i < kFinished; ++i) killed.append_point(example_points().at(i % 3));
  }
  const std::uint64_t end_before = recorded_end_of_allocation(path);
  {
    const h5::Handle killed = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    const h5::Handle medians = h5::open_dataset(killed.get(), "rank_median_us");
    const hsize_t world_size = h5::extent(medians.get()).at(1);
    const hsize_t grown[] = {kFinished + 1, world_size};
    h5::set_extent(medians.get(), grown);
    const std::vector<double> row(world_size, 1.0);
    const hsize_t start[] = {kFinished, 0};
    const hsize_t count[] = {1, world_size};
    h5::write_block(medians.get(), H5T_NATIVE_DOUBLE, start, count, row.data());
  }
  ASSERT_GT(recorded_end_of_allocation(path), end_before) << "the new chunk was not allocated";
  record_end_of_allocation(path, end_before);
  {
    const h5::Handle torn = h5::open_file_read_only(path);
    const h5::Handle medians = h5::open_dataset(torn.get(), "rank_median_us");
    std::vector<double> every_row((kFinished + 1) * h5::extent(medians.get()).at(1));
    const std::string message = thrown_message<std::runtime_error>(
        [&] { h5::read_all(medians.get(), H5T_NATIVE_DOUBLE, every_row.data()); });
    ASSERT_NE(message.find("addr overflow"), std::string::npos)
        << "not the torn layout this test means to make: " << message;
  }
  const ResultFile result = read_result_file(path, false);
  EXPECT_FALSE(result.complete);
  ASSERT_EQ(result.points.size(), kFinished);
  for (hsize_t i = 0; i < kFinished; ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    expect_same_point(example_points().at(i % 3), result.points[i], false);
  }
}

TEST_F(ResultFileTest, RefusesExistingFileWithoutOverwrite) {
  const fs::path path = file("run.h5");
  std::ofstream(path) << "keep me";
  const std::string message =
      thrown_message<std::runtime_error>([&] { ResultWriter(path, false); });
  EXPECT_NE(message.find(path.string() + " exists; pass --force to overwrite"), std::string::npos)
      << message;
  EXPECT_EQ(contents(path), "keep me");
}

TEST_F(ResultFileTest, OverwritesWhenAsked) {
  const fs::path path = file("run.h5");
  std::ofstream(path) << "replace me";
  {
    ResultWriter writer(path, true);
    writer.finish("2025-01-02T04:00:00Z");
  }
  const ResultFile result = read_result_file(path, false);
  EXPECT_TRUE(result.complete);
  EXPECT_TRUE(result.points.empty());
}

TEST_F(ResultFileTest, NamesMissingDirectory) {
  const fs::path directory = file("no-such-directory");
  const std::string message =
      thrown_message<std::runtime_error>([&] { ResultWriter(directory / "run.h5", false); });
  EXPECT_NE(message.find(directory.string()), std::string::npos) << message;
}

TEST_F(ResultFileTest, RefusesNameTooLongAndKeepsEarlierPoints) {
  const fs::path path = file("run.h5");
  ResultWriter writer(path, false);
  std::vector<PointResult> points = example_points();
  writer.append_point(points[0]);
  points[1].key.backend = "a-backend-name-too-long-for-the-table";
  EXPECT_THROW(writer.append_point(points[1]), std::invalid_argument);
  writer.append_point(points[2]);
  writer.finish("2025-01-02T04:00:00Z");
  const ResultFile result = read_result_file(path, true);
  ASSERT_EQ(result.points.size(), 2u);
  expect_same_point(points[2], result.points[1], true);
}

TEST_F(ResultFileTest, MissingFileIsInvalid) {
  const fs::path path = file("missing.h5");
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
}

TEST_F(ResultFileTest, NonHdf5FileIsInvalid) {
  const fs::path path = file("notes.h5");
  std::ofstream(path) << "size count type redop root time algbw busbw #wrong\n";
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not an HDF5 file"), std::string::npos) << message;
}

TEST_F(ResultFileTest, Hdf5FileWithoutSchemaIsInvalid) {
  const fs::path path = file("foreign.h5");
  h5::create_file(path, false);
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not a collbench result file"), std::string::npos) << message;
}

TEST_F(ResultFileTest, NewerSchemaVersionIsInvalid) {
  const fs::path path = file("future.h5");
  {
    const h5::Handle future = h5::create_file(path, false);
    h5::write_string_attribute(future.get(), "schema", kSchemaName);
    h5::write_int_attribute(future.get(), "schema_version", kSchemaVersion + 1);
  }
  const std::string message =
      thrown_message<InvalidResultFile>([&] { read_result_file(path, false); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("newer"), std::string::npos) << message;
}

LinkPoint example_link_point(int source, int destination, LinkMode mode, std::size_t size) {
  LinkPoint point;
  point.source_rank = source;
  point.destination_rank = destination;
  point.source_host = fmt::format("node{}", source);
  point.destination_host = fmt::format("node{}", destination);
  point.kind = LinkKind::inter;
  point.transport = "tcp/eth0,rc_mlx5/mlx5_0:1";
  point.mode = mode;
  point.size_bytes = size;
  point.messages_per_sample = mode == LinkMode::latency ? 1 : 4;
  point.stop_reason = StopReason::max_time;
  point.rounds = 3;
  for (int i = 0; i < 7; ++i)
    point.samples_seconds.push_back(as_recorded(1e-6 * (10 + i) + 1e-9 * size));
  point.summary = summarize(point.samples_seconds);
  return point;
}

TEST_F(ResultFileTest, LinksReadBackWithSamplesFitsAndSlowHosts) {
  const fs::path path = file("links.h5");
  std::vector<LinkPoint> written{example_link_point(0, 1, LinkMode::latency, 8),
                                 example_link_point(1, 0, LinkMode::bandwidth, 1 << 20),
                                 example_link_point(0, 1, LinkMode::bidirectional, 1 << 20)};
  LinkAnalysis analysis;
  analysis.fits.push_back({.first_rank = 0, .second_rank = 1, .first_host = "node0",
                           .second_host = "node1", .kind = LinkKind::inter,
                           .transport = "tcp/eth0", .alpha_bytes = 8, .alpha_us = 10,
                           .largest_bytes = 1 << 20, .bandwidth_GBps = 0.06,
                           .forward_GBps = 0.07, .backward_GBps = 0.06,
                           .bidirectional_GBps = 0.12, .slow = true});
  analysis.slow_hosts.push_back({"node1", LinkKind::inter, 0.06, 1.4});
  {
    ResultWriter writer(path, false);
    for (const LinkPoint& point : written) writer.append_link_point(point);
    writer.write_link_analysis(analysis, 0.25);
    writer.finish("2026-12-02T00:00:00Z");
  }
  const ResultFile result = read_result_file(path, true);
  EXPECT_EQ(result.schema_version, kSchemaVersion);
  EXPECT_TRUE(result.points.empty());
  ASSERT_TRUE(result.links.has_value());
  ASSERT_EQ(result.links->points.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    const LinkPoint& read = result.links->points[i];
    const LinkPoint& expected = written[i];
    EXPECT_EQ(read.source_rank, expected.source_rank);
    EXPECT_EQ(read.destination_host, expected.destination_host);
    EXPECT_EQ(read.transport, expected.transport);
    EXPECT_EQ(read.mode, expected.mode);
    EXPECT_EQ(read.size_bytes, expected.size_bytes);
    EXPECT_EQ(read.messages_per_sample, expected.messages_per_sample);
    EXPECT_EQ(read.rounds, 3);
    EXPECT_EQ(read.stop_reason, StopReason::max_time);
    EXPECT_EQ(read.summary.samples, 7u);
    EXPECT_NEAR(read.summary.median, expected.summary.median, 1e-18);
    ASSERT_EQ(read.samples_seconds.size(), 7u);
    for (std::size_t j = 0; j < 7; ++j)
      EXPECT_EQ(read.samples_seconds[j], expected.samples_seconds[j]);
  }
  ASSERT_TRUE(result.links->analysis.has_value());
  EXPECT_DOUBLE_EQ(result.links->shortfall, 0.25);
  ASSERT_EQ(result.links->analysis->fits.size(), 1u);
  const LinkFit& fit = result.links->analysis->fits[0];
  EXPECT_EQ(fit.second_host, "node1");
  EXPECT_EQ(fit.alpha_bytes, 8u);
  EXPECT_DOUBLE_EQ(fit.backward_GBps, 0.06);
  EXPECT_TRUE(fit.slow);
  ASSERT_EQ(result.links->analysis->slow_hosts.size(), 1u);
  EXPECT_EQ(result.links->analysis->slow_hosts[0].name, "node1");
  EXPECT_DOUBLE_EQ(result.links->analysis->slow_hosts[0].median_GBps, 1.4);
}

TEST_F(ResultFileTest, LinkBoundsReadBackAndTheNextReplacesThem) {
  const fs::path path = file("bounded.h5");
  write_example(path);
  const LinkBound bound{.point_id = 1,
                        .kind = LinkKind::inter,
                        .links = 6,
                        .alpha_us = 265,
                        .bandwidth_GBps = 0.053,
                        .algorithm = "rabenseifner",
                        .predicted_us = 60787.2,
                        .measured_us = 117605.7};
  {
    const h5::Handle file = h5::open_file_for_writing(path, "the link bounds");
    write_link_bound_table(file.get(), {.bounds = {bound, bound}, .links_file = "old.h5",
                                        .links_start_utc = "2026-12-03T06:00:00Z"});
    write_link_bound_table(file.get(), {.bounds = {bound}, .links_file = "links.h5",
                                        .links_start_utc = "2026-12-03T06:46:12Z"});
  }
  const ResultFile result = read_result_file(path, false);
  ASSERT_TRUE(result.link_bounds.has_value());
  EXPECT_EQ(result.link_bounds->links_file, "links.h5");
  EXPECT_EQ(result.link_bounds->links_start_utc, "2026-12-03T06:46:12Z");
  ASSERT_EQ(result.link_bounds->bounds.size(), 1u);
  const LinkBound& read = result.link_bounds->bounds[0];
  EXPECT_EQ(read.point_id, 1u);
  EXPECT_EQ(read.kind, LinkKind::inter);
  EXPECT_EQ(read.links, 6);
  EXPECT_EQ(read.algorithm, "rabenseifner");
  EXPECT_DOUBLE_EQ(read.alpha_us, 265);
  EXPECT_DOUBLE_EQ(read.bandwidth_GBps, 0.053);
  EXPECT_DOUBLE_EQ(read.ratio(), bound.ratio());

  const fs::path plain = file("plain.h5");
  write_example(plain);
  EXPECT_FALSE(read_result_file(plain, false).link_bounds.has_value());
}

// Each moment rewrites the table whole: a run killed after its start keeps the start's readings.
TEST_F(ResultFileTest, TheHostProbeReadsBackAsEachMomentLeftIt) {
  const fs::path path = file("probe.h5");
  HostProbe probe;
  probe.readings = {{ProbeMoment::start, 4096, 120.5}, {ProbeMoment::start, 16384, 140.25}};
  {
    ResultWriter writer(path, false);
    writer.write_topology(example_topology());
    writer.write_host_probe(probe);
  }
  EXPECT_EQ(read_result_file(path, false).host_probe.readings.size(), 2u);
  {
    ResultWriter writer(path, true);
    writer.write_topology(example_topology());
    writer.write_host_probe(probe);
    probe.readings.push_back({ProbeMoment::end, 4096, 90.0});
    writer.write_host_probe(probe);
    writer.finish("2025-01-02T04:00:00Z");
  }
  const HostProbe read = read_result_file(path, false).host_probe;
  ASSERT_EQ(read.readings.size(), 3u);
  EXPECT_EQ(read.readings[2].moment, ProbeMoment::end);
  EXPECT_EQ(read.readings[1].size_bytes, 16384u);
  EXPECT_DOUBLE_EQ(read.readings[1].copy_GBps, 140.25);
}

TEST_F(ResultFileTest, StragglersReadBackWithTheirThresholdsAndFitReplacesThem) {
  const fs::path path = file("stragglers.h5");
  const Straggler rank{.rank = 2, .host = "node1", .kind = StragglerKind::starts_late,
                       .ranks = 4, .points = 9, .points_last = 8, .samples = 1800,
                       .times_last = 1500, .chance = 0.25, .p_value = 1.2e-4,
                       .median_lag_s = 310e-6};
  Straggler host = rank;
  host.rank = Straggler::kHostRow;
  host.kind = StragglerKind::finishes_last;
  host.chance = 0.5;
  {
    ResultWriter writer(path, false);
    writer.write_topology(example_topology());
    writer.write_stragglers({.named = {rank, host}, .points = 9,
                             .thresholds = {.alpha = 0.02, .margin = {.share = 0.3, .floor_s = 2e-6}}});
    writer.finish("2025-01-02T04:00:00Z");
  }
  const ResultFile result = read_result_file(path, false);
  ASSERT_TRUE(result.stragglers.has_value());
  EXPECT_EQ(result.stragglers->points, 9);
  EXPECT_DOUBLE_EQ(result.stragglers->thresholds.alpha, 0.02);
  EXPECT_DOUBLE_EQ(result.stragglers->thresholds.margin.share, 0.3);
  EXPECT_DOUBLE_EQ(result.stragglers->thresholds.margin.floor_s, 2e-6);
  ASSERT_EQ(result.stragglers->named.size(), 2u);
  const Straggler& read = result.stragglers->named[0];
  EXPECT_EQ(read.rank, 2);
  EXPECT_EQ(read.host, "node1");
  EXPECT_EQ(read.kind, StragglerKind::starts_late);
  EXPECT_EQ(read.ranks, 4);
  EXPECT_EQ(read.points, 9);
  EXPECT_EQ(read.points_last, 8);
  EXPECT_EQ(read.samples, 1800u);
  EXPECT_EQ(read.times_last, 1500u);
  EXPECT_DOUBLE_EQ(read.chance, 0.25);
  EXPECT_DOUBLE_EQ(read.p_value, 1.2e-4);
  EXPECT_NEAR(read.median_lag_s, 310e-6, 1e-15);
  EXPECT_EQ(result.stragglers->named[1].rank, Straggler::kHostRow);
  EXPECT_EQ(result.stragglers->named[1].kind, StragglerKind::finishes_last);

  write_straggler_table(h5::open_file_for_writing(path, "the stragglers").get(),
                        {.named = {}, .points = 9, .thresholds = {}});
  const ResultFile fitted = read_result_file(path, false);
  ASSERT_TRUE(fitted.stragglers.has_value());
  EXPECT_TRUE(fitted.stragglers->named.empty());

  const fs::path plain = file("plain.h5");
  write_example(plain);
  EXPECT_FALSE(read_result_file(plain, false).stragglers.has_value());
}

TEST_F(ResultFileTest, ALinksRunKilledBeforeItsAnalysisKeepsItsFinishedPoints) {
  const fs::path path = file("killed-links.h5");
  {
    ResultWriter writer(path, false);
    writer.append_link_point(example_link_point(0, 1, LinkMode::latency, 8));
    writer.append_link_point(example_link_point(0, 1, LinkMode::latency, 64));
    // Left open: the run died after two points.
    const ResultFile result = read_result_file(path, false);
    EXPECT_FALSE(result.complete);
    ASSERT_TRUE(result.links.has_value());
    EXPECT_EQ(result.links->points.size(), 2u);
    EXPECT_FALSE(result.links->analysis.has_value());
  }
}

TEST_F(ResultFileTest, ARunFileHasNoLinks) {
  const fs::path path = file("run.h5");
  write_example(path);
  EXPECT_FALSE(read_result_file(path, false).links.has_value());
}

}  // namespace
}  // namespace collbench
