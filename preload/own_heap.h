// OwnHeap: the heap of libkith_malloc.so's own requests, apart from the policy's
// arena, so that every block the process frees is known by its address: the
// policy's (in its arena, or any other for the policies without one), the
// library's own (in this one), or neither.
//
// Its requests are those made while a thread holds the process heap's lock (the
// policy object, DebugHeap's and StatsHeap's tables, the trace's buffers, stdio
// and dlopen inside the library), and those before the C library has set up the
// environment the policy is read from. Its blocks can be freed later from outside
// the lock (a static object of the library destroyed at exit, a dlerror string the
// program frees), and the address says where they go, whatever the policy.
//
// TLSF (heap/classic/tlsf_heap.h) over a 4 GiB arena, reserved and touched as
// used, so it costs the pages it uses. An aligned request is over-allocated, its
// aligned address kept in a side table (aligned_blocks.h). Not thread-safe: the
// process heap's lock guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "heap/classic/tlsf_heap.h"
#include "heap/layer.h"
#include "heap/layers/fixed_arena.h"
#include "preload/aligned_blocks.h"

namespace kith::preload {

class OwnHeap {
 public:
  static constexpr std::size_t kBytes = std::size_t{4} << 30;

  OwnHeap() : tlsf_(kBytes) {}  // throws std::bad_alloc when the system will not map it

  const std::byte* base() const { return tlsf_.arenaBase(); }
  std::size_t size() const { return tlsf_.arenaSize(); }

  void* malloc(std::size_t size) { return tlsf_.malloc(size); }

  void free(void* p) {
    void* block = aligned_.take(p);
    tlsf_.free(block ? block : p);
  }

  std::size_t usableSize(void* p) {
    if (void* block = aligned_.blockOf(p))
      return tlsf_.getSize(block) - static_cast<std::size_t>(static_cast<std::byte*>(p) - static_cast<std::byte*>(block));
    return tlsf_.getSize(p);
  }

  void* realloc(void* p, std::size_t size) {
    std::size_t room = usableSize(p);
    if (size <= room) return p;
    void* moved = malloc(size);
    if (!moved) return nullptr;
    std::memcpy(moved, p, room);
    free(p);
    return moved;
  }

  // `alignment` is a power of two above 16.
  void* memalign(std::size_t alignment, std::size_t size) {
    std::size_t total;
    if (__builtin_add_overflow(size, alignment - heap::kAlignment, &total)) return nullptr;
    void* block = tlsf_.malloc(total);
    if (!block) return nullptr;
    void* p = reinterpret_cast<void*>(heap::alignUp(reinterpret_cast<std::uintptr_t>(block), alignment));
    if (p != block) aligned_.add(p, block, size);
    return p;
  }

 private:
  heap::TlsfHeap<heap::FixedArena> tlsf_;
  AlignedBlocks aligned_{false};
};

}  // namespace kith::preload
