#include "cli/study_command.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/exit_codes.h"

#ifndef KITH_SOURCE_DIR
#error "KITH_SOURCE_DIR (the source tree, where study/ lives) is defined by cli/CMakeLists.txt"
#endif
#ifndef KITH_BUILD_DESCRIPTION
#define KITH_BUILD_DESCRIPTION "unknown compiler"
#endif

namespace kith::cli {

namespace {

constexpr const char* kPython = "/usr/bin/python3";

// This binary's own path, so that every run of the study uses the same kith.
std::string selfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "kith";
  buf[n] = '\0';
  return buf;
}

}  // namespace

int runStudyCommand(const std::vector<std::string_view>& args) {
  std::string script = std::string(KITH_SOURCE_DIR) + "/study";  // the package: its __main__.py
  std::string entry = script + "/__main__.py";
  if (access(kPython, X_OK) != 0) {
    std::fprintf(stderr, "kith: study needs %s (Debian: apt-get install python3; scripts/setup does it)\n", kPython);
    return kExitUnavailable;
  }
  if (access(entry.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "kith: study needs its driver %s: %s (this kith was built from that source tree)\n",
                 entry.c_str(), std::strerror(errno));
    return kExitUnavailable;
  }
  std::vector<std::string> argv = {kPython, script, "--kith=" + selfPath(),
                                   std::string("--kith-build=") + KITH_BUILD_DESCRIPTION};
  for (std::string_view a : args) argv.emplace_back(a);
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  std::fflush(nullptr);
  execv(kPython, pointers.data());
  std::fprintf(stderr, "kith: cannot run %s: %s\n", kPython, std::strerror(errno));
  return kExitOsError;
}

}  // namespace kith::cli
