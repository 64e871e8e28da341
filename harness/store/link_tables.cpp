#include "harness/store/link_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/store/column_units.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"
#include "harness/store/point_record.h"
#include "harness/store/summary_columns.h"

namespace collbench {
namespace {

constexpr hsize_t kChunkRows = 64;

// Host names and transports describe a link, its ranks identify it: text too long for its field
// is cut.
struct LinkRow {
  std::int32_t source_rank;
  std::int32_t destination_rank;
  char source_host[64];
  char destination_host[64];
  h5::NameOf<LinkKind, parse_link_kind, 8> kind;
  char transport[96];
  h5::NameOf<LinkMode, parse_link_mode, 16> mode;
  h5::NameOf<StopReason, parse_stop_reason, 16> stop_reason;
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
  h5::NameOf<LinkKind, parse_link_kind, 8> kind;
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
  h5::NameOf<LinkKind, parse_link_kind, 8> kind;
  double typical_GBps;
  double median_GBps;
};

// The columns a record and its row share, listed once for the row's type and the copies; a
// link fit and a slow host share every one.
#define LINK_SHARED_MEMBERS                                                            \
  source_rank, destination_rank, source_host, destination_host, kind, transport, mode, \
      stop_reason, size_bytes, messages_per_sample, rounds
#define LINK_FIT_MEMBERS                                                                    \
  first_rank, second_rank, first_host, second_host, kind, transport, alpha_bytes, alpha_us, \
      largest_bytes, bandwidth_GBps, forward_GBps, backward_GBps, bidirectional_GBps, slow
#define SLOW_HOST_MEMBERS name, kind, typical_GBps, median_GBps

COLLBENCH_SHARED_MEMBERS(LinkPoint, LinkRow, LINK_SHARED_MEMBERS)
COLLBENCH_SHARED_MEMBERS(LinkFit, LinkFitRow, LINK_FIT_MEMBERS)
COLLBENCH_SHARED_MEMBERS(SlowHost, SlowHostRow, SLOW_HOST_MEMBERS)

hid_t link_row_type() {
  static const h5::Handle type =
      COLLBENCH_ROW_TYPE(LinkRow, LINK_SHARED_MEMBERS, samples, times, bandwidth_GBps);
  return type.get();
}

hid_t link_fit_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(LinkFitRow, LINK_FIT_MEMBERS);
  return type.get();
}

hid_t slow_host_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(SlowHostRow, SLOW_HOST_MEMBERS);
  return type.get();
}

LinkRow to_row(const LinkPoint& point) {
  auto row = h5::row_of<LinkRow>(point);
  row.samples = point.summary.samples;
  row.times = summary_columns(point.summary);
  row.bandwidth_GBps = point.bandwidth_GBps();
  return row;
}

LinkPoint from_row(const LinkRow& row) {
  auto point = h5::record_of<LinkPoint>(row);
  point.summary.samples = row.samples;
  read_summary_columns(row.times, point.summary);
  return point;
}

void create_link_tables(hid_t file) {
  const h5::Handle row_type = h5::table_type(link_row_type());
  const h5::Handle links = h5::create_dataset(
      file, layout::kLinks, row_type.get(), {.dims = {0}, .chunk = {kChunkRows}, .extendible = true});
  write_column_units(links.get());
  h5::write_int_attribute(links.get(), layout::kFinishedRows, 0);
  h5::create_compact_group(file, layout::kLinkSamples, layout::kSamplesCompactLinks,
                           layout::kSamplesNameLength);
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
  const h5::Handle fits = write_records(file, layout::kLinkFits, link_fit_row_type(), analysis.fits,
                                        h5::row_of<LinkFitRow, LinkFit>);
  h5::write_double_attribute(fits.get(), layout::kShortfall, shortfall);
  write_records(file, layout::kSlowHosts, slow_host_row_type(), analysis.slow_hosts,
                h5::row_of<SlowHostRow, SlowHost>);
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
    analysis.fits = read_records(file, layout::kLinkFits, link_fit_row_type(),
                                 h5::record_of<LinkFit, LinkFitRow>);
    analysis.slow_hosts = read_records(file, layout::kSlowHosts, slow_host_row_type(),
                                       h5::record_of<SlowHost, SlowHostRow>);
    const h5::Handle table = h5::open_dataset(file, layout::kLinkFits);
    record.shortfall = h5::read_double_attribute(table.get(), layout::kShortfall);
    record.analysis = std::move(analysis);
  }
  return record;
}

}  // namespace collbench
