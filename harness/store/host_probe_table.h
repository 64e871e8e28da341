#pragma once
// /host_probe of a run file (results/SCHEMA.md, schema 20): the host-state probe's readings
// (harness/plan/host_probe.h), a row per moment and size, rewritten at each moment so that a
// run killed later keeps those taken.
#include "harness/plan/host_probe.h"
#include "harness/store/h5.h"

namespace collbench {

// Replaces /host_probe.
void write_host_probe_table(hid_t file, const HostProbe& probe);

// No readings when the file holds none (a file before schema 20). Throws std::runtime_error
// naming a damaged table.
HostProbe read_host_probe_table(hid_t file);

}  // namespace collbench
