#include "gc/cycle_recorder.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "gc/fragmentation_log.h"
#include "vm/collected_space.h"

namespace kith::gc {

namespace {

std::uint64_t nanosBetween(CycleRecorder::Clock::time_point begin, CycleRecorder::Clock::time_point end) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin).count();
  return ns > 0 ? static_cast<std::uint64_t>(ns) : 0;
}

std::uint64_t cpuNanosBetween(const PauseStamp& begin, const PauseStamp& end) {
  return end.cpuNs > begin.cpuNs ? end.cpuNs - begin.cpuNs : 0;
}

}  // namespace

CycleRecorder::CycleRecorder(const CollectorOptions& options, Clock::time_point start)
    : log_(options.log), fragmentation_(options.fragmentation), heapBytes_(options.heapBytes), pauses_(start) {
  pauses_.setMeasuresCpuTime(options.measureCpuTime);
}

CycleRecorder::Start CycleRecorder::begin(const heap::Heap& heap, vm::GcCause cause) const {
  Start start;
  start.cause = cause;
  start.bytesBefore = heap.bytesInUse();
  start.at = now();
  return start;
}

std::uint64_t CycleRecorder::countSlice(Slices& slices, const PauseStamp& begin, const PauseStamp& end) {
  std::uint64_t ns = nanosBetween(begin.wall, end.wall);
  std::uint64_t cpuNs = cpuNanosBetween(begin, end);
  ++slices.count;
  slices.totalNs += ns;
  slices.longestNs = std::max(slices.longestNs, ns);
  slices.cpuTotalNs += cpuNs;
  slices.cpuLongestNs = std::max(slices.cpuLongestNs, cpuNs);
  return ns;
}

CycleLogFields CycleRecorder::endingCycle(const heap::Heap& heap, const Start& start) const {
  CycleLogFields fields;
  fields.uptimeSeconds = std::chrono::duration<double>(start.at.wall - pauses_.startTime()).count();
  fields.cycle = cycles_;
  fields.cause = start.cause;
  fields.bytesBefore = start.bytesBefore;
  fields.bytesAfter = heap.bytesInUse();
  fields.heapBytes = heapBytes(heap);
  return fields;
}

std::size_t CycleRecorder::endPause(vm::CollectedSpace& space, const Start& start, std::uint64_t work) {
  PauseStamp end = now();
  pauses_.record(start.at, end, work);
  GcLogEntry entry;
  static_cast<CycleLogFields&>(entry) = endingCycle(space.heap(), start);
  entry.pauseMs = static_cast<double>(nanosBetween(start.at.wall, end.wall)) / 1e6;
  entry.pauseCpuMs = static_cast<double>(cpuNanosBetween(start.at, end)) / 1e6;
  ended(space, entry, formatGcLogLine(entry));
  return entry.bytesAfter;
}

std::size_t CycleRecorder::endIncremental(vm::CollectedSpace& space, const Start& start, const Slices& slices,
                                          bool forced) {
  IncrementalCycleLogEntry entry;
  static_cast<CycleLogFields&>(entry) = endingCycle(space.heap(), start);
  entry.slices = slices.count;
  entry.slicesMs = static_cast<double>(slices.totalNs) / 1e6;
  entry.longestSliceMs = static_cast<double>(slices.longestNs) / 1e6;
  entry.slicesCpuMs = static_cast<double>(slices.cpuTotalNs) / 1e6;
  entry.longestSliceCpuMs = static_cast<double>(slices.cpuLongestNs) / 1e6;
  entry.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - start.at.wall).count();
  entry.forced = forced;
  ended(space, entry, formatIncrementalCycleLine(entry));
  return entry.bytesAfter;
}

void CycleRecorder::ended(vm::CollectedSpace& space, const CycleLogFields& fields, std::string line) {
  const std::uint64_t cycle = cycles_++;
  lastLogLine_ = std::move(line);
  if (log_) std::fprintf(log_, "%s\n", lastLogLine_.c_str());
  if (fragmentation_) fragmentation_->sample(cycle, space.heap());
  if (verify_) {
    std::string problem = verifyHeap(space, *verify_);
    if (!problem.empty()) {
      std::fprintf(stderr, "kith: internal error: heap verification failed after GC(%llu): %s\n",
                   static_cast<unsigned long long>(cycle), problem.c_str());
      std::abort();
    }
  }
  space.collectionEnded(fields.cause, fields.bytesBefore, fields.bytesAfter, fields.heapBytes);
}

void CycleRecorder::fill(vm::CollectorStatistics& s) const {
  s.cycles = cycles_;
  s.objectsFreed = objectsFreed_;
  s.bytesFreed = bytesFreed_;
  s.peakLiveBytes = static_cast<std::int64_t>(peakLiveBytes_);
  pauses_.fill(s, now());
}

}  // namespace kith::gc
