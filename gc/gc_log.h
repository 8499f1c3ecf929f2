// One line per collection for `--gc-log`, shaped like Java's unified logging:
//   [0.025s][info][gc] GC(0) Pause Full (System.gc()) 2M->1M(64M) 3.960ms (cpu 3.912ms)
// uptime, cycle number, cause, heap bytes in use before -> after (heap size), pause
// by wall time and by the thread's CPU time (gc/pause_stamp.h: the difference is
// time the host took from the thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vm/collector.h"

namespace kith::gc {

// What every cycle's line says, whichever its kind.
struct CycleLogFields {
  double uptimeSeconds = 0;  // at the cycle's start, since the collector (the run) started
  std::uint64_t cycle = 0;   // 0 for the first collection
  vm::GcCause cause = vm::GcCause::allocationFailure;
  std::size_t bytesBefore = 0;  // heap bytes in use (block bytes, heap statistics)
  std::size_t bytesAfter = 0;
  std::size_t heapBytes = 0;    // the fixed heap's size
};

struct GcLogEntry : CycleLogFields {
  double pauseMs = 0, pauseCpuMs = 0;
};

// The sizes use one unit per line, picked by the heap size as Java does for its
// heaps: M from 16M up, K below (so a 512K heap reads 300K->120K(512K), not
// 0M->0M(0M)). Values are truncated to the unit, like Java's.
std::string formatGcLogLine(const GcLogEntry& entry);

// One incremental cycle of the continuous collector, from its start to the end of
// its sweep, in the same shape:
//   [0.025s][info][gc] GC(3) Incremental Cycle (Heap Occupancy) 40M->22M(64M) 57 slices 1.234ms (longest 0.102ms)
//     cpu 1.101ms (longest 0.061ms) in 12.345ms          (one line)
// bytes in use when the cycle started -> when it ended, the slices' count and total
// and longest time by wall time, then by the thread's CPU time, and the cycle's wall
// time from start to end (mutator time included); ", forced" when the heap filled
// and the rest ran at once.
struct IncrementalCycleLogEntry : CycleLogFields {
  std::uint64_t slices = 0;
  double slicesMs = 0, longestSliceMs = 0, wallMs = 0;
  double slicesCpuMs = 0, longestSliceCpuMs = 0;
  bool forced = false;
};
std::string formatIncrementalCycleLine(const IncrementalCycleLogEntry& entry);

}  // namespace kith::gc
