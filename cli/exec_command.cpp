#include "cli/exec_command.h"

#include <limits.h>
#include <sys/sysinfo.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>
#include <string>

#include "cli/byte_size.h"
#include "cli/exec_options.h"
#include "cli/exit_codes.h"
#include "cli/output_conflicts.h"
#include "cli/output_file.h"
#include "cli/suggestion.h"
#include "cli/usage_error.h"
#include "preload/policy_choice.h"
#include "preload/preload_environment.h"

#ifndef KITH_INSTALL_LIBDIR
#define KITH_INSTALL_LIBDIR "lib"
#endif

namespace kith::cli {

namespace {

using namespace kith::preload;

// The heap each process builds must be one the system maps (the arena and the
// policy's side tables): said once, before COMMAND runs, rather than by every
// process it starts. Building it here costs a mapping, not its memory.
std::optional<int> checkHeap(const ExecOptions& o) {
  try {
    heap::makeHeap(o.policy, o.heapBytes, heap::StatisticsMode::none);
  } catch (const std::bad_alloc&) {
    struct sysinfo info {};
    double memory = ::sysinfo(&info) == 0 ? static_cast<double>(info.totalram) * info.mem_unit / 1073741824.0 : 0;
    char machine[64];
    std::snprintf(machine, sizeof machine, "%.1f GiB", memory);
    return usageError("--heap-size: cannot reserve a heap of " + std::to_string(o.heapBytes) +
                      " bytes: the system refused the mapping (this machine has " + machine +
                      " of memory; each process reserves its heap whole and populates it as used); "
                      "try a smaller --heap-size");
  }
  return std::nullopt;
}

// Checks that the file an option names can be written (a wrong path costs no run: exit
// 73 before COMMAND starts) without touching what is there: each process writes its own
// file at its exit, whole or not at all (preload/whole_file.h). Keeps it as an absolute
// path: COMMAND's processes may change directory before they write it.
std::optional<int> checkOutput(const char* option, const std::string& path, std::string& out) {
  if (path == "-")
    return usageError(std::string(option) + "=- would mix into COMMAND's standard output; name a file" +
                      (std::string_view(option) == "--stats-file" ? " (or --stats=json: standard error)" : ""));
  OutputFile file;
  if (!file.open(path)) return kExitCantCreate;
  file.discard();
  out = std::filesystem::absolute(path).lexically_normal().string();
  return std::nullopt;
}

// exec's options and COMMAND, and the outputs checked before COMMAND starts.
std::optional<int> readOptions(const std::vector<std::string_view>& args, ExecOptions& o) {
  if (auto exit = parseExecOptions(args, o)) return exit;
  if (auto exit = checkHeap(o)) return exit;
  // An output may be neither the other output nor a file COMMAND is given (its program or
  // an argument naming a file): the process's exit would replace what it read.
  std::vector<NamedOutput> outputs;
  if (!o.statsFile.empty()) outputs.push_back({"--stats-file", o.statsFile});
  if (!o.trace.empty()) outputs.push_back({"--trace", o.trace});
  std::vector<NamedInput> inputs;
  for (std::size_t i = 0; i < o.command.size(); ++i)
    if (o.command[i] != "-") inputs.push_back({i == 0 ? "the program" : "an argument of COMMAND", o.command[i]});
  if (auto exit = refuseSharedOutputs(outputs, inputs)) return exit;
  if (!o.statsFile.empty())
    if (auto exit = checkOutput("--stats-file", o.statsFile, o.statsFile)) return exit;
  if (!o.trace.empty())
    if (auto exit = checkOutput("--trace", o.trace, o.trace)) return exit;
  return std::nullopt;
}

// libkith_malloc.so beside this kith: the build tree's preload/ (kith is
// build/<preset>/cli/kith), else the installed lib/kith/ (kith in bin/).
std::optional<std::string> findLibrary(std::string& looked) {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return std::nullopt;
  self[n] = '\0';
  std::string dir(self);
  dir.erase(dir.rfind('/'));
  for (const std::string& candidate : {dir + "/../preload/" + kLibraryName,
                                       dir + "/../" KITH_INSTALL_LIBDIR "/kith/" + kLibraryName}) {
    char resolved[PATH_MAX];
    if (::realpath(candidate.c_str(), resolved) && ::access(resolved, R_OK) == 0) return std::string(resolved);
    looked += (looked.empty() ? "" : ", ") + candidate;
  }
  return std::nullopt;
}

void setOrUnset(const char* name, const std::string& value) {
  if (value.empty()) ::unsetenv(name);
  else ::setenv(name, value.c_str(), 1);
}

// In the child, before exec: the library and the options, for COMMAND and every
// process it starts (and nothing left over from an outer kith exec).
// --heap=malloc with nothing to count, record or check is glibc itself: nothing is
// preloaded, so the comparison pays not even the library's loading.
void setEnvironment(const ExecOptions& o, const std::string& library) {
  bool bare = o.policy == "malloc" && o.stats.empty() && o.statsFile.empty() && o.trace.empty() && !o.check;
  std::string preload = std::getenv("LD_PRELOAD") ? std::getenv("LD_PRELOAD") : "";
  // Once is enough (kith exec under kith exec): the loader would map it once anyway.
  bool listed = (":" + preload + ":").find(":" + library + ":") != std::string::npos;
  if (!bare && !listed) setOrUnset("LD_PRELOAD", preload.empty() ? library : library + ":" + preload);
  setOrUnset(kHeapVariable, o.policy);
  setOrUnset(kHeapSizeVariable, std::to_string(o.heapBytes));
  setOrUnset(kStatsVariable, o.stats);
  setOrUnset(kStatsFileVariable, o.statsFile);
  setOrUnset(kTraceVariable, o.trace);
  setOrUnset(kCheckVariable, o.check ? "1" : "");
  setOrUnset(kRootPidVariable, std::to_string(::getpid()));
}

[[noreturn]] void runCommand(const ExecOptions& o, const std::string& library) {
  setEnvironment(o, library);
  std::vector<char*> argv;
  for (const std::string& word : o.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  // As a shell reports them: not found 127, found but not runnable 126.
  int error = errno;
  const char* name = o.command[0].c_str();
  if (error == ENOENT || error == ENOTDIR) {
    std::fprintf(stderr, "kith: %s: %s\n", name,
                 std::strchr(name, '/') ? "No such file or directory" : "command not found");
    ::_exit(127);
  }
  std::fprintf(stderr, "kith: %s: %s\n", name, std::strerror(error));
  ::_exit(126);
}

pid_t child = 0;
// A termination request to kith is passed on to COMMAND, whose end kith reports.
void passOn(int signal) {
  if (child > 0) ::kill(child, signal);
}

int waitForCommand() {
  // As a shell waiting for a command: a terminal's interrupt reaches COMMAND (same
  // process group) and kith reports how it ended instead of dying first.
  struct sigaction ignore {}, forward {}, oldInt {}, oldQuit {}, oldTerm {}, oldHup {};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = &passOn;
  ::sigaction(SIGINT, &ignore, &oldInt);
  ::sigaction(SIGQUIT, &ignore, &oldQuit);
  ::sigaction(SIGTERM, &forward, &oldTerm);
  ::sigaction(SIGHUP, &forward, &oldHup);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &oldInt, nullptr);
  ::sigaction(SIGQUIT, &oldQuit, nullptr);
  ::sigaction(SIGTERM, &oldTerm, nullptr);
  ::sigaction(SIGHUP, &oldHup, nullptr);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace


int execCommand(const std::vector<std::string_view>& args) {
  ExecOptions o;
  if (auto exit = readOptions(args, o)) return *exit;
  std::string looked;
  auto library = findLibrary(looked);
  if (!library) {
    std::fprintf(stderr, "kith: exec: cannot find %s (looked for %s)\n", kLibraryName, looked.c_str());
    return kExitUnavailable;
  }
  std::fflush(nullptr);  // nothing of kith's buffered output may come out twice
  child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "kith: exec: cannot start a process: %s\n", std::strerror(errno));
    return kExitOsError;
  }
  if (child == 0) runCommand(o, *library);
  return waitForCommand();
}

}  // namespace kith::cli
