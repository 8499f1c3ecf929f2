// The `kith` command's exit codes (docs/CLI.md), sysexits.h's numbers, so a
// shell script reads them as it reads any Unix tool's. A script's own
// System.exit(code) passes through unchanged.
#pragma once

namespace kith::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;        // EX_USAGE: a command-line mistake
inline constexpr int kExitDataError = 65;    // EX_DATAERR: compile errors, a malformed trace
inline constexpr int kExitNoInput = 66;      // EX_NOINPUT: a missing or unreadable script or trace
inline constexpr int kExitUnavailable = 69;  // EX_UNAVAILABLE: a program `kith study` needs is missing
inline constexpr int kExitSoftware = 70;     // EX_SOFTWARE: an uncaught runtime error, a failed benchmark
inline constexpr int kExitOsError = 71;      // EX_OSERR: the study driver could not be started
inline constexpr int kExitCantCreate = 73;   // EX_CANTCREAT: an output (a file, stdout) cannot be written

}  // namespace kith::cli
