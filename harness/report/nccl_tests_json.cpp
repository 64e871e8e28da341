#include "nccl_tests_json.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "harness/report/json_number.h"
#include "topo/placement.h"

namespace collbench {
namespace {

using Json = nlohmann::ordered_json;

// nccl-tests' JSON_FILE_VERSION (src/util.cu).
constexpr int kSchemaVersion = 3;

// "2026-12-07T13:11:19Z" as nccl-tests' TIME_STRING_FORMAT writes a time ("%Y-%m-%d
// %H:%M:%S"); collbench's is UTC where nccl-tests' is local.
std::string nccl_tests_time(std::string utc) {
  std::replace(utc.begin(), utc.end(), 'T', ' ');
  if (!utc.empty() && utc.back() == 'Z') utc.pop_back();
  return utc;
}

// The command line as shell_quoted recorded it (provenance.h): words in single quotes where
// they need them, a quote inside one as '\''; split back into the words.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\'')
        quoted = false;
      else
        word += c;
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

// NCCL_VERSION_CODE of "2.28.9" (nccl.h: major * 10000 + minor * 100 + patch since 2.9).
Json version_code(const std::string& version) {
  int major = 0, minor = 0, patch = 0;
  char dot1 = 0, dot2 = 0;
  std::istringstream in(version);
  if (!(in >> major >> dot1 >> minor >> dot2 >> patch) || dot1 != '.' || dot2 != '.')
    return nullptr;
  return major * 10000 + minor * 100 + patch;
}

Json setting(const nlohmann::json& settings, const char* key, Json otherwise) {
  return settings.contains(key) ? Json(settings[key]) : otherwise;
}

Json config_of(const RunDescription& run) {
  const nlohmann::json settings = run.settings_json.empty()
                                      ? nlohmann::json::object()
                                      : nlohmann::json::parse(run.settings_json);
  Json config = {{"nthreads", 1}, {"ngpus", 1},  // one rank a process, one GPU a rank
                 {"minimum_bytes", setting(settings, "min_bytes", nullptr)},
                 {"maximum_bytes", setting(settings, "max_bytes", nullptr)}};
  if (settings.contains("step_bytes")) {
    config["step_bytes"] = settings["step_bytes"];
  } else if (settings.contains("step_factor")) {
    // nccl-tests' factor is a whole number; collbench's -f may be another.
    const double factor = settings["step_factor"];
    config["step_factor"] =
        factor == std::floor(factor) ? Json(static_cast<long long>(factor)) : Json(factor);
  }
  config["warmup_iters"] = setting(settings, "warmup_iters", nullptr);
  // -n where it fixed the count; null where the stopping rule chose each point's
  // (actual_iterations says how many).
  config["iterations"] = setting(settings, "iters", nullptr);
  config["aggregated_iterations"] = 1;
  config["validation"] = setting(settings, "check_iters", nullptr);
  config["graph"] = setting(settings, "cuda_graph_launches", 0);
  config["blocking_collectives"] = false;
  config["per_iter_timing"] = true;  // a time per sample: the samples the file keeps
  config["per_iter_skip"] = 0;
  config["parallel_init"] = false;
  Json devices = Json::array();
  for (const RankTopology& rank : run.ranks) {
    const bool gpu = !rank.gpu_bus_id.empty();
    devices.push_back({{"rank", rank.rank},
                       {"group", 0},
                       {"pid", nullptr},  // not recorded
                       {"hostname", rank.host},
                       {"device", gpu ? Json(rank.local_rank) : Json(nullptr)},
                       {"device_hex", rank.gpu_bus_id},
                       {"device_info", rank.gpu_name}});
  }
  config["devices"] = devices;
  return config;
}

// nccl-tests' percentileIndex and computeIterStats (src/util.cu): the sorted value at
// ceil(n * p / 100) - 1, the median the upper middle one, the deviation over n.
std::size_t percentile_index(std::size_t n, int percentile) {
  return std::min(n - 1, (n * percentile + 99) / 100 - 1);
}

Json per_iteration(const RawSamples& samples) {
  std::vector<double> times = slowest_rank_times(samples);
  for (double& time : times) time *= kMicrosecondsPerSecond;
  const std::size_t count = times.size();
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double t : sorted) sum += t;
  const double average = sum / count;
  double variance = 0;
  for (double t : sorted) variance += (t - average) * (t - average);
  const double deviation = std::sqrt(variance / count);
  Json figures = {{"skipped_iterations", 0},
                  {"min_us", sorted.front()},
                  {"max_us", sorted.back()},
                  {"avg_us", average},
                  {"p50_us", sorted[count / 2]},
                  {"p95_us", sorted[percentile_index(count, 95)]},
                  {"p99_us", sorted[percentile_index(count, 99)]},
                  {"stdev_us", deviation},
                  {"cv_pct", average > 0 ? deviation / average * 100 : 0.0},
                  {"times_us", times}};
  if (samples.nranks > 1) {
    Json per_process = Json::array();
    for (int r = 0; r < samples.nranks; ++r) {
      Json row = Json::array();
      for (std::size_t s = 0; s < count; ++s)
        row.push_back(finite_or_null(samples.per_rank_seconds[s * samples.nranks + r] *
                                     kMicrosecondsPerSecond));
      per_process.push_back(std::move(row));
    }
    figures["per_process_max_times_us"] = per_process;
  }
  return figures;
}

}  // namespace

void NcclTestsJsonReporter::begin(const RunDescription& run) {
  Json environment = Json::array();
  for (const auto& [variable, value] : run.environment)
    environment.push_back(fmt::format("{}={}", variable, value));
  document_ = {{"version", kSchemaVersion},
               {"start_time", nccl_tests_time(run.start_utc)},
               {"args", words(run.command_line)},
               {"env", environment},
               {"nccl_version", version_code(run.nccl_version)},
               {"config", config_of(run)},
               {"results", Json::array()}};
}

void NcclTestsJsonReporter::row(std::span<const PointResult> points) {
  if (points.empty()) return;
  const PointKey& key = points.front().key;
  Json result = {{"size", key.size_bytes},
                 {"count", key.count},
                 {"type", name(key.datatype)},
                 {"redop", redop_label(key)},
                 {"root", fmt::format("{:6}", key.root)}};  // nccl-tests' "%6i"
  std::size_t iterations = 0;
  for (bool in_place : {false, true}) {
    const char* variant = in_place ? "in_place" : "out_of_place";
    const PointResult* head = headline_point(points, in_place);
    if (!head) {
      result[variant] = nullptr;
      continue;
    }
    const std::int64_t wrong = head->checks.wrong();
    result[variant] = {{"time", finite_or_null(head->summary.median * kMicrosecondsPerSecond)},
                       {"alg_bw", finite_or_null(head->algbw_gbps)},
                       {"bus_bw", finite_or_null(head->busbw_gbps)},
                       {"nwrong", wrong == kNotChecked ? Json(nullptr) : Json(wrong)}};
    if (head->samples.sample_count() > 0)
      result[fmt::format("{}_per_iter", variant)] = per_iteration(head->samples);
    if (wrong != kNotChecked) wrong_ += wrong;
    busbw_sum_ += head->busbw_gbps;
    ++busbw_count_;
    iterations = std::max(iterations, head->summary.samples);
  }
  result["actual_iterations"] = iterations;
  // nccl-tests runs one collective a file and leaves this empty; a sweep names each row's.
  result["experiment_name"] = fmt::format("{} {} {} ranks {}", name(key.collective),
                                          name(key.placement), key.nranks, key.backend);
  document_["results"].push_back(std::move(result));
}

void NcclTestsJsonReporter::end() {
  document_["out_of_bounds"] = {{"count", wrong_}, {"okay", wrong_ == 0}};
  document_["average_bus_bandwidth"] = {
      {"bandwidth", busbw_count_ ? busbw_sum_ / busbw_count_ : 0.0}, {"okay", "unchecked"}};
  document_["errors"] = Json::array();
  out_ << document_.dump() << '\n';
  out_.flush();
}

}  // namespace collbench
