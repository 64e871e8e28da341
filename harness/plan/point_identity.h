#pragma once
// A point's identity, spelled one way for every output: in words (table notes, JUnit and
// Prometheus names, check's "where"), as verdict-file labels, and as JSON fields.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/point.h"

namespace collbench {

// "allreduce float sum world 2 ranks latency", then " sync barrier" (a latency started at a
// barrier), " in place" and a pinned " Ring/LL" when set; "across ranks" for a key of every
// rank count (nranks 0); "2 ranks root 1" for a broadcast or a reduce.
std::string curve_text(const PointKey& key);
// A pinned tuning as " Ring/LL" ("auto" where the library chose); empty when none is pinned.
std::string tuning_text(const PointKey& key);
// The curve's words and the size: "... latency 64 B".
std::string point_text(const PointKey& key);
std::vector<std::pair<std::string, std::string>> key_labels(const PointKey& key);
// backend, collective, datatype, redop, placement, algorithm, protocol, nranks (left out when
// 0), root (left out where the collective has none), mode, sync, in_place, and size_bytes when
// asked.
nlohmann::ordered_json key_json(const PointKey& key, bool with_size);

}  // namespace collbench
