// sweepHandles: the one sweep loop of both collectors. The stop-the-world sweep
// (mark_sweep.h: sweepUnmarked) and the incremental one (ContinuousCollector's
// sweepSome) walk the handle table the same way — slot by slot, chunk by chunk,
// the heap told of each free ahead of it (sweep_prefetch.h), boxes released without
// a heap block, survivors recoloured, the garbage freed — and differ in two things,
// the template's parameters:
//   Colours, what a collector's gcBits say of a handle in use:
//     bool survived(vm::Handle*)          reached this cycle: recolours it for the next
//                                         and returns true;
//     bool isGarbage(const vm::Handle*)   unreachable: the sweep frees it. Asked of a
//                                         handle that did not survive (one that is
//                                         neither was born during an incremental
//                                         sweep, and is kept as it is), and of the
//                                         handles ahead, for the prefetch;
//   Pace, when the sweep stops (a slice's budget, its clock):
//     bool mayVisit()          before each slot: false stops the sweep there (the
//                              slot is the next one visited);
//     bool goesOnAfterFree()   after each object freed: false stops the sweep after
//                              that slot.
// Both are inlined, so the stop-the-world sweep (every test constant) compiles to
// the loop it had on its own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gc/sweep_prefetch.h"
#include "vm/collected_space.h"

namespace kith::gc {

// Where a sweep is in the handle table: the slot it visits next.
struct SweepCursor {
  std::size_t chunk = 0, slot = 0;
};

struct SweepTotals {
  std::uint64_t objectsFreed = 0;
  std::uint64_t bytesFreed = 0;  // block bytes returned to the heap (Heap::freeAndGetSize)
  std::uint64_t survivors = 0;
};

// A Pace that never stops: the sweep runs to the end of the table.
struct SweepToTheEnd {
  static constexpr bool mayVisit() { return true; }
  static constexpr bool goesOnAfterFree() { return true; }
};

// Sweeps from `cursor` until `pace` stops it or the table ends, adding to `totals`;
// leaves `cursor` at the next slot to visit. True when the whole table is swept.
// Freeing releases the handle (its klass becomes nullptr), so no slot is visited
// twice; chunks the table gains meanwhile (an incremental sweep) hold only objects
// born during the sweep, which neither survived nor are garbage: walking them is
// harmless.
template <class Colours, class Pace>
bool sweepHandles(vm::CollectedSpace& space, SweepCursor& cursor, const Colours& colours, Pace& pace,
                  SweepTotals& totals) {
  const heap::FreeFootprint footprint = space.heap().freeFootprint();
  vm::HandleTable& handles = space.handles();
  std::size_t c = cursor.chunk, s = cursor.slot;  // in registers: a free is a call
  bool stopped = false;
  while (!stopped && c < handles.chunkCount()) {
    vm::Handle* chunk = handles.chunk(c);
    for (; s < vm::HandleTable::kHandlesPerChunk; ++s) {
      if (!pace.mayVisit()) {
        stopped = true;
        break;
      }
      vm::Handle* h = &chunk[s];
      if (!h->klass) continue;  // a free slot
      const bool box = space.isBox(h);
      // Looked ahead from objects only: a run of boxes (no block to prefetch) sweeps
      // as cheaply as it would without the prefetch.
      if (!box)
        prefetchAhead(footprint, chunk, s, [&](const vm::Handle* a) { return colours.isGarbage(a) && !space.isBox(a); });
      if (colours.survived(h)) {
        ++totals.survivors;
        continue;
      }
      if (!colours.isGarbage(h)) continue;  // born during this (incremental) sweep: kept
      if (box) {                            // no heap block: not an object freed
        space.releaseBox(h);
        continue;
      }
      totals.bytesFreed += space.freeObject(h);
      ++totals.objectsFreed;
      if (!pace.goesOnAfterFree()) {
        ++s;
        stopped = true;
        break;
      }
    }
    if (s == vm::HandleTable::kHandlesPerChunk) {
      ++c;
      s = 0;
    }
  }
  cursor = {c, s};
  return c >= handles.chunkCount();
}

}  // namespace kith::gc
