#include "communicator.h"

#include <vector>

#include "benches/collectives/pattern.h"

namespace collbench {
namespace {

class LaunchLoop final : public Batch {
 public:
  LaunchLoop(Communicator& comm, const CollectiveCall& call, Buffer& send, Buffer& recv, int count)
      : comm_(comm), call_(call), send_(send), recv_(recv), count_(count) {}
  void enqueue() override {
    for (int i = 0; i < count_; ++i) comm_.launch(call_, send_, recv_);
  }

 private:
  Communicator& comm_;
  CollectiveCall call_;
  Buffer& send_;
  Buffer& recv_;
  int count_;
};

}  // namespace

std::unique_ptr<Batch> Communicator::prepare(const CollectiveCall& call, Buffer& send,
                                             Buffer& recv, int count) {
  return std::make_unique<LaunchLoop>(*this, call, send, recv, count);
}

void Communicator::fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes) {
  std::vector<std::byte> staging(rule.input_count() * size_of(rule.datatype()));
  collbench::fill_input(rule, staging);
  send.upload(staging, offset_bytes);
}

std::uint64_t Communicator::count_wrong(const PatternRule& rule, const Buffer& result,
                                        std::size_t offset_bytes) {
  std::vector<std::byte> staging(rule.result_count() * size_of(rule.datatype()));
  result.download(staging, offset_bytes);
  return collbench::count_wrong(rule, staging);
}

std::unique_ptr<Communicator> Backend::tuned_world(const Tuning&) {
  throw std::invalid_argument("the " + name() + " backend has no algorithm or protocol choice");
}

}  // namespace collbench
