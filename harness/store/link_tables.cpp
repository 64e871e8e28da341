#include "harness/store/link_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/point_record.h"
#include "harness/store/summary_columns.h"

namespace collbench {
namespace {

constexpr hsize_t kChunkRows = 64;
constexpr unsigned kSamplesCompactLinks = 8192;
constexpr unsigned kSamplesNameLength = 6;

struct LinkRow {
  std::int32_t source_rank;
  std::int32_t destination_rank;
  char source_host[64];
  char destination_host[64];
  char kind[8];
  char transport[96];
  char mode[16];
  char stop_reason[16];
  std::uint64_t size_bytes;
  std::int32_t messages_per_sample;
  std::int32_t rounds;
  std::uint64_t samples;
  SummaryColumns times;
  double bandwidth_GBps;
};

struct LinkFitRow {
  std::int32_t first_rank;
  std::int32_t second_rank;
  char first_host[64];
  char second_host[64];
  char kind[8];
  char transport[96];
  std::uint64_t alpha_bytes;
  double alpha_us;
  std::uint64_t largest_bytes;
  double bandwidth_GBps;
  double forward_GBps;
  double backward_GBps;
  double bidirectional_GBps;
  std::int8_t slow;
};

struct SlowHostRow {
  char name[96];
  char kind[8];
  double typical_GBps;
  double median_GBps;
};

using h5::RowType;

hid_t link_row_type() {
  static const h5::Handle type = [] {
    RowType row(sizeof(LinkRow));
    row.add(COLLBENCH_MEMBER(LinkRow, source_rank, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(LinkRow, destination_rank, H5T_NATIVE_INT32))
        .text(COLLBENCH_TEXT(LinkRow, source_host))
        .text(COLLBENCH_TEXT(LinkRow, destination_host))
        .text(COLLBENCH_TEXT(LinkRow, kind))
        .text(COLLBENCH_TEXT(LinkRow, transport))
        .text(COLLBENCH_TEXT(LinkRow, mode))
        .text(COLLBENCH_TEXT(LinkRow, stop_reason))
        .add(COLLBENCH_MEMBER(LinkRow, size_bytes, H5T_NATIVE_UINT64))
        .add(COLLBENCH_MEMBER(LinkRow, messages_per_sample, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(LinkRow, rounds, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(LinkRow, samples, H5T_NATIVE_UINT64));
    add_summary_columns(row, offsetof(LinkRow, times))
        .add(COLLBENCH_MEMBER(LinkRow, bandwidth_GBps, H5T_NATIVE_DOUBLE));
    return row.done();
  }();
  return type.get();
}

hid_t link_fit_row_type() {
  static const h5::Handle type = [] {
    RowType row(sizeof(LinkFitRow));
    row.add(COLLBENCH_MEMBER(LinkFitRow, first_rank, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(LinkFitRow, second_rank, H5T_NATIVE_INT32))
        .text(COLLBENCH_TEXT(LinkFitRow, first_host))
        .text(COLLBENCH_TEXT(LinkFitRow, second_host))
        .text(COLLBENCH_TEXT(LinkFitRow, kind))
        .text(COLLBENCH_TEXT(LinkFitRow, transport))
        .add(COLLBENCH_MEMBER(LinkFitRow, alpha_bytes, H5T_NATIVE_UINT64))
        .add(COLLBENCH_MEMBER(LinkFitRow, alpha_us, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkFitRow, largest_bytes, H5T_NATIVE_UINT64))
        .add(COLLBENCH_MEMBER(LinkFitRow, bandwidth_GBps, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkFitRow, forward_GBps, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkFitRow, backward_GBps, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkFitRow, bidirectional_GBps, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkFitRow, slow, H5T_NATIVE_INT8));
    return row.done();
  }();
  return type.get();
}

hid_t slow_host_row_type() {
  static const h5::Handle type = [] {
    RowType row(sizeof(SlowHostRow));
    row.text(COLLBENCH_TEXT(SlowHostRow, name))
        .text(COLLBENCH_TEXT(SlowHostRow, kind))
        .add(COLLBENCH_MEMBER(SlowHostRow, typical_GBps, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(SlowHostRow, median_GBps, H5T_NATIVE_DOUBLE));
    return row.done();
  }();
  return type.get();
}

// Host names and transports describe a link, its ranks identify it: text too long is cut.
template <std::size_t N>
void put(std::string_view text, char (&field)[N]) {
  h5::store_fixed_string(text, field);
}

template <typename Value, std::size_t N>
Value parsed(std::optional<Value> (*parse)(std::string_view), const char (&field)[N],
             const char* what) {
  const std::string text = h5::load_fixed_string(field);
  if (auto value = parse(text)) return *value;
  throw std::runtime_error(fmt::format("unknown {} '{}' in the links tables", what, text));
}

LinkRow to_row(const LinkPoint& point) {
  LinkRow row{};
  row.source_rank = point.source_rank;
  row.destination_rank = point.destination_rank;
  put(point.source_host, row.source_host);
  put(point.destination_host, row.destination_host);
  put(name(point.kind), row.kind);
  put(point.transport, row.transport);
  put(name(point.mode), row.mode);
  put(name(point.stop_reason), row.stop_reason);
  row.size_bytes = point.size_bytes;
  row.messages_per_sample = point.messages_per_sample;
  row.rounds = point.rounds;
  row.samples = point.summary.samples;
  row.times = summary_columns(point.summary);
  row.bandwidth_GBps = point.bandwidth_GBps();
  return row;
}

LinkPoint from_row(const LinkRow& row) {
  LinkPoint point;
  point.source_rank = row.source_rank;
  point.destination_rank = row.destination_rank;
  point.source_host = h5::load_fixed_string(row.source_host);
  point.destination_host = h5::load_fixed_string(row.destination_host);
  point.kind = parsed(parse_link_kind, row.kind, "link kind");
  point.transport = h5::load_fixed_string(row.transport);
  point.mode = parsed(parse_link_mode, row.mode, "link mode");
  point.stop_reason = parsed(parse_stop_reason, row.stop_reason, "stop reason");
  point.size_bytes = row.size_bytes;
  point.messages_per_sample = row.messages_per_sample;
  point.rounds = row.rounds;
  point.summary.samples = row.samples;
  read_summary_columns(row.times, point.summary);
  return point;
}

LinkFitRow to_row(const LinkFit& fit) {
  LinkFitRow row{};
  row.first_rank = fit.first_rank;
  row.second_rank = fit.second_rank;
  put(fit.first_host, row.first_host);
  put(fit.second_host, row.second_host);
  put(name(fit.kind), row.kind);
  put(fit.transport, row.transport);
  row.alpha_bytes = fit.alpha_bytes;
  row.alpha_us = fit.alpha_us;
  row.largest_bytes = fit.largest_bytes;
  row.bandwidth_GBps = fit.bandwidth_GBps;
  row.forward_GBps = fit.forward_GBps;
  row.backward_GBps = fit.backward_GBps;
  row.bidirectional_GBps = fit.bidirectional_GBps;
  row.slow = fit.slow ? 1 : 0;
  return row;
}

LinkFit from_row(const LinkFitRow& row) {
  return {.first_rank = row.first_rank,
          .second_rank = row.second_rank,
          .first_host = h5::load_fixed_string(row.first_host),
          .second_host = h5::load_fixed_string(row.second_host),
          .kind = parsed(parse_link_kind, row.kind, "link kind"),
          .transport = h5::load_fixed_string(row.transport),
          .alpha_bytes = row.alpha_bytes,
          .alpha_us = row.alpha_us,
          .largest_bytes = row.largest_bytes,
          .bandwidth_GBps = row.bandwidth_GBps,
          .forward_GBps = row.forward_GBps,
          .backward_GBps = row.backward_GBps,
          .bidirectional_GBps = row.bidirectional_GBps,
          .slow = row.slow != 0};
}

void create_link_tables(hid_t file) {
  const h5::Handle row_type = h5::table_type(link_row_type());
  const h5::Handle links = h5::create_dataset(
      file, layout::kLinks, row_type.get(), {.dims = {0}, .chunk = {kChunkRows}, .extendible = true});
  h5::write_string_attribute(links.get(), layout::kUnits,
                             "per field name: _us microseconds, _GBps 10^9 bytes/s, _bytes bytes");
  h5::write_int_attribute(links.get(), layout::kFinishedRows, 0);
  h5::create_compact_group(file, layout::kLinkSamples, kSamplesCompactLinks, kSamplesNameLength);
}

}  // namespace

void append_link_point(hid_t file, const LinkPoint& point) {
  if (!h5::link_exists(file, layout::kLinks)) create_link_tables(file);
  const h5::Handle links = h5::open_dataset(file, layout::kLinks);
  const hsize_t row = h5::extent(links.get()).at(0);
  const LinkRow values = to_row(point);

  const h5::Handle group = h5::open_group(file, layout::kLinkSamples);
  std::vector<RecordedMicroseconds> samples(point.samples_seconds.size());
  std::transform(point.samples_seconds.begin(), point.samples_seconds.end(), samples.begin(),
                 recorded_microseconds);
  const hsize_t count = samples.size();
  const h5::Handle dataset = h5::create_dataset(
      group.get(), layout::samples_name(static_cast<std::int64_t>(row)), H5T_IEEE_F32LE,
      {.dims = {count}, .chunk = {}});
  if (count > 0) h5::write_all(dataset.get(), H5T_NATIVE_FLOAT, samples.data());
  h5::write_string_attribute(dataset.get(), layout::kUnits, "us");

  const hsize_t dims[] = {row + 1};
  h5::set_extent(links.get(), dims);
  h5::write_rows(links.get(), link_row_type(), row, 1, &values);
  h5::flush(file);
  // As /points: the row counts only once everything it refers to is on disk.
  h5::update_int_attribute(links.get(), layout::kFinishedRows, static_cast<std::int64_t>(row + 1));
  h5::flush(file);
}

void write_link_analysis(hid_t file, const LinkAnalysis& analysis, double shortfall) {
  std::vector<LinkFitRow> fits;
  for (const LinkFit& fit : analysis.fits) fits.push_back(to_row(fit));
  h5::write_table(file, layout::kLinkFits, link_fit_row_type(), fits.size(), fits.data());
  std::vector<SlowHostRow> hosts;
  for (const SlowHost& host : analysis.slow_hosts) {
    SlowHostRow row{};
    put(host.name, row.name);
    put(name(host.kind), row.kind);
    row.typical_GBps = host.typical_GBps;
    row.median_GBps = host.median_GBps;
    hosts.push_back(row);
  }
  h5::write_table(file, layout::kSlowHosts, slow_host_row_type(), hosts.size(), hosts.data());
  {
    const h5::Handle table = h5::open_dataset(file, layout::kLinkFits);
    h5::write_double_attribute(table.get(), layout::kShortfall, shortfall);
  }
  h5::flush(file);
}

std::optional<LinkRecord> read_link_tables(hid_t file, bool with_samples) {
  if (!h5::link_exists(file, layout::kLinks)) return std::nullopt;
  LinkRecord record;
  {
    const h5::Handle links = h5::open_dataset(file, layout::kLinks);
    const auto finished = h5::read_int_attribute(links.get(), layout::kFinishedRows);
    if (finished < 0 || static_cast<std::size_t>(finished) > h5::row_count(links.get()))
      throw std::runtime_error(fmt::format("/links: {} finished rows of {}", finished,
                                           h5::row_count(links.get())));
    std::vector<LinkRow> rows(finished);
    h5::read_rows(links.get(), link_row_type(), {.renamed = kMedianIntervalRenamedInSchema16}, 0, rows.size(), rows.data());
    const h5::Handle group = with_samples ? h5::open_group(file, layout::kLinkSamples) : h5::Handle();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      LinkPoint point = from_row(rows[i]);
      if (with_samples) {
        const h5::Handle dataset =
            h5::open_dataset(group.get(), layout::samples_name(static_cast<std::int64_t>(i)));
        std::vector<float> microseconds(h5::extent(dataset.get()).at(0));
        if (!microseconds.empty()) h5::read_all(dataset.get(), H5T_NATIVE_FLOAT, microseconds.data());
        for (const float value : microseconds)
          point.samples_seconds.push_back(value / kMicrosecondsPerSecond);
      }
      record.points.push_back(std::move(point));
    }
  }
  if (h5::link_exists(file, layout::kLinkFits)) {
    LinkAnalysis analysis;
    for (const LinkFitRow& row : h5::read_rows<LinkFitRow>(file, layout::kLinkFits, link_fit_row_type()))
      analysis.fits.push_back(from_row(row));
    for (const SlowHostRow& row :
         h5::read_rows<SlowHostRow>(file, layout::kSlowHosts, slow_host_row_type()))
      analysis.slow_hosts.push_back({h5::load_fixed_string(row.name),
                                     parsed(parse_link_kind, row.kind, "link kind"),
                                     row.typical_GBps, row.median_GBps});
    const h5::Handle table = h5::open_dataset(file, layout::kLinkFits);
    record.shortfall = h5::read_double_attribute(table.get(), layout::kShortfall);
    record.analysis = std::move(analysis);
  }
  return record;
}

}  // namespace collbench
