// FixedArena variants for the tests of layers that sit on an arena (DebugHeap,
// TraceHeap): one counts the frees that reach it, to show which frees a layer
// passes down; one moves blocks like a defragmenting heap, to show a layer
// follows the moves its Super reports. Their state lives in the arena object.
#pragma once

#include <cstddef>
#include <cstring>

#include "heap/layers/fixed_arena.h"
#include "heap/outcome.h"

namespace kith::heap::testing {

// Counts the frees that reach the arena.
class CountingArena : public FixedArena {
 public:
  using FixedArena::FixedArena;
  void free(void* p) {
    ++frees;
    FixedArena::free(p);
  }
  int frees = 0;
};

// A moving heap in miniature: moveBlock copies a block to fresh space and tells
// the relocator, as buddy defragmentation does.
class MovingArena : public FixedArena {
 public:
  using FixedArena::FixedArena;
  void setRelocator(RelocateFn fn, void* context) {
    relocate_ = fn;
    context_ = context;
  }
  void* moveBlock(void* block, std::size_t size) {
    void* to = FixedArena::malloc(size);
    std::memcpy(to, block, size);
    if (relocate_) relocate_(context_, block, to, size);
    return to;
  }

 private:
  RelocateFn relocate_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace kith::heap::testing
