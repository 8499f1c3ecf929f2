// The two halves of a stop-the-world mark-sweep collection, over the object space's
// handle table. Mark state lives in Handle::gcBits (bit kMarked); the table itself never
// reads it.
//
// Invariants, between collections: every live handle has gcBits == 0. During
// markReachable, an object is marked exactly once, when it is first found, and is
// then on the mark stack until its references have been scanned; the mark stack
// is explicit (a std::vector from the system allocator, outside the studied heap)
// so a million-node linked list costs a million stack entries, not a million C++
// frames. sweepUnmarked frees every unmarked object and clears every mark, so the
// invariant holds again when it returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gc/handle_sweep.h"
#include "gc/locality_meter.h"
#include "vm/collected_space.h"

namespace kith::gc {

inline constexpr std::uint32_t kMarked = 1u;

// Marks every object reachable from the roots (CollectedSpace::forEachRoot).
// `markStack` is scratch (kept by the caller so its capacity is reused across
// cycles). Returns the number of objects marked; adds their sizes (as requested,
// from the object headers) to `*markedBytes` when given.
// With `locality`, also measures each scanned object and reference (locality_meter.h).
std::size_t markReachable(vm::CollectedSpace& space, std::vector<vm::Handle*>& markStack,
                          std::uint64_t* markedBytes = nullptr, LocalityMeter* locality = nullptr);

// The stop-the-world colours, as the one sweep loop (handle_sweep.h) asks for them:
// marked survived (its mark cleared for the next collection), unmarked is garbage.
struct StopTheWorldMarks {
  static bool survived(vm::Handle* h) {
    if (!(h->gcBits & kMarked)) return false;
    h->gcBits &= ~kMarked;
    return true;
  }
  static bool isGarbage(const vm::Handle* h) { return !(h->gcBits & kMarked); }
};

// Frees every unmarked object to the heap policy in one burst
// (CollectedSpace::freeObject) and clears the marks of the survivors: the one
// sweep loop (handle_sweep.h), to the end of the table.
SweepTotals sweepUnmarked(vm::CollectedSpace& space);

}  // namespace kith::gc
