#include "harness/store/result_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "harness/store/h5.h"

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
      point.samples.per_rank_seconds.push_back(scale * (1.0 + 0.001 * sample + 0.1 * column));
  for (std::size_t column = 0; column < world_ranks.size(); ++column)
    point.rank_median_seconds.push_back(scale * (2.0 + 0.1 * column));
  return point;
}

std::vector<PointResult> example_points() {
  PointResult world = example_point({.backend = "mpi",
                                     .collective = CollectiveKind::allreduce,
                                     .datatype = DataType::float32,
                                     .op = ReduceOp::sum,
                                     .placement = "world",
                                     .nranks = 4,
                                     .mode = Mode::latency,
                                     .in_place = false,
                                     .size_bytes = 1 << 20,
                                     .count = 1 << 18},
                                    {0, 1, 2, 3}, 5, 1e-5);
  world.wrong = 0;
  world.stop_reason = StopReason::converged;

  PointResult intra = example_point({.backend = "nccl",
                                     .collective = CollectiveKind::allgather,
                                     .datatype = DataType::int8,
                                     .op = ReduceOp::sum,
                                     .placement = "intra",
                                     .nranks = 2,
                                     .mode = Mode::bandwidth,
                                     .in_place = true,
                                     .size_bytes = 4096,
                                     .count = 2048},
                                    {2, 3}, 3, 2e-6);
  intra.stop_reason = StopReason::max_time;
  intra.ops_per_sample = 50;

  // Enough samples for the chunked, compressed layout; columns not in world-rank order.
  PointResult inter = example_point({.backend = "ucx",
                                     .collective = CollectiveKind::reduce_scatter,
                                     .datatype = DataType::float64,
                                     .op = ReduceOp::max,
                                     .placement = "inter",
                                     .nranks = 2,
                                     .mode = Mode::latency,
                                     .in_place = false,
                                     .size_bytes = 8 << 20,
                                     .count = 1 << 19},
                                    {3, 1}, 2000, 3e-4);
  inter.wrong = 7;
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
  EXPECT_EQ(expected.wrong, actual.wrong);
  EXPECT_EQ(expected.stop_reason, actual.stop_reason);
  EXPECT_EQ(expected.ops_per_sample, actual.ops_per_sample);

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
}

void write_example(const fs::path& path) {
  ResultWriter writer(path, false);
  writer.write_provenance(example_provenance());
  writer.write_topology(example_topology());
  for (const PointResult& point : example_points()) writer.append_point(point);
  writer.finish("2025-01-02T04:00:00Z");
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

  const std::vector<RankTopology> topology = example_topology();
  ASSERT_EQ(result.topology.size(), topology.size());
  for (std::size_t i = 0; i < topology.size(); ++i) {
    EXPECT_EQ(result.topology[i].rank, topology[i].rank);
    EXPECT_EQ(result.topology[i].host, topology[i].host);
    EXPECT_EQ(result.topology[i].local_rank, topology[i].local_rank);
    EXPECT_EQ(result.topology[i].node_index, topology[i].node_index);
    EXPECT_EQ(result.topology[i].cpu_affinity, topology[i].cpu_affinity);
    EXPECT_EQ(result.topology[i].gpu_name, topology[i].gpu_name);
    EXPECT_EQ(result.topology[i].gpu_bus_id, topology[i].gpu_bus_id);
    EXPECT_EQ(result.topology[i].nic, topology[i].nic);
  }

  const std::vector<PointResult> points = example_points();
  ASSERT_EQ(result.points.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    expect_same_point(points[i], result.points[i], true);
  }
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

// What a kill between growing the table and recording the row's chunk leaves: a row of zeros.
TEST_F(ResultFileTest, IgnoresHalfWrittenLastRowOfKilledRun) {
  const fs::path path = file("run.h5");
  {
    ResultWriter writer(path, false);
    for (const PointResult& point : example_points()) writer.append_point(point);
  }
  {
    const h5::Handle killed = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen");
    const h5::Handle points = h5::open_dataset(killed.get(), "points");
    const hsize_t grown[] = {4};
    h5::set_extent(points.get(), grown);
  }
  const ResultFile result = read_result_file(path, false);
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.points.size(), 3u);
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
  points[1].key.placement = "a-placement-name-too-long-for-the-table";
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

}  // namespace
}  // namespace collbench
