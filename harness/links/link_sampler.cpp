#include "harness/links/link_sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>

#include "harness/measure/fault_guard.h"
#include "harness/plan/point.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

enum Tag : std::uint64_t { kData = 1, kAcknowledge = 2, kDecision = 3 };

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One point's exchange, seen from one end.
class LinkEnd {
 public:
  LinkEnd(PointToPoint& link, int partner, std::span<std::byte> out, std::span<std::byte> in)
      : link_(link), partner_(partner), out_(out), in_(in) {}

  // One sample: the source's time per message; the destination's is not used.
  double sample(LinkMode mode, bool source, int window) {
    CommunicationWait wait("a link's messages");
    const Clock::time_point start = Clock::now();
    switch (mode) {
      case LinkMode::latency:
        if (source) {
          link_.send(partner_, out_, kData);
          link_.receive(in_, kData);
        } else {
          link_.receive(in_, kData);
          link_.send(partner_, out_, kData);
        }
        return seconds_since(start) / 2;
      case LinkMode::bandwidth:
        if (source) link_.transfer(partner_, out_, window, {}, 0, kData);
        else link_.transfer(partner_, {}, 0, in_, window, kData);
        break;
      case LinkMode::bidirectional:
        link_.transfer(partner_, out_, window, in_, window, kData);
        break;
    }
    // The window is done when the destination has it all.
    if (source) link_.receive(acknowledgement_, kAcknowledge);
    else link_.send(partner_, acknowledgement_, kAcknowledge);
    return seconds_since(start) / window;
  }

  // The source tells whether to go on; both return its answer.
  bool go_on(bool source, bool decision) {
    CommunicationWait wait("a link's stopping decision");
    std::byte flag{static_cast<unsigned char>(decision)};
    if (source) link_.send(partner_, std::span(&flag, 1), kDecision);
    else link_.receive(std::span(&flag, 1), kDecision);
    return flag != std::byte{0};
  }

 private:
  PointToPoint& link_;
  int partner_;
  std::span<std::byte> out_;
  std::span<std::byte> in_;
  std::byte acknowledgement_[8]{};
};

}  // namespace

int window_messages(LinkMode mode, std::size_t size_bytes) {
  if (mode == LinkMode::latency) return 1;
  const std::size_t fill = (kWindowBytes + size_bytes - 1) / std::max<std::size_t>(size_bytes, 1);
  return static_cast<int>(std::clamp<std::size_t>(fill, 1, kMostWindowMessages));
}

std::vector<LinkPoint> measure_link(PointToPoint& link, int self, int partner, bool first,
                                    const LinkPlan& plan) {
  const std::size_t largest =
      plan.sizes.empty() ? 0 : *std::max_element(plan.sizes.begin(), plan.sizes.end());
  const std::unique_ptr<MessageBuffer> out = link.allocate(largest, std::byte{0x5a});
  const std::unique_ptr<MessageBuffer> in = link.allocate(largest, std::byte{0});
  std::vector<LinkPoint> sourced;
  for (const std::size_t size : plan.sizes)
    for (const LinkMode mode : plan.modes)
      for (const bool forward : {true, false}) {
        if (!forward && mode != LinkMode::bandwidth) continue;  // one point covers both ways
        const bool source = first == forward;
        const int window = window_messages(mode, size);
        LinkEnd end(link, partner, out->bytes().first(size), in->bytes().first(size));
        for (int i = 0; i < plan.sampling.warmup; ++i) end.sample(mode, source, window);

        LinkPoint point;
        point.source_rank = source ? self : partner;
        point.destination_rank = source ? partner : self;
        point.mode = mode;
        point.size_bytes = size;
        point.messages_per_sample = window;
        StoppingState stopping(plan.sampling.stopping, std::nullopt);
        const Clock::time_point start = Clock::now();
        for (;;) {
          // Rounded where measured, as run's samples: every statistic is one of the record's.
          const double seconds = as_recorded(end.sample(mode, source, window));
          note_sample_seconds(seconds * window);
          std::optional<StopReason> stop;
          if (source) {
            point.samples_seconds.push_back(seconds);
            stopping.add(seconds);
            stop = stopping.decide(seconds_since(start));
          }
          if (!end.go_on(source, !stop)) {
            if (stop) point.stop_reason = *stop;
            break;
          }
        }
        if (!source) continue;
        point.summary = summarize(point.samples_seconds);
        sourced.push_back(std::move(point));
      }
  return sourced;
}

}  // namespace collbench
