#include "harness/store/link_bound_table.h"

#include <cstdint>
#include <string>
#include <vector>

#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"

namespace collbench {
namespace {

struct LinkBoundRow {
  std::uint64_t point_id;
  h5::NameOf<LinkKind, parse_link_kind, 8> kind;
  std::int32_t links;
  double alpha_us;
  double bandwidth_GBps;
  char algorithm[32];
  double predicted_us;
  double measured_us;
  double ratio;
};

// Every column but the ratio, which the record derives.
#define LINK_BOUND_SHARED_MEMBERS \
  point_id, kind, links, alpha_us, bandwidth_GBps, algorithm, predicted_us, measured_us

COLLBENCH_SHARED_MEMBERS(LinkBound, LinkBoundRow, LINK_BOUND_SHARED_MEMBERS)

hid_t link_bound_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(LinkBoundRow, LINK_BOUND_SHARED_MEMBERS, ratio);
  return type.get();
}

LinkBoundRow to_link_bound_row(const LinkBound& bound) {
  auto row = h5::row_of<LinkBoundRow>(bound);
  row.ratio = bound.ratio();
  return row;
}

}  // namespace

void write_link_bound_table(hid_t file, const LinkBoundRecord& record) {
  const h5::Handle table =
      write_records(file, layout::kLinkBounds, link_bound_row_type(), record.bounds,
                    to_link_bound_row);
  h5::write_string_attribute(table.get(), layout::kLinksFile, record.links_file);
  h5::write_string_attribute(table.get(), layout::kLinksStartUtc, record.links_start_utc);
  h5::flush(file);
}

std::optional<LinkBoundRecord> read_link_bounds(hid_t file) {
  if (!h5::link_exists(file, layout::kLinkBounds)) return std::nullopt;
  LinkBoundRecord record;
  record.bounds = read_records(file, layout::kLinkBounds, link_bound_row_type(),
                               h5::record_of<LinkBound, LinkBoundRow>);
  const h5::Handle table = h5::open_dataset(file, layout::kLinkBounds);
  record.links_file = h5::read_string_attribute(table.get(), layout::kLinksFile);
  record.links_start_utc = h5::read_string_attribute(table.get(), layout::kLinksStartUtc);
  return record;
}

}  // namespace collbench
