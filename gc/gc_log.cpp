#include "gc/gc_log.h"

#include <cstdio>

namespace kith::gc {

std::string formatGcLogLine(const GcLogEntry& entry) {
  constexpr std::size_t kKilo = 1024, kMega = 1024 * 1024;
  bool mega = entry.heapBytes >= 16 * kMega;
  std::size_t unit = mega ? kMega : kKilo;
  char suffix = mega ? 'M' : 'K';
  char line[256];
  std::snprintf(line, sizeof line, "[%.3fs][info][gc] GC(%llu) Pause Full (%s) %zu%c->%zu%c(%zu%c) %.3fms",
                entry.uptimeSeconds, static_cast<unsigned long long>(entry.cycle), gcCauseName(entry.cause),
                entry.bytesBefore / unit, suffix, entry.bytesAfter / unit, suffix, entry.heapBytes / unit,
                suffix, entry.pauseMs);
  return line;
}

}  // namespace kith::gc
