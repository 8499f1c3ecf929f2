// How a sweep keeps its frees from waiting for memory. It walks the handle table in
// order, so it knows which objects it will free a few slots before it frees them, and
// brings in what those frees will touch meanwhile: the block (where a free list writes
// its links) and, on the buddies, the block's side-table byte (heap::FreeFootprint).
// Without it every free of a cold object waits for both, and the sweep was most of a
// collection on workloads with a large heap. No call per object: the footprint is
// asked for once per sweep.
#pragma once

#include <cstddef>

#include "heap/heap.h"
#include "vm/handle_table.h"

namespace kith::gc {

// Slots ahead of the sweep's cursor: enough frees in between for a miss to arrive,
// few enough that the lines are still in the cache when the free comes.
inline constexpr std::size_t kSweepPrefetchDistance = 16;

// For the handle kSweepPrefetchDistance slots after `slot` of `chunk`, when it is in
// use and `willFree(handle)` says the sweep will free its block: prefetches what
// freeing it touches.
// Always inline: GCC's pure-const analysis counts a prefetch as no side effect, so a
// call whose only effect is prefetching is deleted before it could be inlined (g++ 12
// emitted none for the sweeps until this was forced).
template <class WillFree>
[[gnu::always_inline]] inline void prefetchAhead(const heap::FreeFootprint& footprint, const vm::Handle* chunk, std::size_t slot,
                   WillFree willFree) {
  if (slot + kSweepPrefetchDistance >= vm::HandleTable::kHandlesPerChunk) return;
  const vm::Handle* ahead = chunk + slot + kSweepPrefetchDistance;
  if (!ahead->klass || !willFree(ahead)) return;
  const auto* block = static_cast<const std::byte*>(ahead->object);
  __builtin_prefetch(block, 1);
  if (footprint.sideTable)
    __builtin_prefetch(footprint.sideTable + ((block - footprint.arenaBase) >> footprint.granuleShift), 1);
}

}  // namespace kith::gc
