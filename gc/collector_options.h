// CollectorOptions: the options both collectors take. Each collector's own options
// (OccasionalCollectorOptions, ContinuousCollectorOptions) extend it with its schedule.
#pragma once

#include <cstddef>
#include <cstdio>

namespace kith::gc {

class FragmentationLog;

#ifdef NDEBUG
inline constexpr bool kVerifyByDefault = false;
#else
inline constexpr bool kVerifyByDefault = true;
#endif

struct CollectorOptions {
  // The heap's size for the trigger, the pacing and the log (--heap-size). 0: the
  // heap's arena size (policies without an arena, `malloc`, then have none).
  std::size_t heapBytes = 0;
  // --gc-stress: collect as often as the collector can (what that means is its own).
  bool stress = false;
  // Check the collector's invariant at every cycle; a failure prints and aborts (it
  // is a collector or VM bug). What is checked, and whether under stress, is the
  // collector's: it must stay affordable. On by default in builds with assertions.
  bool verify = kVerifyByDefault;
  // Fill the locality block (locality_meter.h) at every mark phase. It costs the
  // marker a load and a bucket per reference: the CLI turns it on only when the
  // statistics are reported (as StatsHeap's latency timing).
  bool measureLocality = true;
  // Time every pause by the thread's CPU clock too (pause_stamp.h): a system call of
  // about 0.4 µs, two a pause (a tenth of a 4 µs sweep slice). The CLI turns it on
  // when something reports pauses (the statistics, --gc-pauses-file, --gc-log).
  bool measureCpuTime = true;
  // --pretouch: populate the collector's own memory at start, as the heap's arena is,
  // so that no pause pays a first touch (the continuous collector's gray stack).
  bool pretouch = false;
  std::FILE* log = nullptr;  // --gc-log: one line per cycle (stderr in the CLI)
  FragmentationLog* fragmentation = nullptr;  // --frag-file: the free space after each cycle
};

}  // namespace kith::gc
