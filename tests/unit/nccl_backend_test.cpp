// The NCCL backend on a real GPU, one rank: device validation against the host pattern, every
// collective, type and op, CUDA graphs, event timing and provenance. Skipped, saying so, where
// no GPU is usable; ci/gpu-check runs them on one.
#include "backends/nccl/nccl_backend.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "backends/hierarchical_communicator.h"
#include "backends/nccl/nccl_communicator.h"
#include "collectives/pattern.h"

namespace collbench {
namespace {

// A one-rank world through the same environment `run --np 1` gives its child.
std::unique_ptr<Backend> one_rank_backend(const BackendOptions& options = {}) {
  for (const auto& [name, value] : nccl_local_launch_environment(1, false))
    setenv(name.c_str(), value.c_str(), 1);
  for (const char* name : {"COLLBENCH_RANK", "COLLBENCH_LOCAL_RANK"}) setenv(name, "0", 1);
  for (const char* name : {"COLLBENCH_NRANKS", "COLLBENCH_LOCAL_SIZE"}) setenv(name, "1", 1);
  return make_nccl_backend(options);
}

class NcclBackend : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (nccl_usable()) backend_ = one_rank_backend().release();
  }
  static void TearDownTestSuite() {
    delete backend_;
    backend_ = nullptr;
  }
  void SetUp() override {
    if (!backend_) GTEST_SKIP() << "needs a GPU: no CUDA device is usable on this machine";
  }
  Communicator& comm() { return backend_->world(); }

  // Runs `call` once through `comm` and counts wrong result elements on the device.
  static std::uint64_t run_and_check(Communicator& comm, const CollectiveCall& call) {
    const PatternRule rule(PatternCase{call.kind, call.datatype, call.op, 0, 1, call.shape});
    const std::size_t element = size_of(call.datatype);
    auto send = comm.allocate(std::max(call.shape.send_count, call.shape.recv_count) * element);
    auto recv = comm.allocate(call.shape.recv_count * element);
    comm.fill_input(rule, *send, 0);
    auto timer = comm.make_timer();
    timer->start();
    comm.prepare(call, *send, *recv, 1)->enqueue();
    timer->stop_seconds();
    return call.in_place ? comm.count_wrong(rule, *send, comm.in_place_result_offset(call))
                         : comm.count_wrong(rule, *recv, 0);
  }

  static Backend* backend_;
};
Backend* NcclBackend::backend_ = nullptr;

TEST_F(NcclBackend, DeviceFillMatchesTheHostPatternAndFindsAPlantedError) {
  for (DataType type : all_datatypes()) {
    SCOPED_TRACE(std::string(name(type)));
    const std::size_t element = size_of(type);
    const Shape shape = shape_for(CollectiveKind::allreduce, 4099 * element, element, 1);
    const PatternRule rule(PatternCase{CollectiveKind::allreduce, type, ReduceOp::max, 0, 1, shape});
    auto buffer = comm().allocate(shape.send_count * element);
    comm().fill_input(rule, *buffer, 0);
    if (has_host_type(type)) {
      std::vector<std::byte> device(shape.send_count * element), host(device.size());
      buffer->download(device, 0);
      fill_input(rule, host);
      EXPECT_EQ(device, host);
    }
    EXPECT_EQ(comm().count_wrong(rule, *buffer, 0), 0u);  // one rank: the result is the input
    const std::vector<std::byte> planted(element, std::byte{0x7B});
    buffer->upload(planted, 1000 * element);
    EXPECT_EQ(comm().count_wrong(rule, *buffer, 0), 1u);
  }
}

// allreduce_hier runs as `run` runs it: composed over the world by HierarchicalCommunicator
// (a plain NcclCommunicator refuses it, and this test did, on the first GPU it met).
TEST_F(NcclBackend, EveryCollectiveTypeAndOpIsExactOutOfPlaceAndInPlace) {
  HierarchicalCommunicator hierarchy(comm());
  for (CollectiveKind kind : all_collectives())
    for (DataType type : all_datatypes()) {
      Communicator& runner = kind == CollectiveKind::allreduce_hier ? hierarchy : comm();
      if (!backend_->supports(type)) continue;
      for (ReduceOp op : all_reduce_ops())
        for (bool in_place : {false, true}) {
          const Shape shape = shape_for(kind, 1 << 16, size_of(type), 1);
          const CollectiveCall call{kind, type, op, shape, in_place};
          EXPECT_EQ(run_and_check(runner, call), 0u)
              << name(kind) << " " << name(type) << " " << name(op) << (in_place ? " in place" : "");
        }
    }
}

TEST_F(NcclBackend, CudaGraphBatchesGiveTheSameResults) {
  auto graphs = one_rank_backend({.cuda_graphs = true});
  const Shape shape = shape_for(CollectiveKind::allreduce, 1 << 20, sizeof(float), 1);
  EXPECT_EQ(run_and_check(graphs->world(),
                          {CollectiveKind::allreduce, DataType::float32, ReduceOp::sum, shape, false}),
            0u);
  EXPECT_EQ(graphs->provenance().at("cuda_graphs"), "yes");
}

// -R 1 and -R 2 on one rank, which is one node: its window is NCCL's symmetric memory.
TEST_F(NcclBackend, RegisteredBuffersCarryEveryCollective) {
  for (auto registration : {BufferRegistration::local, BufferRegistration::symmetric}) {
    auto backend = one_rank_backend({.buffer_registration = registration});
    Communicator& world = backend->world();
    for (CollectiveKind kind : {CollectiveKind::allreduce, CollectiveKind::allgather,
                                CollectiveKind::reduce_scatter}) {
      const Shape shape = shape_for(kind, 1 << 16, sizeof(float), 1);
      const CollectiveCall call{kind, DataType::float32, ReduceOp::sum, shape, false};
      const PatternRule rule(PatternCase{kind, call.datatype, call.op, 0, 1, shape});
      auto send = world.allocate(shape.send_count * sizeof(float));
      auto recv = world.allocate(shape.recv_count * sizeof(float));
      const auto registered = world.register_buffers(*send, *recv);  // dropped before the buffers
      ASSERT_NE(registered, nullptr) << name(registration);
      world.fill_input(rule, *send, 0);
      auto timer = world.make_timer();
      timer->start();
      world.launch(call, *send, *recv);
      timer->stop_seconds();
      EXPECT_EQ(world.count_wrong(rule, *recv, 0), 0u) << name(registration) << " " << name(kind);
    }
  }
  EXPECT_EQ(comm().register_buffers(*comm().allocate(8), *comm().allocate(8)), nullptr);
}

// -R 0 allocates as nccl-tests 2.19.6 does, with ncclMemAlloc: its memory takes a symmetric
// window, which cudaMalloc's does not (cuMemRetainAllocationHandle fails on it).
TEST_F(NcclBackend, BuffersAreNcclMemAllocsAsNcclTestsAllocatesThem) {
  auto send = comm().allocate(1 << 12);
  auto recv = comm().allocate(1 << 12);
  auto symmetric = one_rank_backend({.buffer_registration = BufferRegistration::symmetric});
  EXPECT_NO_THROW(symmetric->world().register_buffers(*send, *recv));
}

TEST_F(NcclBackend, EventsTimeTheOperationOnTheGpu) {
  const Shape shape = shape_for(CollectiveKind::allreduce, 64 << 20, sizeof(float), 1);
  const CollectiveCall call{CollectiveKind::allreduce, DataType::float32, ReduceOp::sum, shape, false};
  auto send = comm().allocate(shape.send_count * sizeof(float));
  auto recv = comm().allocate(shape.recv_count * sizeof(float));
  auto one = comm().prepare(call, *send, *recv, 1);
  auto ten = comm().prepare(call, *send, *recv, 10);
  auto timer = comm().make_timer();
  timer->start();  // untimed: NCCL sets the algorithm's channels up at its first use
  one->enqueue();
  timer->stop_seconds();
  timer->start();
  one->enqueue();
  const double single = timer->stop_seconds();
  timer->start();
  ten->enqueue();
  const double batch = timer->stop_seconds();
  EXPECT_GT(single, 0);
  EXPECT_GT(batch, 3 * single);  // ten 64 MiB copies take longer than one
  EXPECT_LT(batch, 1.0);
}

// A wait that found the stream busy leaves no error for the next kernel launch's check: CUDA
// documents that a query's cudaErrorNotReady is not the thread's last error (Programming Guide,
// "Error Checking"). The stand-in plays that; on a GPU this checks the driver agrees.
TEST_F(NcclBackend, AWaitOnABusyStreamLeavesNoErrorForTheNextLaunch) {
  auto& world = static_cast<nccl::NcclCommunicator&>(comm());
  constexpr std::size_t kLarge = std::size_t{256} << 20;  // long enough to be found busy
  auto from = world.allocate(kLarge);
  auto to = world.allocate(kLarge);
  world.copy(*to, *from, kLarge);
  world.wait();
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  const Shape shape = shape_for(CollectiveKind::allreduce, 1 << 10, sizeof(float), 1);
  const PatternRule rule(
      PatternCase{CollectiveKind::allreduce, DataType::float32, ReduceOp::sum, 0, 1, shape});
  EXPECT_NO_THROW(world.fill_input(rule, *to, 0));
}

TEST_F(NcclBackend, ControlPlaneAndSplitsWorkOnOneRank) {
  EXPECT_EQ(comm().sum_over_ranks(41), 41);
  int value = 7;
  comm().broadcast(std::as_writable_bytes(std::span(&value, 1)), 0);
  EXPECT_EQ(value, 7);
  double all = 0;
  const double mine = 2.5;
  comm().gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(&all, 1)), 0);
  EXPECT_EQ(all, 2.5);
  EXPECT_EQ(comm().split_node()->size(), 1);
  EXPECT_EQ(backend_->tuned_split(Tuning{"Ring", "Simple"}, 0, 0)->size(), 1);
}

// Beside an overlap load the collective's kernels must get SMs first.
TEST_F(NcclBackend, TheCollectivesStreamHasTheGreatestPriority) {
  int least = 0, greatest = 0, priority = 1;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  ASSERT_EQ(cudaStreamGetPriority(static_cast<nccl::NcclCommunicator&>(comm()).stream(), &priority),
            cudaSuccess);
  EXPECT_EQ(priority, greatest);
  EXPECT_LT(greatest, least);
}

TEST_F(NcclBackend, ProvenanceNamesTheLibraryRuntimeAndGpu) {
  const auto provenance = backend_->provenance();
  EXPECT_EQ(provenance.at("nccl_version_header"), provenance.at("nccl_version_library"));
  EXPECT_FALSE(provenance.at("cuda_driver_version").empty());
  EXPECT_EQ(provenance.at("bootstrap"), "local launcher (--np)");
  EXPECT_FALSE(backend_->device().name.empty());
  EXPECT_FALSE(backend_->device().bus_id.empty());
}

// After an abort (the watchdog's, or an asynchronous error's) the communicators are freed by
// NCCL: tearing the backend down must not synchronise or destroy them. In a child process, since
// an abort is for the whole process.
TEST_F(NcclBackend, TearingDownAfterAnAbortLeavesTheCommunicatorsAlone) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto aborted = one_rank_backend();
        auto split = aborted->tuned_split(Tuning{}, 0, 0);
        aborted->abort_communication();
        split.reset();
        aborted.reset();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace collbench
