// Why a collection ran: the cause the `--gc-log` line names, in the words of
// Java's unified logging (`-Xlog:gc`).
#pragma once

#include <cstdint>

namespace kith::gc {

enum class GcCause : std::uint8_t {
  allocationFailure,  // the heap could not satisfy a request (the allocation gate)
  systemGc,           // the script called System.gc()
  heapOccupancy,      // bytes in use passed the occupancy threshold (--gc-threshold)
  stress,             // --gc-stress: before every allocation
};

constexpr const char* gcCauseName(GcCause cause) {
  switch (cause) {
    case GcCause::allocationFailure: return "Allocation Failure";
    case GcCause::systemGc: return "System.gc()";
    case GcCause::heapOccupancy: return "Heap Occupancy";
    case GcCause::stress: return "GC Stress";
  }
  return "?";
}

}  // namespace kith::gc
