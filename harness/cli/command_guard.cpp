#include "command_guard.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <fmt/format.h>

#include "backends/communicator.h"
#include "harness/errors.h"
#include "harness/measure/fault_guard.h"
#include "harness/store/result_file.h"
#include "topo/discovery.h"

namespace collbench {
namespace {

enum class Ending { usage, corruption, fault, internal };

template <typename... Errors>
bool is_one_of(const std::exception& error) {
  return ((dynamic_cast<const Errors*>(&error) != nullptr) || ...);
}

Ending ending_of(const std::exception& error) {
  if (is_one_of<UsageError, InvalidResultFile, BackendUnavailable>(error)) return Ending::usage;
  if (is_one_of<ControlCorruption>(error)) return Ending::corruption;
  if (is_one_of<FaultError, CommunicationFault>(error)) return Ending::fault;
  return Ending::internal;
}

// The command std::terminate names; set once before the command runs.
std::string g_command;

// Each line of `message` after "collbench COMMAND: ", the first after `lead` too; a final newline
// ends the last line. Writes without allocating or throwing: the guard must not fail while it
// reports a failure.
void print_lines(std::string_view command, std::string_view lead, std::string_view message) {
  for (bool first = true;; first = false) {
    const std::size_t end = message.find('\n');
    const std::string_view line = message.substr(0, end);
    std::fprintf(stderr, "collbench %.*s: %.*s%.*s\n", static_cast<int>(command.size()),
                 command.data(), first ? static_cast<int>(lead.size()) : 0, lead.data(),
                 static_cast<int>(line.size()), line.data());
    if (end == std::string_view::npos || end + 1 == message.size()) return;
    message.remove_prefix(end + 1);
  }
}

[[noreturn]] void end_terminated() {
  std::string_view what = "std::terminate without an exception";
  try {
    if (const std::exception_ptr current = std::current_exception())
      std::rethrow_exception(current);
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  print_lines(g_command, "internal error: ", what);
  std::fflush(stderr);
  std::_Exit(kExitFault);
}

}  // namespace

int run_guarded(const std::string& command, bool may_print, const std::function<int()>& body) {
  g_command = command;
  std::set_terminate(end_terminated);
  try {
    return body();
  } catch (const std::exception& error) {
    const Ending ending = ending_of(error);
    if (ending != Ending::usage || may_print)
      print_lines(command, ending == Ending::internal ? "internal error: " : "", error.what());
    return exit_code_of(error);
  } catch (...) {
    print_lines(command, "internal error: ", "an exception that is not a std::exception");
    return kExitFault;
  }
}

int exit_code_of(const std::exception& error) {
  switch (ending_of(error)) {
    case Ending::usage: return kExitUsage;
    case Ending::corruption: return kExitWrongOrFailed;
    case Ending::fault:
    case Ending::internal: break;
  }
  return kExitFault;
}

void abort_job(const std::string& command, Backend& backend, const std::exception& error,
               const std::string& kept) {
  const bool corrupted = ending_of(error) == Ending::corruption;
  const std::string wait = failed_wait(), context = fault_context();
  fmt::print(stderr, "collbench {}: rank {} on {}: {}{}{}: {}{}; {}\n", command,
             backend.world().rank(), this_host(),
             corrupted ? "corrupted control message" : "fault",
             wait.empty() ? "" : " in " + wait, context.empty() ? "" : " at " + context,
             error.what(),
             corrupted ? "; the fabric or the communication library damages data" : "", kept);
  backend.abort(exit_code_of(error));
}

int usage_error_within_job(const std::string& command, bool may_print, const UsageError& error) {
  if (may_print) print_lines(command, "", error.what());
  return kExitUsage;
}

}  // namespace collbench
