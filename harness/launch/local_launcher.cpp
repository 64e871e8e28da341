#include "local_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "harness/errors.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

// The ranks are polled rather than waited on with waitpid(-1) or a blocked SIGCHLD, so that the
// caller's other children and threads are left alone; a rank's end is seen within this interval.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

// A signal handler may only read lock-free atomics: one pid per rank, 0 once it is reaped.
std::atomic<pid_t>* g_rank_pids = nullptr;
std::atomic<std::size_t> g_rank_count{0};

void forward_signal(int signal) {
  const std::size_t count = g_rank_count.load();
  for (std::size_t rank = 0; rank < count; ++rank)
    if (const pid_t pid = g_rank_pids[rank].load(); pid > 0) ::kill(pid, signal);
}

// While it lives, SIGINT and SIGTERM sent to this process go to the ranks instead: they exit 3
// on their own, and the launcher reports how.
class SignalForwarding {
 public:
  explicit SignalForwarding(std::vector<std::atomic<pid_t>>& pids) {
    g_rank_pids = pids.data();
    g_rank_count.store(pids.size());
    struct sigaction action {};
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, &saved_[0]);
    sigaction(SIGTERM, &action, &saved_[1]);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &saved_[0], nullptr);
    sigaction(SIGTERM, &saved_[1], nullptr);
    g_rank_count.store(0);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  struct sigaction saved_[2];
};

std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text(*entry);
    if (const auto equals = text.find('='); equals != std::string_view::npos)
      variables.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return variables;
}

std::map<std::string, std::string> rank_environment(const LocalLaunch& launch,
                                                    std::map<std::string, std::string> variables,
                                                    int rank) {
  variables["COLLBENCH_RANK"] = std::to_string(rank);
  variables["COLLBENCH_NRANKS"] = std::to_string(launch.nranks);
  variables["COLLBENCH_LOCAL_RANK"] = std::to_string(rank);
  variables["COLLBENCH_LOCAL_SIZE"] = std::to_string(launch.nranks);
  // The ranks are all on this machine: NCCL's bootstrap and socket transport stay on loopback
  // (an interface the user chose is kept) instead of probing for a network it does not need.
  variables.emplace("NCCL_SOCKET_IFNAME", "lo");
  // A distinct host id makes NCCL treat each rank as another node, so it uses the network
  // transport instead of shared memory or P2P.
  if (launch.virtual_nodes) variables["NCCL_HOSTID"] = fmt::format("collbench-vnode-{}", rank);
  return variables;
}

// Strings laid out as posix_spawn wants them: an array of pointers ending with nullptr.
class CStringArray {
 public:
  explicit CStringArray(std::vector<std::string> strings) : strings_(std::move(strings)) {
    for (std::string& text : strings_) pointers_.push_back(text.data());
    pointers_.push_back(nullptr);
  }
  char* const* data() const { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

// Returns the rank's pid, or 0 after saying why it could not be started. The rank gets SIGKILL
// when this process dies, so that a launcher killed from outside (a test's timeout, a job
// step's end) leaves no rank behind holding the GPU. fork, not posix_spawn, because only the
// child can ask for that; a pipe closed by a successful exec carries a failed exec's errno back.
pid_t spawn_rank(const LocalLaunch& launch, const std::map<std::string, std::string>& environment,
                 int rank) {
  std::vector<std::string> assignments;
  for (const auto& [name, value] : rank_environment(launch, environment, rank))
    assignments.push_back(name + "=" + value);
  const CStringArray argv(launch.arguments);
  const CStringArray envp(std::move(assignments));
  const auto cannot_start = [&](int error) {
    fmt::print(stderr, "collbench: cannot start rank {}: {}: {}\n", rank,
               launch.executable.string(), std::strerror(error));
    return pid_t{0};
  };
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) return cannot_start(errno);
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    close(exec_error[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher) _exit(kExitFault);  // the launcher died before prctl
    execve(launch.executable.c_str(), argv.data(), envp.data());
    const int error = errno;
    [[maybe_unused]] auto written = write(exec_error[1], &error, sizeof(error));
    _exit(kExitFault);
  }
  int error = pid < 0 ? errno : 0;
  close(exec_error[1]);
  // End of file: the exec went through. Four bytes: its errno, and a child to reap.
  if (pid > 0 && read(exec_error[0], &error, sizeof(error)) == sizeof(error))
    waitpid(pid, nullptr, 0);
  close(exec_error[0]);
  return error == 0 ? pid : cannot_start(error);
}

struct RankEnd {
  int exit_code;
  std::string description;
};

RankEnd rank_end(const siginfo_t& info) {
  if (info.si_code == CLD_EXITED)
    return {info.si_status, fmt::format("exited with code {}", info.si_status)};
  const char* name = sigabbrev_np(info.si_status);
  return {kExitFault, fmt::format("was killed by {}{}",
                                  name ? fmt::format("SIG{}", name)
                                       : fmt::format("signal {}", info.si_status),
                                  info.si_code == CLD_DUMPED ? " (core dumped)" : "")};
}

// How the rank ended, or nullopt while it runs. WNOWAIT leaves it unreaped, so that its pid
// cannot be reused by another process before its slot is cleared and forwarding stops.
std::optional<RankEnd> peek_rank_end(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    const int error = errno;
    if (error == EINTR) return std::nullopt;
    // Reaped elsewhere (SIGCHLD ignored): how it ended is unknown, so count it as a fault.
    return RankEnd{kExitFault, fmt::format("could not be waited for: {}", std::strerror(error))};
  }
  if (info.si_pid != pid) return std::nullopt;
  return rank_end(info);
}

void signal_live_ranks(const std::vector<std::atomic<pid_t>>& pids, int signal) {
  for (const auto& slot : pids)
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, signal);
}

}  // namespace

int run_local_ranks(const LocalLaunch& launch) {
  if (launch.nranks < 1)
    throw std::invalid_argument(
        fmt::format("run_local_ranks: nranks must be at least 1, not {}", launch.nranks));

  std::vector<std::atomic<pid_t>> pids(static_cast<std::size_t>(launch.nranks));
  const SignalForwarding forwarding(pids);
  std::optional<int> first_failure;
  auto kill_deadline = Clock::time_point::max();  // until a rank fails
  const auto fail = [&](int exit_code) {
    first_failure = exit_code;
    signal_live_ranks(pids, SIGTERM);
    kill_deadline = Clock::now() + kRankTerminationGrace;
  };

  auto environment = inherited_environment();
  for (const auto& [name, value] : launch.environment) environment[name] = value;
  int live = 0;
  for (int rank = 0; rank < launch.nranks; ++rank) {
    const pid_t pid = spawn_rank(launch, environment, rank);
    if (pid == 0) {
      fail(kExitFault);
      break;
    }
    pids[rank].store(pid);
    ++live;
  }

  while (live > 0) {
    for (int rank = 0; rank < launch.nranks; ++rank) {
      const pid_t pid = pids[rank].load();
      if (pid == 0) continue;
      const std::optional<RankEnd> end = peek_rank_end(pid);
      if (!end) continue;
      pids[rank].store(0);
      waitpid(pid, nullptr, 0);
      --live;
      if (end->exit_code != 0 && !first_failure) {
        fmt::print(stderr, "collbench: rank {} (pid {}) {}\n", rank, pid, end->description);
        fail(end->exit_code);
      }
    }
    if (Clock::now() >= kill_deadline) {
      for (int rank = 0; rank < launch.nranks; ++rank)
        if (const pid_t pid = pids[rank].load(); pid > 0)
          fmt::print(stderr, "collbench: rank {} (pid {}) still running {} s after SIGTERM; "
                     "sending SIGKILL\n", rank, pid, kRankTerminationGrace.count());
      signal_live_ranks(pids, SIGKILL);
      kill_deadline = Clock::time_point::max();
    }
    if (live > 0) std::this_thread::sleep_for(kPollInterval);
  }
  return first_failure.value_or(kExitOk);
}

std::vector<std::string> without_launcher_flags(const std::vector<std::string>& argv) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--np")
      ++i;  // and its value
    else if (argv[i] != "--virtual-nodes" && !argv[i].starts_with("--np="))
      kept.push_back(argv[i]);
  }
  return kept;
}

}  // namespace collbench
