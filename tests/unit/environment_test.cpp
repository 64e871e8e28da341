#include "harness/provenance/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace collbench {
namespace {

TEST(IsRecordedVariable, KeepsBehaviourChangingLibraryVariables) {
  for (const char* name : {"NCCL_DEBUG", "NCCL_ALGO", "NCCL_PROTO", "NCCL_IB_HCA", "UCX_TLS",
                           "UCX_NET_DEVICES", "OMPI_MCA_btl", "OMPI_MCA_pml", "OMPI_COMM_WORLD_SIZE",
                           "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_JOB_NODELIST",
                           "SLURM_ARRAY_TASK_ID", "CUDA_VISIBLE_DEVICES",
                           "CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_IB_PKEY", "UCX_IB_PKEY"})
    EXPECT_TRUE(is_recorded_variable(name)) << name;
}

TEST(IsRecordedVariable, DropsEverythingOutsideTheLibraryPrefixes) {
  for (const char* name : {"PATH", "HOME", "USER", "LD_LIBRARY_PATH", "AWS_SECRET_ACCESS_KEY",
                           "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "PMIX_RANK",
                           "nccl_debug", "XNCCL_DEBUG", "NCCL", "CUDA", ""})
    EXPECT_FALSE(is_recorded_variable(name)) << name;
}

TEST(IsRecordedVariable, DropsSecretsEvenUnderALibraryPrefix) {
  for (const char* name :
       {"SLURM_JOB_TOKEN", "SLURM_AUTH_TOKEN", "SLURM_MY_SECRET", "NCCL_IB_KEY",
        "NCCL_SOME_API_KEY", "NCCL_PASSWORD", "UCX_CREDENTIALS", "CUDA_Secret_Value",
        "OMPI_MCA_orte_precondition_transports", "OMPI_MCA_ess_base_precondition_transports",
        "UCX_token"})
    EXPECT_FALSE(is_recorded_variable(name)) << name;
}

// Sets variables for one test and restores what was there before.
class ScopedEnvironment {
 public:
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    ASSERT_EQ(setenv(name.c_str(), value.c_str(), 1), 0);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(RecordedEnvironment, KeepsLibraryVariablesAndNeverSecrets) {
  ScopedEnvironment env;
  env.set("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  env.set("NCCL_DEBUG", "INFO");
  env.set("UCX_TLS", "rc,sm,self");
  env.set("SLURM_JOB_TOKEN", "token-value");
  env.set("OMPI_MCA_orte_precondition_transports", "0123456789abcdef-0123456789abcdef");
  env.set("NCCL_TEST_VALUE_WITH_EQUALS", "a=b=c");
  env.set("NCCL_TEST_EMPTY", "");

  const auto recorded = recorded_environment();
  ASSERT_EQ(recorded.count("NCCL_DEBUG"), 1u);
  EXPECT_EQ(recorded.at("NCCL_DEBUG"), "INFO");
  ASSERT_EQ(recorded.count("UCX_TLS"), 1u);
  EXPECT_EQ(recorded.at("UCX_TLS"), "rc,sm,self");
  ASSERT_EQ(recorded.count("NCCL_TEST_VALUE_WITH_EQUALS"), 1u);
  EXPECT_EQ(recorded.at("NCCL_TEST_VALUE_WITH_EQUALS"), "a=b=c");
  ASSERT_EQ(recorded.count("NCCL_TEST_EMPTY"), 1u);
  EXPECT_EQ(recorded.at("NCCL_TEST_EMPTY"), "");

  EXPECT_EQ(recorded.count("AWS_SECRET_ACCESS_KEY"), 0u);
  EXPECT_EQ(recorded.count("SLURM_JOB_TOKEN"), 0u);
  EXPECT_EQ(recorded.count("OMPI_MCA_orte_precondition_transports"), 0u);
  EXPECT_EQ(recorded.count("PATH"), 0u);
  EXPECT_EQ(recorded.count("HOME"), 0u);
  // No secret value leaks under another name either.
  for (const auto& [name, value] : recorded) {
    EXPECT_TRUE(is_recorded_variable(name)) << name;
    EXPECT_EQ(value.find("wJalrXUtnFEMI"), std::string::npos) << name;
    EXPECT_NE(value, "token-value") << name;
  }
}

TEST(RecordedEnvironment, ReflectsTheCurrentEnvironment) {
  {
    ScopedEnvironment env;
    env.set("NCCL_COLLBENCH_UNIT_PROBE", "1");
    EXPECT_EQ(recorded_environment().count("NCCL_COLLBENCH_UNIT_PROBE"), 1u);
  }
  EXPECT_EQ(recorded_environment().count("NCCL_COLLBENCH_UNIT_PROBE"), 0u);
}

}  // namespace
}  // namespace collbench
