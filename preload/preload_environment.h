// The environment variables that carry `kith exec`'s options to libkith_malloc.so
// in every process it starts (docs/EXEC.md). `kith exec` sets them; a user can set
// them by hand with LD_PRELOAD, as with any preloaded malloc:
//   LD_PRELOAD=build/release/preload/libkith_malloc.so KITH_HEAP=tlsf COMMAND
// This header is the one place their names are written; cli/exec_command.cpp and
// the library both read it.
#pragma once

namespace kith::preload {

// The policy (a name `kith policies` lists that serves explicit frees); default estranged.
inline constexpr const char* kHeapVariable = "KITH_HEAP";
// The arena reserved for it: bytes, or a number with K, M, G or T; default 1G.
inline constexpr const char* kHeapSizeVariable = "KITH_HEAP_SIZE";
// "table" or "json": the process's statistics on standard error when it exits.
inline constexpr const char* kStatsVariable = "KITH_STATS";
// A path: the statistics as JSON in that file when the process exits.
inline constexpr const char* kStatsFileVariable = "KITH_STATS_FILE";
// A path: every request of the process recorded in Kith's trace format.
inline constexpr const char* kTraceVariable = "KITH_TRACE";
// "1": DebugHeap in the chain, so a double free, a foreign or interior pointer, or a
// write past a block's end stops the program with a report.
inline constexpr const char* kCheckVariable = "KITH_CHECK";
// The pid of the process that writes the plain PATH of KITH_STATS_FILE and
// KITH_TRACE; every other process writes PATH.PID (output_path.h). `kith exec` sets
// it to COMMAND's pid; when unset, the first process with the library sets it.
inline constexpr const char* kRootPidVariable = "KITH_ROOT_PID";

// The library's file name, and the default of KITH_HEAP and KITH_HEAP_SIZE.
inline constexpr const char* kLibraryName = "libkith_malloc.so";
inline constexpr const char* kDefaultPolicy = "estranged";
inline constexpr unsigned long long kDefaultHeapBytes = 1ull << 30;
// The smallest KITH_HEAP_SIZE, as `kith run --heap-size`'s.
inline constexpr unsigned long long kMinHeapBytes = 16ull << 10;

}  // namespace kith::preload
