#pragma once
// A library of one rank for in-process tests of the measurement loop: its collectives copy the
// input to the output, as every collective over one rank does, and take the time each launch
// is scripted to take on the library's own clock, which nothing else moves; it can drop writes
// or fail where the script says.
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "backends/communicator.h"

namespace collbench {

class OneRankBuffer final : public Buffer {
 public:
  explicit OneRankBuffer(std::size_t bytes) : bytes_(bytes) {}
  std::byte* data() override { return bytes_.data(); }
  std::size_t bytes() const override { return bytes_.size(); }
  void upload(std::span<const std::byte> host, std::size_t offset) override {
    std::memcpy(bytes_.data() + offset, host.data(), host.size());
  }
  void download(std::span<std::byte> host, std::size_t offset) const override {
    std::memcpy(host.data(), bytes_.data() + offset, host.size());
  }
  std::span<std::byte> host_bytes() override { return bytes_; }
  std::span<const std::byte> host_bytes() const override { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

class OneRankLibrary final : public Communicator {
 public:
  // The seconds launch number `launch` (from 0, over the library's life) takes.
  std::function<double(int launch)> op_seconds = [](int) { return 1e-6; };
  // Whether launch `launch` writes its output (a library that drops writes does not).
  std::function<bool(int launch)> writes = [](int) { return true; };
  // Whether launch `launch` fails, as a library's asynchronous error surfaces.
  std::function<bool(int launch)> fails = [](int) { return false; };
  // Sees every launch, as it is made.
  std::function<void(const CollectiveCall& call)> on_launch = [](const CollectiveCall&) {};
  double clock_s = 0;
  int launches = 0;

  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    return std::make_unique<OneRankBuffer>(bytes);
  }
  std::unique_ptr<Timer> make_timer() override { return std::make_unique<ClockTimer>(*this); }
  void launch(const CollectiveCall& call, Buffer& send, Buffer& recv) override {
    const int launch = launches++;
    on_launch(call);
    if (fails(launch)) throw CommunicationFault("the library failed mid-collective");
    if (writes(launch) && !call.in_place)
      std::memcpy(recv.data(), send.data(), call.shape.send_count * size_of(call.datatype));
    clock_s += op_seconds(launch);
  }
  void barrier() override {}
  std::unique_ptr<Communicator> split(int, int) override { return nullptr; }
  std::unique_ptr<Communicator> split_node() override { return nullptr; }

 protected:
  void broadcast_bytes(std::span<std::byte>, int) override {}
  void gather_bytes(std::span<const std::byte> mine, std::span<std::byte> all, int) override {
    std::memcpy(all.data(), mine.data(), mine.size());
  }
  void sum_int64(std::span<std::int64_t>) override {}
  void max_double(std::span<double>) override {}
  void send_bytes(std::span<const std::byte>, int) override {
    throw std::logic_error("one rank has no peer");
  }
  void receive_bytes(std::span<std::byte>, int) override {
    throw std::logic_error("one rank has no peer");
  }

 private:
  class ClockTimer final : public Timer {
   public:
    explicit ClockTimer(const OneRankLibrary& library) : library_(library) {}
    void start() override { started_s_ = library_.clock_s; }
    double stop_seconds() override { return library_.clock_s - started_s_; }

   private:
    const OneRankLibrary& library_;
    double started_s_ = 0;
  };
};

class OneRankBackend final : public Backend {
 public:
  std::string name() const override { return "fake"; }
  std::string version() const override { return "1"; }
  Communicator& world() override { return library; }
  void abort_job(int) override { throw std::logic_error("one rank has no job to abort"); }

  OneRankLibrary library;
};

}  // namespace collbench
