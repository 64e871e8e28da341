// The command an alert prints to confirm it with interleaved launches.
#include "harness/compare/confirm_command.h"

#include <gtest/gtest.h>

namespace collbench {
namespace {

Provenance run(const std::string& command_line, std::map<std::string, std::string> environment) {
  Provenance p;
  p.text["command_line"] = command_line;
  p.text["collbench_version"] = "0.1.0";
  p.text["git_revision"] = "abc";
  p.integers["nranks"] = 4;
  p.environment = std::move(environment);
  return p;
}

TEST(ConfirmCommand, EachLaunchCarriesWhatTellsItFromTheOther) {
  const Provenance level = run("/opt/collbench run --ops allreduce --out nights/1.h5",
                               {{"NCCL_ALGO", "Ring"}, {"OMPI_COMM_WORLD_RANK", "0"},
                                {"UCX_TLS", "rc"}});
  const Provenance tonight = run("/opt/collbench run --ops allreduce --out=nights/2.h5",
                                 {{"NCCL_ALGO", "Tree"}, {"OMPI_COMM_WORLD_RANK", "3"}});
  EXPECT_EQ(confirm_command(level, tonight),
            "ci/interleave --out interleave/ "
            "--a 'env NCCL_ALGO=Ring UCX_TLS=rc mpirun -np 4 /opt/collbench run --ops allreduce' "
            "--b 'env -u UCX_TLS NCCL_ALGO=Tree mpirun -np 4 /opt/collbench run --ops "
            "allreduce'");
}

TEST(ConfirmCommand, DifferentBuildsAreNamedAndSlurmLaunchesWithSrun) {
  Provenance level = run("collbench run -b 8 --out a.h5", {});
  Provenance tonight = level;
  tonight.text["git_revision"] = "def";
  level.text["slurm_job_id"] = tonight.text["slurm_job_id"] = "42";
  const std::string command = confirm_command(level, tonight);
  EXPECT_NE(command.find("--a 'srun collbench run -b 8' --b 'srun collbench run -b 8'"),
            std::string::npos)
      << command;
  EXPECT_NE(command.find("the builds differ: git_revision abc and def"), std::string::npos)
      << command;
}

}  // namespace
}  // namespace collbench
