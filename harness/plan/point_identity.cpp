#include "harness/plan/point_identity.h"

#include <fmt/format.h>

#include "backends/tuning.h"
#include "harness/plan/sizes.h"

namespace collbench {
namespace {

std::string ranks_text(const PointKey& key) {
  const std::string root = key.root == kNoRoot ? "" : fmt::format(" root {}", key.root);
  return (key.nranks ? fmt::format("{} ranks", key.nranks) : "across ranks") + root;
}

}  // namespace

std::string tuning_text(const PointKey& key) {
  if (key.algorithm.empty() && key.protocol.empty()) return "";
  return fmt::format(" {}/{}", or_auto(key.algorithm), or_auto(key.protocol));
}

std::string curve_text(const PointKey& key) {
  // Named only where it is not --sync's default.
  const bool other_sync = key.sync != sync_of(key.mode, SampleStart::window);
  return fmt::format("{} {} {} {} {} {}{}{}{}", name(key.collective), name(key.datatype),
                     redop_label(key), name(key.placement), ranks_text(key), name(key.mode),
                     other_sync ? " sync barrier" : "", key.in_place ? " in place" : "",
                     tuning_text(key));
}

std::string point_text(const PointKey& key) {
  return fmt::format("{} {}", curve_text(key), format_size(key.size_bytes));
}

std::vector<std::pair<std::string, std::string>> key_labels(const PointKey& key) {
  const nlohmann::ordered_json fields = key_json(key, false);
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& [field, value] : fields.items())
    labels.emplace_back(field, value.is_string()    ? value.get<std::string>()
                               : value.is_boolean() ? (value.get<bool>() ? "1" : "0")
                                                    : value.dump());
  return labels;
}

nlohmann::ordered_json key_json(const PointKey& key, bool with_size) {
  nlohmann::ordered_json json;
  json["backend"] = key.backend;
  json["collective"] = name(key.collective);
  json["datatype"] = name(key.datatype);
  json["redop"] = redop_label(key);
  json["placement"] = name(key.placement);
  json["algorithm"] = key.algorithm;  // empty: the library chose
  json["protocol"] = key.protocol;
  if (key.nranks) json["nranks"] = key.nranks;
  if (key.root != kNoRoot) json["root"] = key.root;
  json["mode"] = name(key.mode);
  json["sync"] = name(key.sync);
  json["in_place"] = key.in_place;
  if (with_size) json["size_bytes"] = key.size_bytes;
  return json;
}

}  // namespace collbench
