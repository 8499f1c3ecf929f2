// CycleRecorder: the bookkeeping around a collection cycle, the same for both
// collectors. A cycle's beginning is measured by begin(); its end by endPause() (a
// stop-the-world cycle: one pause) or endIncremental() (a cycle whose slices were
// recorded as they ran, recordSlice()). Ending a cycle
//   - writes its --gc-log line (gc_log.h) and keeps it as lastLogLine();
//   - counts it, and samples the --frag-file (FragmentationLog);
//   - runs the heap verifier, when verifyAfterEachCycle() asked for it, and aborts
//     on a failure;
//   - tells the object space (CollectedSpace::collectionEnded: the box and
//     overhead limits read it).
// It also keeps the counts the statistics report: objects and bytes freed, the
// peak live bytes, and every pause on the wall and the thread's CPU clock
// (PauseRecorder, whose start time is the origin of the log lines' uptime).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "gc/collector_options.h"
#include "gc/gc_log.h"
#include "gc/heap_verifier.h"
#include "gc/pause_recorder.h"
#include "gc/pause_stamp.h"
#include "heap/heap.h"
#include "vm/collector.h"

namespace kith::gc {

class CycleRecorder {
 public:
  using Clock = std::chrono::steady_clock;

  // What a cycle's beginning measured.
  struct Start {
    vm::GcCause cause = vm::GcCause::heapOccupancy;
    PauseStamp at;  // on both clocks
    std::size_t bytesBefore = 0;  // heap bytes in use (block bytes, heap statistics)
  };
  // The slices of an incremental cycle so far, by wall and by the thread's CPU time.
  struct Slices {
    std::uint64_t count = 0, totalNs = 0, longestNs = 0;
    std::uint64_t cpuTotalNs = 0, cpuLongestNs = 0;
  };

  // Takes the log, the fragmentation log and the heap size from `options`.
  explicit CycleRecorder(const CollectorOptions& options, Clock::time_point start = Clock::now());

  // The uptime origin of the log lines and of the MMU windows.
  void setStartTime(Clock::time_point start) { pauses_.setStartTime(start); }
  void setLog(std::FILE* log) { log_ = log; }
  // After every cycle, the heap verifier with `options`.
  void verifyAfterEachCycle(VerifyOptions options) { verify_ = options; }

  // The heap's size for triggers and the log: the option, else the arena's size.
  std::size_t heapBytes(const heap::Heap& heap) const { return heapBytes_ != 0 ? heapBytes_ : heap.arenaSize(); }

  // A cycle begins now, for `cause`.
  Start begin(const heap::Heap& heap, vm::GcCause cause) const;
  // Now, on the wall clock, and on the thread's CPU clock when it is measured
  // (CollectorOptions::measureCpuTime).
  PauseStamp now() const { return PauseStamp::now(pauses_.measuresCpuTime()); }
  // One slice of an incremental cycle, from `begin` to `end`, that did `work` work
  // units: a pause, counted in `slices`. Returns its wall length in ns.
  std::uint64_t recordSlice(Slices& slices, const PauseStamp& begin, const PauseStamp& end, std::uint64_t work) {
    pauses_.record(begin, end, work);
    return countSlice(slices, begin, end);
  }
  // The same slice counted in `slices` only, when its pause goes on past `end` (the
  // slice that ends a cycle pauses for the cycle's end too): record the pause itself
  // with pauses().record once it ends.
  std::uint64_t countSlice(Slices& slices, const PauseStamp& begin, const PauseStamp& end);
  // A stop-the-world cycle that began at `start` ends now, after `work` work units:
  // one pause, a "Pause Full" line. Returns the heap bytes in use after it.
  std::size_t endPause(vm::CollectedSpace& space, const Start& start, std::uint64_t work);
  // An incremental cycle that began at `start` ends now, after `slices`; `forced`
  // when the heap filled and the rest ran at once. Returns the heap bytes in use.
  std::size_t endIncremental(vm::CollectedSpace& space, const Start& start, const Slices& slices, bool forced);

  void countFreed(std::uint64_t objects, std::uint64_t bytes) {
    objectsFreed_ += objects;
    bytesFreed_ += bytes;
  }
  // The bytes a cycle's marking found reachable (for the peak).
  void countLiveBytes(std::uint64_t bytes) { peakLiveBytes_ = bytes > peakLiveBytes_ ? bytes : peakLiveBytes_; }

  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t peakLiveBytes() const { return peakLiveBytes_; }
  // The log line of the last cycle ("" before the first).
  const std::string& lastLogLine() const { return lastLogLine_; }
  PauseRecorder& pauses() { return pauses_; }
  // Fills the cycle, freed, peak live, pause and MMU fields of `s`.
  void fill(vm::CollectorStatistics& s) const;

 private:
  // The log fields every kind of cycle reports, as the cycle begun at `start` ends.
  CycleLogFields endingCycle(const heap::Heap& heap, const Start& start) const;
  // The part of a cycle's end both kinds share, once its line is formatted.
  void ended(vm::CollectedSpace& space, const CycleLogFields& fields, std::string line);

  std::FILE* log_;
  FragmentationLog* fragmentation_;
  std::size_t heapBytes_;
  std::optional<VerifyOptions> verify_;
  std::uint64_t cycles_ = 0, objectsFreed_ = 0, bytesFreed_ = 0, peakLiveBytes_ = 0;
  PauseRecorder pauses_;
  std::string lastLogLine_;
};

}  // namespace kith::gc
