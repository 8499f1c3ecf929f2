// FixedArena: the top heap of every Kith policy. One contiguous region whose size
// is fixed at construction, as on an embedded system: it never grows. malloc carves
// from the front (bump allocation); free is a no-op, because reuse is the job of
// the layers beneath (free lists, coalescing, buddies). Layers that manage the whole
// region themselves (buddy, TLSF) take it in one malloc(remaining()) at construction.
// The one block it takes back is its newest (takeBack, a free that names the size):
// ZoneHeap and Reap release their chunks newest first, so over a FixedArena their
// release() gives the arena every chunk back.
// Touching: as a JVM does, the region is reserved at start and its pages are touched
// lazily (the kernel maps a zero page at first write), so start-up costs nothing per
// megabyte. A heap built under ArenaPretouch(true) (`--pretouch`, Java's
// -XX:+AlwaysPreTouch) populates it up front instead: then no allocation pays a
// first-touch page fault, so latencies measure the allocator, not the kernel --
// `kith study` and the latency benchmarks ask for it.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include "heap/layer.h"

namespace kith::heap {

// Whether the heap being built populates its memory: who builds a heap says so for
// that heap, as it says its size, and this scope carries the answer down to where
// the arena and the side tables are mapped (every layer maps its memory in its
// constructor, beneath layer constructors that take only a size). It holds on this
// thread until it ends, then the setting before it is back: no flag set for the
// process and left set.
class ArenaPretouch {
 public:
  explicit ArenaPretouch(bool pretouch) : outer_(std::exchange(current(), pretouch)) {}
  ~ArenaPretouch() { current() = outer_; }
  ArenaPretouch(const ArenaPretouch&) = delete;
  ArenaPretouch& operator=(const ArenaPretouch&) = delete;

  // Whether memory mapped now is populated: the innermost scope's answer, else no.
  static bool now() { return current(); }

 private:
  static bool& current() {
    thread_local bool pretouch = false;
    return pretouch;
  }
  bool outer_;
};

// `Heap` built from `args`, its memory populated up front when `pretouch`.
template <class Heap, class... Args>
std::unique_ptr<Heap> makeHeapPretouched(bool pretouch, Args&&... args) {
  ArenaPretouch scope(pretouch);
  return std::make_unique<Heap>(std::forward<Args>(args)...);
}

class FixedArena {
 public:
  // The region is mapped, not taken from malloc, so it is page-aligned and zero.
  // `bytes` is rounded down to the alignment.
  explicit FixedArena(std::size_t bytes) : size_(bytes & ~(kAlignment - 1)) {
    if (size_ == 0) return;
    const int populate = ArenaPretouch::now() ? MAP_POPULATE : MAP_NORESERVE;
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<std::byte*>(p);
  }
  ~FixedArena() {
    if (base_) ::munmap(base_, size_);
  }
  FixedArena(const FixedArena&) = delete;
  FixedArena& operator=(const FixedArena&) = delete;

  void* malloc(std::size_t sz) {
    std::size_t need = alignUp(sz < kMinBlock ? kMinBlock : sz);
    if (need < sz || need > size_ - used_) return nullptr;  // also catches overflow
    void* p = base_ + used_;
    used_ += need;
    return p;
  }
  void free(void*) {}

  // Takes back the block [ptr, ptr + size) if it is the newest one still held (it
  // ends where the next malloc would start) and returns true; any other block stays
  // used, as with free(ptr), and it returns false. `size` is what malloc was asked.
  bool takeBack(void* ptr, std::size_t size) {
    auto* p = static_cast<std::byte*>(ptr);
    if (!p || p < base_ || p >= base_ + used_ || size > size_) return false;
    const std::size_t start = static_cast<std::size_t>(p - base_);
    if (start + alignUp(size < kMinBlock ? kMinBlock : size) != used_) return false;
    used_ = start;
    return true;
  }

  std::byte* arenaBase() const { return base_; }
  std::size_t arenaSize() const { return size_; }
  std::size_t remaining() const { return size_ - used_; }
  bool arenaContains(const void* p) const {
    auto* b = static_cast<const std::byte*>(p);
    return b >= base_ && b < base_ + size_;
  }

 private:
  std::byte* base_ = nullptr;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace kith::heap
