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
// Small requests: TLSF (heap/classic/tlsf_heap.h) over a 1 GiB arena, reserved
// and touched as used, so it costs the pages it uses. An aligned request is
// over-allocated, its aligned address kept in a side table (aligned_blocks.h).
// Large ones (256 KiB and up): whole pages of a 16 GiB area of their own, taken
// in address order and never reused (a free gives the pages back to the kernel),
// so they are zero when handed out: the buddy policies' side tables (1/16 of the
// arena, from calloc) stay untouched until used, where a memset would make every
// process pay for all of it. Not thread-safe: the process heap's lock guards it.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "heap/classic/tlsf_heap.h"
#include "heap/layer.h"
#include "heap/layers/fixed_arena.h"
#include "preload/aligned_blocks.h"

namespace kith::preload {

// Page runs handed out in address order from a reserved area, each with its
// length in a 16-byte header; a freed run goes back to the kernel (MADV_DONTNEED:
// zero again if touched) and its addresses are not used again.
class PageRuns {
 public:
  explicit PageRuns(std::size_t bytes) : area_(bytes) {}

  bool contains(const void* p) const { return area_.arenaContains(p); }
  const std::byte* base() const { return area_.arenaBase(); }
  std::size_t size() const { return area_.arenaSize(); }

  // Zero bytes; nullptr when the area is used up.
  void* malloc(std::size_t size) {
    std::size_t total;
    if (__builtin_add_overflow(size, kHeader, &total) || total > area_.remaining()) return nullptr;
    total = heap::alignUp(total, kPage);
    auto* run = static_cast<std::size_t*>(area_.malloc(total));
    if (!run) return nullptr;
    *run = total;
    return reinterpret_cast<std::byte*>(run) + kHeader;
  }

  void free(void* p) {
    std::byte* run = static_cast<std::byte*>(p) - kHeader;
    ::madvise(run, *reinterpret_cast<std::size_t*>(run), MADV_DONTNEED);
  }

  std::size_t usableSize(void* p) const {
    return *reinterpret_cast<const std::size_t*>(static_cast<std::byte*>(p) - kHeader) - kHeader;
  }

 private:
  static constexpr std::size_t kHeader = heap::kAlignment;
  static constexpr std::size_t kPage = 4096;
  heap::FixedArena area_;  // page-aligned; its bump allocation keeps runs page-aligned
};

class OwnHeap {
 public:
  static constexpr std::size_t kSmallBytes = std::size_t{1} << 30;
  static constexpr std::size_t kLargeBytes = std::size_t{16} << 30;
  static constexpr std::size_t kLargeRequest = std::size_t{256} << 10;

  // Throws std::bad_alloc when the system will not map them.
  OwnHeap() : tlsf_(kSmallBytes), large_(kLargeBytes) {}

  // Its two areas, for telling its blocks (process_heap.cpp keeps them as ranges).
  const std::byte* smallBase() const { return tlsf_.arenaBase(); }
  std::size_t smallSize() const { return tlsf_.arenaSize(); }
  const std::byte* largeBase() const { return large_.base(); }
  std::size_t largeSize() const { return large_.size(); }

  void* malloc(std::size_t size) {
    if (size >= kLargeRequest)
      if (void* p = large_.malloc(size)) return p;
    return tlsf_.malloc(size);
  }

  // calloc's: a large block is zero already.
  void* zeroed(std::size_t size) {
    if (size >= kLargeRequest)
      if (void* p = large_.malloc(size)) return p;
    void* p = tlsf_.malloc(size);
    if (p) std::memset(p, 0, size);
    return p;
  }

  void free(void* p) {
    if (large_.contains(p)) return large_.free(p);
    void* block = aligned_.take(p);
    tlsf_.free(block ? block : p);
  }

  std::size_t usableSize(void* p) {
    if (large_.contains(p)) return large_.usableSize(p);
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
    // At least one byte after the aligned address (process_heap.cpp's heapAligned).
    if (__builtin_add_overflow(size ? size : 1, alignment - heap::kAlignment, &total)) return nullptr;
    void* block = tlsf_.malloc(total);
    if (!block) return nullptr;
    void* p = reinterpret_cast<void*>(heap::alignUp(reinterpret_cast<std::uintptr_t>(block), alignment));
    if (p != block) aligned_.add(p, block, size);
    return p;
  }

 private:
  heap::TlsfHeap<heap::FixedArena> tlsf_;
  PageRuns large_;
  AlignedBlocks aligned_{false};
};

}  // namespace kith::preload
