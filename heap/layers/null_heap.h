// NullHeap: a top heap with no memory at all. malloc answers nullptr, free does
// nothing. It sits under caches that must not fetch memory themselves — a
// StrictSegHeap bin is FreelistHeap<NullHeap> — so that a miss comes back as
// nullptr and the enclosing heap (which owns the arena) supplies the block.
#pragma once

#include <cstddef>

namespace kith::heap {

class NullHeap {
 public:
  void* malloc(std::size_t) { return nullptr; }
  void free(void*) {}
  // So a cache above need not walk its blocks to hand them back (FreelistHeap).
  static constexpr bool kFreeDoesNothing = true;
};

}  // namespace kith::heap
