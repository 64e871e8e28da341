#include "harness/store/link_bound_table.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/store/h5_table.h"
#include "harness/store/layout.h"

namespace collbench {
namespace {

struct LinkBoundRow {
  std::uint64_t point_id;
  char kind[8];
  std::int32_t links;
  double alpha_us;
  double bandwidth_GBps;
  char algorithm[32];
  double predicted_us;
  double measured_us;
  double ratio;
};

hid_t link_bound_row_type() {
  static const h5::Handle type = [] {
    h5::RowType row(sizeof(LinkBoundRow));
    row.add(COLLBENCH_MEMBER(LinkBoundRow, point_id, H5T_NATIVE_UINT64))
        .text(COLLBENCH_TEXT(LinkBoundRow, kind))
        .add(COLLBENCH_MEMBER(LinkBoundRow, links, H5T_NATIVE_INT32))
        .add(COLLBENCH_MEMBER(LinkBoundRow, alpha_us, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkBoundRow, bandwidth_GBps, H5T_NATIVE_DOUBLE))
        .text(COLLBENCH_TEXT(LinkBoundRow, algorithm))
        .add(COLLBENCH_MEMBER(LinkBoundRow, predicted_us, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkBoundRow, measured_us, H5T_NATIVE_DOUBLE))
        .add(COLLBENCH_MEMBER(LinkBoundRow, ratio, H5T_NATIVE_DOUBLE));
    return row.done();
  }();
  return type.get();
}

LinkBoundRow to_row(const LinkBound& bound) {
  LinkBoundRow row{};
  row.point_id = bound.point_index;
  h5::store_fixed_string(name(bound.kind), row.kind);
  row.links = bound.links;
  row.alpha_us = bound.alpha_us;
  row.bandwidth_GBps = bound.bandwidth_GBps;
  h5::store_fixed_string(bound.algorithm, row.algorithm);
  row.predicted_us = bound.predicted_us;
  row.measured_us = bound.measured_us;
  row.ratio = bound.ratio();
  return row;
}

LinkBound from_row(const LinkBoundRow& row) {
  const std::string kind = h5::load_fixed_string(row.kind);
  const auto parsed = parse_link_kind(kind);
  if (!parsed)
    throw std::runtime_error(fmt::format("/{}: unknown link kind '{}'", layout::kLinkBounds, kind));
  return {.point_index = row.point_id,
          .kind = *parsed,
          .links = row.links,
          .alpha_us = row.alpha_us,
          .bandwidth_GBps = row.bandwidth_GBps,
          .algorithm = h5::load_fixed_string(row.algorithm),
          .predicted_us = row.predicted_us,
          .measured_us = row.measured_us};
}

}  // namespace

void write_link_bound_table(hid_t file, const LinkBoundRecord& record) {
  std::vector<LinkBoundRow> rows;
  for (const LinkBound& bound : record.bounds) rows.push_back(to_row(bound));
  h5::write_table(file, layout::kLinkBounds, link_bound_row_type(), rows.size(), rows.data());
  const h5::Handle table = h5::open_dataset(file, layout::kLinkBounds);
  h5::write_string_attribute(table.get(), layout::kLinksFile, record.links_file);
  h5::write_string_attribute(table.get(), layout::kLinksStartUtc, record.links_start_utc);
  h5::write_string_attribute(table.get(), layout::kUnits,
                             "per field name: _us microseconds, _GBps 10^9 bytes/s");
  h5::flush(file);
}

std::optional<LinkBoundRecord> read_link_bounds(hid_t file) {
  if (!h5::link_exists(file, layout::kLinkBounds)) return std::nullopt;
  LinkBoundRecord record;
  for (const LinkBoundRow& row :
       h5::read_rows<LinkBoundRow>(file, layout::kLinkBounds, link_bound_row_type()))
    record.bounds.push_back(from_row(row));
  const h5::Handle table = h5::open_dataset(file, layout::kLinkBounds);
  record.links_file = h5::read_string_attribute(table.get(), layout::kLinksFile);
  record.links_start_utc = h5::read_string_attribute(table.get(), layout::kLinksStartUtc);
  return record;
}

}  // namespace collbench
