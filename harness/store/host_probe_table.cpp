#include "harness/store/host_probe_table.h"

#include <cstdint>

#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"

namespace collbench {
namespace {

struct ProbeRow {
  h5::NameOf<ProbeMoment, parse_probe_moment, 8> moment;
  std::uint64_t size_bytes;
  double copy_GBps;
};

#define PROBE_MEMBERS moment, size_bytes, copy_GBps

COLLBENCH_SHARED_MEMBERS(ProbeReading, ProbeRow, PROBE_MEMBERS)

hid_t probe_row_type() {
  static const h5::Handle type = COLLBENCH_ROW_TYPE(ProbeRow, PROBE_MEMBERS);
  return type.get();
}

}  // namespace

void write_host_probe_table(hid_t file, const HostProbe& probe) {
  write_records(file, layout::kHostProbe, probe_row_type(), probe.readings,
                h5::row_of<ProbeRow, ProbeReading>);
  h5::flush(file);
}

HostProbe read_host_probe_table(hid_t file) {
  if (!h5::link_exists(file, layout::kHostProbe)) return {};
  return {read_records(file, layout::kHostProbe, probe_row_type(),
                       h5::record_of<ProbeReading, ProbeRow>)};
}

}  // namespace collbench
