#pragma once
// Stragglers: ranks, and hosts, that are a run's latest to finish (or to start) more often than
// chance. The units of the test are points, not samples: a point's samples follow each other
// and share its algorithm, so one rank latest in 900 of its 1,000 samples is one observation,
// not 900 (on this VM a binomial test over samples names some rank in nearly every unloaded
// run). A rank counts for a point when it was that point's typical latest by a margin that
// matters (latest_ranks.h); with p ranks alike, each is a point's typical latest with
// probability at most 1/p, so the count of such points is tested against Binomial(points, 1/p),
// one-sided, and Holm's correction holds the chance that any rank of a communicator is named by
// luck to `alpha`. A host is tested alike, against its share of the ranks: its ranks together,
// so a slow host is named whichever of its ranks is latest; a host that holds every rank of a
// communicator has nothing to be compared with and is never named.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/stats/latest_ranks.h"

namespace collbench {

struct StragglerThresholds {
  double alpha = 0.01;  // per communicator, kind, and ranks or hosts
  LagMargin margin;
};

struct Straggler {
  static constexpr int kHostRow = -1;

  int rank = kHostRow;  // a world rank, or kHostRow: the host's ranks together
  std::string host;
  StragglerKind kind = StragglerKind::finishes_last;
  int ranks = 0;        // the columns of the points tested: their communicators' ranks
  int points = 0;       // the points tested
  int points_last = 0;  // those in which it was the typical latest
  std::uint64_t samples = 0;
  std::uint64_t times_last = 0;  // samples in which it (one of its ranks) alone was latest
  double chance = 0;             // of a point's typical latest being it: 1/p, or a host's ranks/p
  double p_value = 1;            // of points_last or more by chance, Holm-adjusted
  double median_lag_s = 0;       // over the points, of its lag behind the others (a host: its
                                 // latest rank's)
};

// What a search found, as a result file keeps it.
struct StragglerRecord {
  std::vector<Straggler> named;
  int points = 0;  // the points tested
  StragglerThresholds thresholds;
};

class StragglerSearch {
 public:
  explicit StragglerSearch(StragglerThresholds thresholds = {});

  // One point's [sample x column] times of `kind` (seconds after t0); `world_ranks` and `hosts`
  // name its columns, and points with the same columns are tested together.
  void add(StragglerKind kind, std::span<const int> world_ranks,
           std::span<const std::string> hosts, std::span<const double> values, double median_s,
           double clock_error_s);

  // Per set of columns and kind, in the order first added: the named ranks, then hosts.
  StragglerRecord record() const;

 private:
  // The points of one kind that share their columns.
  struct Columns {
    Columns(StragglerKind kind, std::span<const int> world_ranks,
            std::span<const std::string> hosts);

    StragglerKind kind;
    std::vector<int> world_ranks;
    std::vector<std::string> hosts;     // distinct, in the columns' order
    std::vector<std::size_t> host_of;   // per column, into hosts
    std::uint64_t samples = 0;
    std::vector<std::uint64_t> times_last;   // per column
    std::vector<int> points_last;            // per column
    std::vector<int> host_points_last;       // per host
    std::vector<std::vector<double>> lags_s;  // per point, per column

    int points() const { return static_cast<int>(lags_s.size()); }
    int size() const { return static_cast<int>(world_ranks.size()); }
    // A candidate row for `rank` (or kHostRow) with what every row of these points shares.
    Straggler row(int rank, const std::string& host, double chance) const;
  };

  void name_ranks(const Columns& columns, std::vector<Straggler>& named) const;
  void name_hosts(const Columns& columns, std::vector<Straggler>& named) const;

  StragglerThresholds thresholds_;
  std::vector<Columns> columns_;
};

}  // namespace collbench
