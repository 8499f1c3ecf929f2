#include "gc/gc_log.h"

#include <cstdio>

namespace kith::gc {

namespace {

struct SizeUnit {
  std::size_t unit;
  char suffix;
};

SizeUnit unitFor(std::size_t heapBytes) {
  constexpr std::size_t kKilo = 1024, kMega = 1024 * 1024;
  return heapBytes >= 16 * kMega ? SizeUnit{kMega, 'M'} : SizeUnit{kKilo, 'K'};
}

}  // namespace

std::string formatIncrementalCycleLine(const IncrementalCycleLogEntry& entry) {
  auto [unit, suffix] = unitFor(entry.heapBytes);
  char line[320];
  std::snprintf(line, sizeof line,
                "[%.3fs][info][gc] GC(%llu) Incremental Cycle (%s) %zu%c->%zu%c(%zu%c) %llu slices %.3fms "
                "(longest %.3fms) cpu %.3fms (longest %.3fms) in %.3fms%s",
                entry.uptimeSeconds, static_cast<unsigned long long>(entry.cycle), vm::gcCauseName(entry.cause),
                entry.bytesBefore / unit, suffix, entry.bytesAfter / unit, suffix, entry.heapBytes / unit, suffix,
                static_cast<unsigned long long>(entry.slices), entry.slicesMs, entry.longestSliceMs, entry.slicesCpuMs,
                entry.longestSliceCpuMs, entry.wallMs, entry.forced ? ", forced" : "");
  return line;
}

std::string formatGcLogLine(const GcLogEntry& entry) {
  auto [unit, suffix] = unitFor(entry.heapBytes);
  char line[256];
  std::snprintf(line, sizeof line,
                "[%.3fs][info][gc] GC(%llu) Pause Full (%s) %zu%c->%zu%c(%zu%c) %.3fms (cpu %.3fms)",
                entry.uptimeSeconds, static_cast<unsigned long long>(entry.cycle), vm::gcCauseName(entry.cause),
                entry.bytesBefore / unit, suffix, entry.bytesAfter / unit, suffix, entry.heapBytes / unit,
                suffix, entry.pauseMs, entry.pauseCpuMs);
  return line;
}

}  // namespace kith::gc
