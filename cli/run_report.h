// What `kith run` reports after the script (CLI.md): the statistics as JSON (the
// heap, gc, locality, handle_table and vm blocks; host_probe with --host-probe-ms)
// and as the table --stats prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/host_probe.h"
#include "cli/run_options.h"
#include "heap/statistics/statistics.h"
#include "vm/collector.h"

namespace kith::cli {

// --host-probe-ms: the bare clock loops before and after the script.
struct HostProbeReport {
  std::size_t ms = 0;  // each loop's length
  HostProbe before, after;
};

struct RunReport {
  const RunOptions* options;
  std::string_view collector;                 // what collected: --gc's choice, or the heap itself (boehm)
  std::optional<CollectorChoice> vmCollector;  // --gc's choice when it collected, for its parameters
  heap::HeapStatistics heap;
  vm::CollectorStatistics gc;
  std::uint64_t instructions = 0, objectsCreated = 0;
  double wallSeconds = 0;     // compiling and running the script, after set-up
  double startupSeconds = 0;  // set-up of the process, collector, VM and built-ins, arena excluded
  double arenaSeconds = 0;    // reserving (and with --pretouch populating) the heap
  std::size_t handlesLive = 0, handleChunks = 0, handleBytes = 0;
  std::optional<HostProbeReport> hostProbe;
};

// One JSON object, ending in '\n'.
std::string runStatisticsJson(const RunReport& report);
std::string runStatisticsTable(const RunReport& report);

}  // namespace kith::cli
