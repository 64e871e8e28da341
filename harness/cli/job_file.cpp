#include "harness/cli/job_file.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "harness/measure/fault_guard.h"

namespace collbench {

JobFile open_job_file(Communicator& world, std::string_view command, const OutputFile& output,
                      KeepSamples keep) {
  JobFile file;
  if (world.rank() == kCoordinatorRank) try {
      if (output.default_path) std::filesystem::create_directories(output.path.parent_path());
      file.writer = std::make_unique<ResultWriter>(output.path, output.force, keep);
    } catch (const FileWriteFailed& error) {
      std::error_code ignored;
      std::filesystem::remove(output.path, ignored);
      fmt::print(stderr, "collbench {}: {}; nothing written\n", command, error.what());
      file.exit_code = kExitFault;
    } catch (const std::exception& error) {
      fmt::print(stderr, "collbench {}: --out: {}\n", command, error.what());
      file.exit_code = kExitUsage;
    }
  CommunicationWait wait("agreeing whether the result file opened");
  file.exit_code = static_cast<int>(world.sum_over_ranks(file.exit_code));
  return file;
}

}  // namespace collbench
