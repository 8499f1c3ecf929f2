// FreeFootprint: what a policy's free touches outside the block, so that a sweep can
// bring it in ahead of the free (gc/sweep_prefetch.h) without a call per object.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kith::heap {

// Besides the block (where a free list writes its links), a free of block p reads
// sideTable[(p - arenaBase) >> granuleShift] when sideTable is not null (the buddies'
// side table). Valid for the heap's lifetime.
struct FreeFootprint {
  const std::byte* arenaBase = nullptr;
  const std::uint8_t* sideTable = nullptr;
  unsigned granuleShift = 0;
};

}  // namespace kith::heap
