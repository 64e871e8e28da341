// The overlap footer: a share where the interval tells hidden from exposed, `unresolved` where
// it spans both.
#include "harness/report/overlap_report.h"

#include <gtest/gtest.h>

namespace collbench {
namespace {

PointResult measured_point(std::size_t size, double hidden, double low, double high) {
  PointResult point;
  point.key.backend = "nccl";
  point.key.nranks = 2;
  point.key.mode = Mode::latency;
  point.key.sync = SampleStart::window;
  point.key.size_bytes = size;
  point.overlap.collective_slowdown = 1.5;
  point.overlap.load_slowdown = 1.02;
  point.overlap.hidden = hidden;
  point.overlap.hidden_ci = {low, high};
  return point;
}

TEST(OverlapLines, AnIntervalOverBothEndsIsUnresolved) {
  const std::vector<PointResult> points{measured_point(512, 2.86, -9.24, 11.34),
                                        measured_point(2048, 0.32, 0.20, 1.43),
                                        measured_point(8192, -0.14, -0.73, 0.67),
                                        measured_point(32768, 0.5, 0.0, 1.0)};
  const auto lines = overlap_lines(points, LoadKind::memory);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "# overlap beside a memory load, allreduce float sum world 2 ranks latency: hidden "
            "unresolved [-924, 1134] at 512 B (collective x1.50, load x1.02), 32% [20, 143] at 2 "
            "KiB (collective x1.50, load x1.02), -14% [-73, 67] at 8 KiB (collective x1.50, load "
            "x1.02), unresolved [0, 100] at 32 KiB (collective x1.50, load x1.02)");
}

}  // namespace
}  // namespace collbench
