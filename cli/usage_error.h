// The one shape of a command-line mistake (../shared/CLI.md): a one-line
// "kith: ..." message and a pointer to --help on stderr, exit 64 (sysexits'
// EX_USAGE).
#pragma once

#include <cstdio>
#include <string>

#include "cli/exit_codes.h"

namespace kith::cli {

inline int usageError(const std::string& message) {
  std::fprintf(stderr, "kith: %s\n(see kith --help)\n", message.c_str());
  return kExitUsage;
}

}  // namespace kith::cli
