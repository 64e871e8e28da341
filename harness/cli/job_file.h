#pragma once
// The result file a job (`run`, `links`) opens on rank 0 once its ranks are up.
#include <memory>
#include <string_view>

#include "backends/communicator.h"
#include "harness/errors.h"
#include "harness/plan/output_file.h"
#include "harness/plan/sample_retention.h"
#include "harness/store/result_file.h"

namespace collbench {

struct JobFile {
  std::unique_ptr<ResultWriter> writer;  // rank 0's; null on the other ranks and on failure
  int exit_code = kExitOk;  // else the code every rank exits with
};

// Rank 0 creates the file; every rank learns whether it could, so that all end alike: exit 2
// where --out is bad (its folder missing, a file there without --force), 3 where it could not
// be written (a full disk: the file is removed, nothing written). Rank 0 prints why, after
// "collbench COMMAND: ".
JobFile open_job_file(Communicator& world, std::string_view command, const OutputFile& output,
                      KeepSamples keep);

}  // namespace collbench
