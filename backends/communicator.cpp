#include "communicator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "backends/control_integrity.h"
#include "backends/host_memory_load.h"
#include "collectives/pattern.h"

namespace collbench {
namespace {

class LaunchLoop final : public Batch {
 public:
  LaunchLoop(std::function<void()> launches, int count)
      : launches_(std::move(launches)), count_(count) {}
  void enqueue() override {
    for (int i = 0; i < count_; ++i) launches_();
  }

 private:
  std::function<void()> launches_;
  int count_;
};

}  // namespace

std::unique_ptr<Batch> Communicator::prepare(const CollectiveCall& call, Buffer& send,
                                             Buffer& recv, int count) {
  return batch([this, call, &send, &recv] { launch(call, send, recv); }, count);
}

std::unique_ptr<Batch> Communicator::batch(std::function<void()> launches, int count) {
  return std::make_unique<LaunchLoop>(std::move(launches), count);
}

std::unique_ptr<OverlapLoad> Communicator::make_load(LoadKind kind, const LoadSite& site) {
  if (kind != LoadKind::memory)
    throw BackendUnavailable(fmt::format("the {} overlap load runs on GPUs only", name(kind)));
  return make_host_memory_load(site);
}

void Communicator::poison(const PatternRule& rule, Buffer& result) {
  const std::size_t bytes = rule.poisoned_count() * size_of(rule.datatype());
  if (const auto host = result.host_bytes(); !host.empty()) {
    fill_poison(rule, host.first(bytes));
    return;
  }
  std::vector<std::byte> staging(bytes);
  fill_poison(rule, staging);
  result.upload(staging, 0);
}

void Communicator::copy(Buffer& to, const Buffer& from, std::size_t bytes) {
  const auto source = from.host_bytes();
  const auto target = to.host_bytes();
  if (source.empty() || target.empty())
    throw std::logic_error("Communicator::copy: device memory needs its backend's copy");
  std::memcpy(target.data(), source.data(), bytes);
}

// A fresh staging vector of 16 MiB costs thousands of first-touch page faults each time; host
// memory needs none.
void Communicator::fill_input(const PatternRule& rule, Buffer& send, std::size_t offset_bytes) {
  const std::size_t bytes = rule.input_count() * size_of(rule.datatype());
  if (const auto host = send.host_bytes(); !host.empty()) {
    collbench::fill_input(rule, host.subspan(offset_bytes, bytes));
    return;
  }
  std::vector<std::byte> staging(bytes);
  collbench::fill_input(rule, staging);
  send.upload(staging, offset_bytes);
}

std::uint64_t Communicator::count_wrong(const PatternRule& rule, const Buffer& result,
                                        std::size_t offset_bytes) {
  const std::size_t bytes = rule.result_count() * size_of(rule.datatype());
  if (const auto host = result.host_bytes(); !host.empty())
    return collbench::count_wrong(rule, host.subspan(offset_bytes, bytes));
  std::vector<std::byte> staging(bytes);
  result.download(staging, offset_bytes);
  return collbench::count_wrong(rule, staging);
}

void Communicator::broadcast(std::span<std::byte> data, int root) {
  std::vector<std::byte> message =
      rank() == root ? seal(data) : std::vector<std::byte>(data.size() + kChecksumBytes);
  broadcast_bytes(message, root);
  if (rank() != root && !unseal(message, data))
    throw ControlCorruption(fmt::format(
        "a broadcast of {} bytes from rank {} arrived with a wrong checksum", data.size(), root));
}

void Communicator::gather(std::span<const std::byte> mine, std::span<std::byte> all, int root) {
  const std::vector<std::byte> sealed = seal(mine);
  const std::size_t sealed_bytes = sealed.size();
  std::vector<std::byte> messages(rank() == root ? sealed_bytes * std::size_t(size()) : 0);
  gather_bytes(sealed, messages, root);
  if (rank() != root) return;
  for (int r = 0; r < size(); ++r)
    if (!unseal(std::span(messages).subspan(sealed_bytes * r, sealed_bytes),
                all.subspan(mine.size() * r, mine.size())))
      throw ControlCorruption(fmt::format(
          "rank {}'s {} bytes of a gather arrived with a wrong checksum", r, mine.size()));
}

long long Communicator::sum_over_ranks(long long value) {
  std::int64_t values[] = {value, sum_twin(value)};
  sum_int64(values);
  if (!sums_agree(values[0], values[1], size()))
    throw ControlCorruption("a sum over ranks disagrees with its twin reduction");
  return values[0];
}

void Communicator::max_over_ranks(std::span<double> values) {
  constexpr int kHolderBits = 21;  // a holder count per value, as one digit of one sum
  if (values.size() > kMaxValuesAtOnce || size() >= (1 << kHolderBits))
    throw std::logic_error("max_over_ranks: too many values or ranks for its holder count");
  std::array<double, kMaxValuesAtOnce> mine{};
  std::copy(values.begin(), values.end(), mine.begin());
  max_double(values);
  // One sum, twinned, checks both that every rank got the same maxima (the sum of their
  // checksums is p times this rank's) and that each is some rank's own value.
  std::int64_t held = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (mine[i] == values[i]) held += std::int64_t{1} << (kHolderBits * i);
  const auto view = static_cast<std::int64_t>(checksum(std::as_bytes(values)));
  std::int64_t sums[] = {held, sum_twin(held), view, sum_twin(view)};
  sum_int64(sums);
  if (!sums_agree(sums[0], sums[1], size()) || !sums_agree(sums[2], sums[3], size()))
    throw ControlCorruption("a sum over ranks disagrees with its twin reduction");
  if (static_cast<std::uint64_t>(sums[2]) !=
      static_cast<std::uint64_t>(view) * static_cast<std::uint64_t>(size()))
    throw ControlCorruption("ranks received different maxima over ranks");
  for (std::size_t i = 0; i < values.size(); ++i)
    if (((sums[0] >> (kHolderBits * i)) & ((std::int64_t{1} << kHolderBits) - 1)) == 0)
      throw ControlCorruption(fmt::format("a maximum over ranks ({}) is no rank's value", values[i]));
}

void Communicator::send(std::span<const std::byte> data, int peer) {
  send_bytes(seal(data), peer);
}

void Communicator::receive(std::span<std::byte> data, int peer) {
  std::vector<std::byte> message(data.size() + kChecksumBytes);
  receive_bytes(message, peer);
  if (!unseal(message, data))
    throw ControlCorruption(fmt::format(
        "a message of {} bytes from rank {} arrived with a wrong checksum", data.size(), peer));
}

std::unique_ptr<Communicator> Backend::tuned_split(const Tuning&, int, int) {
  throw std::invalid_argument("the " + name() + " backend has no algorithm or protocol choice");
}

}  // namespace collbench
