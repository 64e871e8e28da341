#include "backends/host_memory_load.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace collbench {
namespace {

// 3 × 32 MiB: past the last-level cache of the machines collbench runs on, so the loop's
// rate is the memory's, as a step's large tensors see it.
constexpr std::size_t kElements = std::size_t{32} << 17;
// What sizing streams to learn the rate: 24 MiB, a few milliseconds.
constexpr std::size_t kCalibrationElements = std::size_t{1} << 20;
constexpr std::size_t kPassElements = 1024;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class HostMemoryLoad final : public OverlapLoad {
 public:
  explicit HostMemoryLoad(const LoadSite& site)
      : a_(kElements, 0.0), b_(kElements, 1.0), c_(kElements, 2.0) {
    // mpirun binds ranks to the lowest cores first, so the highest ones are the spare ones.
    const auto cores = static_cast<int>(std::thread::hardware_concurrency());
    if (2 * site.ranks_per_node <= cores) core_ = cores - 1 - site.local_rank;
    placement_ = core_ >= 0 ? fmt::format("a thread on core {}", core_)
                            : fmt::format("a thread sharing the ranks' cores (no spare core: {} "
                                          "ranks on {} cores)",
                                          site.ranks_per_node, cores);
    worker_ = std::jthread([this](std::stop_token stop) { work(stop); });
  }

  ~HostMemoryLoad() override {
    worker_.request_stop();
    generation_.fetch_add(1);
    generation_.notify_one();
  }

  // A pass is kPassElements, timed as a share of a longer run.
  void size_for(double seconds) override {
    elements_ = kCalibrationElements;
    start();
    const double one_pass =
        finish_seconds() * static_cast<double>(kPassElements) / kCalibrationElements;
    elements_ = kPassElements * static_cast<std::size_t>(passes_for(seconds, one_pass));
  }

  void start() override {
    started_ = now_seconds();
    done_.store(false);
    generation_.fetch_add(1);
    generation_.notify_one();
  }

  double finish_seconds() override {
    done_.wait(false);
    return finished_ - started_;
  }

  std::string_view placement() const override { return placement_; }

 private:
  void work(const std::stop_token& stop) {
    if (core_ >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(core_, &set);
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    unsigned seen = 0;
    for (;;) {
      generation_.wait(seen);
      seen = generation_.load();
      if (stop.stop_requested()) return;
      stream(elements_);
      finished_ = now_seconds();
      done_.store(true);
      done_.notify_one();
    }
  }

  // Cyclic from where the last unit stopped, so a short unit never finds its data in cache.
  void stream(std::size_t elements) {
    constexpr double kScalar = 3.0;
    while (elements > 0) {
      const std::size_t run = std::min(elements, kElements - offset_);
      for (std::size_t i = offset_; i < offset_ + run; ++i) a_[i] = b_[i] + kScalar * c_[i];
      offset_ = (offset_ + run) % kElements;
      elements -= run;
    }
  }

  std::vector<double> a_, b_, c_;
  std::size_t offset_ = 0;
  std::size_t elements_ = kPassElements;
  int core_ = -1;
  std::string placement_;
  std::atomic<unsigned> generation_{0};
  std::atomic<bool> done_{true};
  double started_ = 0;
  double finished_ = 0;
  std::jthread worker_;  // last: it starts once everything it reads exists
};

}  // namespace

std::unique_ptr<OverlapLoad> make_host_memory_load(const LoadSite& site) {
  return std::make_unique<HostMemoryLoad>(site);
}

}  // namespace collbench
