#include "harness/plan/sample_retention.h"

#include <gtest/gtest.h>

#include <vector>

namespace collbench {
namespace {

// `count` samples of 2 ranks: row s holds s and -s, so a kept row says which it was.
RawSamples numbered(std::size_t count, std::vector<std::size_t> round_starts = {0}) {
  RawSamples raw;
  raw.nranks = 2;
  raw.world_ranks = {3, 7};
  raw.round_starts = std::move(round_starts);
  for (std::size_t s = 0; s < count; ++s) {
    raw.per_rank_seconds.insert(raw.per_rank_seconds.end(), {double(s), -double(s)});
    raw.start_lateness_seconds.insert(raw.start_lateness_seconds.end(), {1e-9 * s, 2e-9 * s});
  }
  return raw;
}

std::vector<double> rows_of(const RawSamples& raw) {
  std::vector<double> rows;
  for (std::size_t s = 0; s < raw.sample_count(); ++s) rows.push_back(raw.per_rank_seconds[2 * s]);
  return rows;
}

TEST(SampleRetention, AllKeepsEverySample) {
  const RawSamples raw = numbered(5000, {0, 1700, 3400});
  const RawSamples kept = kept_samples(raw, KeepSamples::all);
  EXPECT_EQ(kept.per_rank_seconds, raw.per_rank_seconds);
  EXPECT_EQ(kept.round_starts, raw.round_starts);
}

TEST(SampleRetention, CappedKeepsEvenlySpacedRowsWithTheirRounds) {
  const RawSamples raw = numbered(5000, {0, 1700, 3400});
  const RawSamples kept = kept_samples(raw, KeepSamples::capped);
  ASSERT_EQ(kept.sample_count(), kCappedSamples);
  const std::vector<double> rows = rows_of(kept);
  for (std::size_t j = 0; j < rows.size(); ++j) EXPECT_EQ(rows[j], double(j * 5));
  for (std::size_t j = 0; j < rows.size(); ++j) {
    EXPECT_EQ(kept.per_rank_seconds[2 * j + 1], -rows[j]);  // both ranks of one sample
    EXPECT_EQ(kept.start_lateness_seconds[2 * j + 1], 2e-9 * rows[j]);
  }
  EXPECT_EQ(kept.world_ranks, raw.world_ranks);
  // Rows 1700 and 3400 are kept rows 340 and 680.
  EXPECT_EQ(kept.round_starts, (std::vector<std::size_t>{0, 340, 680}));
}

TEST(SampleRetention, CappedKeepsAShortPointWhole) {
  const RawSamples raw = numbered(kCappedSamples, {0, 400});
  EXPECT_EQ(kept_samples(raw, KeepSamples::capped).per_rank_seconds, raw.per_rank_seconds);
}

TEST(SampleRetention, ARoundShorterThanTheSpacingStartsAtTheNextKeptRow) {
  // 10,000 samples keep every 10th; the round starting at row 5 starts at kept row 1 (row 10).
  const RawSamples kept = kept_samples(numbered(10000, {0, 5, 5000}), KeepSamples::capped);
  EXPECT_EQ(kept.round_starts, (std::vector<std::size_t>{0, 1, 500}));
}

TEST(SampleRetention, SummaryKeepsTheColumnsButNoRow) {
  const RawSamples kept = kept_samples(numbered(300, {0, 100}), KeepSamples::summary);
  EXPECT_EQ(kept.sample_count(), 0u);
  EXPECT_EQ(kept.nranks, 2);
  EXPECT_EQ(kept.world_ranks, (std::vector<int>{3, 7}));
  EXPECT_TRUE(kept.start_lateness_seconds.empty());
  EXPECT_EQ(kept.round_starts, (std::vector<std::size_t>{0}));
}

TEST(SampleRetention, RowsAreEvenlySpacedAndNeverRepeat) {
  EXPECT_EQ(evenly_spaced_rows(10, 4), (std::vector<std::size_t>{0, 2, 5, 7}));
  EXPECT_EQ(evenly_spaced_rows(3, 1000), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(evenly_spaced_rows(10, 0).empty());
}

// A point's rounds together send rank 0 no more rows than the record keeps.
TEST(SampleRetention, EachRoundSendsItsShareOfTheKeptRows) {
  EXPECT_EQ(rows_per_round(KeepSamples::all, 3), std::nullopt);
  EXPECT_EQ(rows_per_round(KeepSamples::capped, 3), 333u);
  EXPECT_EQ(rows_per_round(KeepSamples::capped, 1), kCappedSamples);
  EXPECT_EQ(rows_per_round(KeepSamples::summary, 3), 0u);
}

TEST(SampleRetention, NamesRoundTrip) {
  for (KeepSamples keep : {KeepSamples::all, KeepSamples::capped, KeepSamples::summary})
    EXPECT_EQ(parse_keep_samples(name(keep)), keep);
  EXPECT_FALSE(parse_keep_samples("some"));
}

}  // namespace
}  // namespace collbench
