// The one shape of a command-line mistake (docs/CLI.md): a one-line
// "kith: ..." message and one hint line on stderr, exit 64 (sysexits' EX_USAGE).
// The hint is a suggestion when there is one ("did you mean ...?", cli/suggestion.h),
// else a pointer to --help.
#pragma once

#include <cstdio>
#include <string>

#include "cli/exit_codes.h"

namespace kith::cli {

inline int usageError(const std::string& message, const std::string& hint = "") {
  std::fprintf(stderr, "kith: %s\n%s\n", message.c_str(), hint.empty() ? "(see kith --help)" : hint.c_str());
  return kExitUsage;
}

}  // namespace kith::cli
