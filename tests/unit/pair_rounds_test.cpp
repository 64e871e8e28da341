#include "harness/plan/pair_rounds.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <utility>

namespace collbench {
namespace {

TEST(PairRounds, EveryPairOnceAndNoParticipantTwiceInARound) {
  for (int p = 0; p <= 33; ++p) {
    const auto rounds = pair_rounds(p);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(p < 2 ? 0 : p % 2 ? p : p - 1)) << p;
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const Pair& pair : round) {
        ASSERT_TRUE(0 <= pair.first && pair.first < pair.second && pair.second < p) << p;
        EXPECT_TRUE(busy.insert(pair.first).second) << p;
        EXPECT_TRUE(busy.insert(pair.second).second) << p;
        EXPECT_TRUE(seen.insert({pair.first, pair.second}).second) << p;
      }
      EXPECT_EQ(round.size(), static_cast<std::size_t>(p / 2)) << "a full round, p " << p;
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(p * (p - 1) / 2)) << p;
  }
}

TEST(PairRounds, FourHostsInThreeRounds) {
  EXPECT_EQ(pair_rounds(4), (std::vector<std::vector<Pair>>{
                                {{0, 3}, {1, 2}}, {{0, 2}, {1, 3}}, {{0, 1}, {2, 3}}}));
}

TEST(PairRounds, RefusesANegativeCount) {
  EXPECT_THROW(pair_rounds(-1), std::invalid_argument);
}

}  // namespace
}  // namespace collbench
