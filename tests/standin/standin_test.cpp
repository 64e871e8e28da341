// The stand-in's own checks: each misuse a GPU would punish only with a crash, a hang or a
// wrong number aborts, naming the call and the argument. Linked against the stand-in itself.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cstring>
#include <vector>

#include "reduction.h"

namespace {

class StandIn : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ncclUniqueId id;
    ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
    ASSERT_EQ(ncclCommInitRank(&comm_, 1, id, 0), ncclSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&device_, kBytes), cudaSuccess);
  }
  void TearDown() override {
    cudaFree(large_);
    cudaFree(device_);
    cudaStreamDestroy(stream_);
    ncclCommDestroy(comm_);
  }

  // Device memory a memset of which takes milliseconds on the host: the stream it is queued on is
  // still busy when the next call is made.
  void* large() {
    if (!large_) {
      EXPECT_EQ(cudaMalloc(&large_, kLarge), cudaSuccess);
    }
    return large_;
  }

  static constexpr std::size_t kBytes = 4096;
  static constexpr std::size_t kLarge = std::size_t{256} << 20;
  void* large_ = nullptr;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* device_ = nullptr;
};

TEST_F(StandIn, ACollectiveMovesRealData) {
  std::vector<float> host(kBytes / sizeof(float), 2.5f), back(host.size());
  ASSERT_EQ(cudaMemcpyAsync(device_, host.data(), kBytes, cudaMemcpyHostToDevice, stream_),
            cudaSuccess);
  ASSERT_EQ(ncclAllReduce(device_, device_, host.size(), ncclFloat32, ncclSum, comm_, stream_),
            ncclSuccess);
  ASSERT_EQ(cudaMemcpyAsync(back.data(), device_, kBytes, cudaMemcpyDeviceToHost, stream_),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(back, host);
}

TEST_F(StandIn, ABufferPastItsAllocationIsNamed) {
  EXPECT_DEATH(ncclAllReduce(device_, device_, kBytes, ncclFloat32, ncclSum, comm_, stream_),
               "ncclAllReduce: sendbuff = .* overruns its cudaMalloc of 4096 bytes by 12288 bytes");
}

TEST_F(StandIn, HostMemoryIsNoDeviceBuffer) {
  std::vector<float> host(16);
  EXPECT_DEATH(ncclAllReduce(host.data(), device_, 16, ncclFloat32, ncclSum, comm_, stream_),
               "ncclAllReduce: sendbuff = .* is not device memory");
}

TEST_F(StandIn, AHostReadOfDeviceMemoryIsNamed) {
  EXPECT_DEATH((void)*static_cast<volatile char*>(device_), "host access to device memory");
}

TEST_F(StandIn, AnInPlaceAllgatherAtTheWrongOffsetIsNamed) {
  auto* buffer = static_cast<char*>(device_);  // one rank: in place means sendbuff == recvbuff
  EXPECT_DEATH(ncclAllGather(buffer + 2, buffer, 4, ncclUint8, comm_, stream_),
               "ncclAllGather: sendbuff .* and recvbuff .* overlap, but not in place");
}

TEST_F(StandIn, ACommunicatorUsedAfterAbortIsNamed) {
  EXPECT_DEATH(
      {
        ncclCommAbort(comm_);
        ncclAllReduce(device_, device_, 1, ncclFloat32, ncclSum, comm_, stream_);
      },
      "ncclAllReduce: comm .* was aborted by ncclCommAbort");
}

TEST_F(StandIn, ASynchronousCallInsideACaptureIsNamed) {
  EXPECT_DEATH(
      {
        cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
        ncclAllReduce(device_, device_, 1, ncclFloat32, ncclSum, comm_, stream_);
        cudaStreamSynchronize(stream_);
      },
      "cudaStreamSynchronize: stream .* is being captured into a graph");
}

// Fork and join: a stream that waits on an event recorded in a capture joins it; the graph,
// launched on the origin, replays both streams' work in order.
TEST_F(StandIn, AStreamThatWaitsOnACapturedEventJoinsTheCapture) {
  cudaStream_t other = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  const std::vector<std::int32_t> host{1, 2, 3, 4};
  ASSERT_EQ(cudaMemcpyAsync(device_, host.data(), 16, cudaMemcpyHostToDevice, stream_),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cudaEventRecord(fork, stream_);
  cudaStreamWaitEvent(other, fork, 0);
  ASSERT_EQ(ncclAllReduce(device_, device_, 4, ncclInt32, ncclSum, comm_, other), ncclSuccess);
  ASSERT_EQ(cudaMemsetAsync(device_, 0, 16, other), cudaSuccess);
  cudaEventRecord(join, other);
  cudaStreamWaitEvent(stream_, join, 0);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(other), cudaSuccess);  // out of the capture again, and idle
  std::vector<std::int32_t> back(4);
  cudaMemcpyAsync(back.data(), device_, 16, cudaMemcpyDeviceToHost, stream_);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(back, host);  // captured, not run
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  cudaMemcpyAsync(back.data(), device_, 16, cudaMemcpyDeviceToHost, stream_);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(back, std::vector<std::int32_t>(4, 0));  // the other stream's work, replayed
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(other);
}

// A fork not joined back fails the capture: cudaErrorStreamCaptureUnjoined, no graph, and every
// stream out of capture (CUDA Programming Guide, cross-stream dependencies and events).
TEST_F(StandIn, ACaptureWithAnUnjoinedForkFails) {
  cudaStream_t other = nullptr;
  cudaEvent_t fork = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cudaEventRecord(fork, stream_);
  cudaStreamWaitEvent(other, fork, 0);
  ASSERT_EQ(cudaMemsetAsync(device_, 0, 16, other), cudaSuccess);
  cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(this);
  EXPECT_EQ(cudaStreamEndCapture(stream_, &graph), cudaErrorStreamCaptureUnjoined);
  EXPECT_EQ(graph, nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureUnjoined);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  ASSERT_EQ(cudaStreamIsCapturing(other, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  cudaEventDestroy(fork);
  cudaStreamDestroy(other);
}

// cudaFree waits for every stream of the device, not the legacy one only (CUDA Programming
// Guide: it "causes the GPU to synchronize across all executing CUDA streams").
TEST_F(StandIn, FreeingWaitsForEveryStreamOfTheDevice) {
  void* freed = nullptr;
  ASSERT_EQ(cudaMalloc(&freed, 16), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(large(), 1, kLarge, stream_), cudaSuccess);  // a non-blocking stream
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaSuccess);
}

// cudaMemset of device memory returns before it is done, on the legacy stream, which
// cudaDeviceSynchronize waits for (cuda_runtime_api.h, API synchronisation behaviour).
TEST_F(StandIn, AMemsetOfDeviceMemoryReturnsBeforeItIsDone) {
  ASSERT_EQ(cudaMemset(large(), 1, kLarge), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaErrorNotReady);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaSuccess);
}

// A query's cudaErrorNotReady is no error of the thread's (CUDA Programming Guide, "Error
// Checking"; driver_types.h: "This result is not actually an error"): the next launch's
// cudaGetLastError does not see it.
TEST_F(StandIn, ABusyStreamsQueryIsNoErrorOfTheThread) {
  ASSERT_EQ(cudaMemsetAsync(large(), 1, kLarge, stream_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaSuccess);
}

TEST_F(StandIn, AnIntervalOverTwoStreamsIsNamed) {
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  cudaEventRecord(start, nullptr);
  cudaEventRecord(end, stream_);
  cudaStreamSynchronize(stream_);
  cudaDeviceSynchronize();
  float ms = 0;
  EXPECT_DEATH(cudaEventElapsedTime(&ms, start, end),
               "cudaEventElapsedTime: start .* end .* on "
               "stream .*: the interval spans two streams");
}

TEST_F(StandIn, AStreamOfAnotherDeviceIsNamed) {
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_DEATH(cudaStreamQuery(stream_),
               "cudaStreamQuery: stream .* belongs to device 0, the "
               "current device is 1");
  cudaSetDevice(0);
}

TEST_F(StandIn, AnUnbalancedGroupEndIsNamed) {
  EXPECT_DEATH(ncclGroupEnd(), "ncclGroupEnd: no ncclGroupStart is open");
}

// NCCL rounds each step of a half-precision sum to half: 2048 + 1 is 2048 (ties to even), and
// so is 2048 + 1 + 1, where a sum in float rounded once would be 2050.
TEST_F(StandIn, MemoryFreedWhileRegisteredIsNamed) {
  void* handle = nullptr;
  ASSERT_EQ(ncclCommRegister(comm_, device_, kBytes, &handle), ncclSuccess);
  EXPECT_DEATH(cudaFree(device_),
               "cudaFree: .* of 4096 bytes is still registered with 1 communicator");
  ASSERT_EQ(ncclCommDeregister(comm_, handle), ncclSuccess);
}

TEST_F(StandIn, ASymmetricWindowTakesOnlyNcclMemAllocsMemory) {
  ncclWindow_t window = nullptr;
  EXPECT_EQ(ncclCommWindowRegister(comm_, device_, kBytes, &window, NCCL_WIN_COLL_SYMMETRIC),
            ncclUnhandledCudaError);
  EXPECT_EQ(window, nullptr);
  EXPECT_NE(std::strstr(ncclGetLastError(comm_), "cudaMalloc memory, not cuMem's"), nullptr);
  void* cumem = nullptr;
  ASSERT_EQ(ncclMemAlloc(&cumem, kBytes), ncclSuccess);
  ASSERT_EQ(ncclCommWindowRegister(comm_, cumem, kBytes, &window, NCCL_WIN_COLL_SYMMETRIC),
            ncclSuccess);
  EXPECT_DEATH(ncclCommDeregister(comm_, window), "ncclCommDeregister: handle .* is no "
                                                  "ncclCommRegister of comm .* \\(a window");
  ASSERT_EQ(ncclCommWindowDeregister(comm_, window), ncclSuccess);
  EXPECT_DEATH(ncclMemFree(device_), "ncclMemFree: .* is an allocation of cudaMalloc, not of "
                                     "ncclMemAlloc");
  EXPECT_EQ(ncclMemFree(cumem), ncclSuccess);
}

TEST_F(StandIn, ACommunicatorsEndReleasesItsRegistrations) {
  void* handle = nullptr;
  ASSERT_EQ(ncclCommRegister(comm_, device_, kBytes, &handle), ncclSuccess);
  ASSERT_EQ(ncclCommDestroy(comm_), ncclSuccess);
  comm_ = nullptr;
  EXPECT_EQ(cudaFree(device_), cudaSuccess);
  device_ = nullptr;
}

TEST(StandInReduction, HalfSumsRoundEveryStep) {
  const std::uint16_t h2048 = 0x6800, h1 = 0x3C00;
  const std::byte* inputs[3] = {reinterpret_cast<const std::byte*>(&h2048),
                                reinterpret_cast<const std::byte*>(&h1),
                                reinterpret_cast<const std::byte*>(&h1)};
  std::uint16_t out = 0;
  standin::reduce(ncclFloat16, ncclSum, 3, inputs, reinterpret_cast<std::byte*>(&out), 1);
  EXPECT_EQ(out, h2048);
}

// avg on integers is a sum divided by p; on floats, each input times 1/p rounded to the type.
TEST(StandInReduction, AverageIsNcclsPreMultipliedSumOnFloatsAndADivisionOnIntegers) {
  const std::int32_t a = 7, b = 8;
  const std::byte* ints[2] = {reinterpret_cast<const std::byte*>(&a),
                              reinterpret_cast<const std::byte*>(&b)};
  std::int32_t mean = 0;
  standin::reduce(ncclInt32, ncclAvg, 2, ints, reinterpret_cast<std::byte*>(&mean), 1);
  EXPECT_EQ(mean, 7);
  const float x = 1.0f, y = 1.0f, z = 1.0f;
  const std::byte* floats[3] = {reinterpret_cast<const std::byte*>(&x),
                                reinterpret_cast<const std::byte*>(&y),
                                reinterpret_cast<const std::byte*>(&z)};
  float third = 0;
  standin::reduce(ncclFloat32, ncclAvg, 3, floats, reinterpret_cast<std::byte*>(&third), 1);
  EXPECT_EQ(third, 3 * (1.0f / 3));  // 1/3 rounded, summed three times: not 1
}

}  // namespace
