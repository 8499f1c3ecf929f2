// `kith run` and `kith disasm` behind the command line: picks the heap policy and
// collector, builds the VM and its built-ins, compiles, runs, reports errors with
// LANGUAGE.md's exit codes, and prints statistics (CLI.md's JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heap/trace/trace_event.h"

namespace kith::vm {

enum class StatsFormat { none, table, json };

struct RunOptions {
  std::string heapPolicy = "estranged";
  std::size_t heapSize = std::size_t{64} << 20;
  std::string collector = "occasional";  // occasional, continuous or none
  // --gc-threshold: the heap occupancy (fraction, (0, 1]) that triggers a cycle
  // (occasional) or starts one (continuous); unset: the collector's default
  // (0.75 occasional, 0.5 continuous).
  double gcThreshold = 0;
  // --gc-step: the continuous collector's work per slice, in units of an object
  // marked, a block freed or 8 handle slots swept; 0: its default (1024).
  std::size_t gcStep = 0;
  // --gc-pacing: when the continuous collector's slices run. "time" (default): by
  // allocation, with the mutator-utilization governor; "work": by allocation volume
  // alone, so every count in the statistics is identical run to run.
  std::string gcPacing = "time";
  // --gc-pauses-file: write every GC pause here (start and duration, ns since the
  // run's start; gc/pause_recorder.h, writePauseList).
  std::string gcPausesFile;
  // --frag-file: the heap's free space after every collection (gc/fragmentation_log.h).
  std::string fragFile;
  bool gcLog = false;     // one line per cycle on stderr
  bool gcStress = false;  // a full collection (continuous: a slice) before every allocation
  bool moveObjects = false;  // --gc-stress=move (VMOptions::moveObjects)
  double gcOverheadLimit = 0.98;  // --gc-overhead-limit (VMOptions::gcOverheadLimit; 0: off)
  bool pretouch = false;     // --pretouch: populate the heap's arena at start (heap/layers/fixed_arena.h)
  bool checkFreed = false;   // --check-freed (VMOptions::checkFreedObjects; implied by --gc-stress)
  std::uint64_t failAllocation = 0;       // --fail-alloc=N
  std::uint64_t failAllocationEvery = 0;  // --fail-alloc-every=N
  std::size_t maxDepth = 10000;
  StatsFormat stats = StatsFormat::none;
  // --stats-timers: time every malloc and free (alloc_ns/free_ns); off keeps every
  // count but reads no clock per operation.
  bool statsTimers = true;
  std::string statsFile;  // also write the JSON here
  std::string tracePath;  // record every allocation and free here
  heap::TraceFormat traceFormat = heap::TraceFormat::binary;  // heap/trace/trace.h
  std::string script;
  std::vector<std::string> args;  // System.args
};

// Exit codes (sysexits): 0 ok, 65 compile error, 66 unreadable script,
// 70 uncaught runtime error, or the code given to System.exit.
int runScriptFile(const RunOptions& options);
int disassembleFile(const std::string& path);

// Collector names `--gc` accepts.
const std::vector<std::string>& collectorNames();

}  // namespace kith::vm
