// PrefetchQueue: a small FIFO between "this object will be scanned" and scanning it,
// so the object's first cache line is being fetched while the objects ahead of it are
// scanned (prefetch-on-grey, after Boehm's "Reducing garbage collector cache misses",
// ISMM 2000). The collectors' objects lie anywhere in the arena; scanned in the order
// the mark stack yields them, nearly every one is a cache miss paid in full.
#pragma once

#include <array>
#include <cstddef>

#include "vm/handle_table.h"

namespace kith::gc {

// The sweeps' lookahead: how many handle slots ahead of the cursor a dead object's
// header is fetched (the free reads and writes it; the handle walk itself is sequential).
inline constexpr std::size_t kSweepAhead = 8;

// Fetches the object of the slot kSweepAhead after `slot` in `chunk`, if it is in the
// chunk, in use, and `isDead` says it will be freed.
template <class IsDead>
inline void prefetchDeadAhead(const vm::Handle* chunk, std::size_t slot, IsDead&& isDead) {
  if (slot + kSweepAhead >= vm::HandleTable::kHandlesPerChunk) return;
  const vm::Handle* later = &chunk[slot + kSweepAhead];
  if (later->klass && isDead(later)) __builtin_prefetch(later->object, 1);
}

template <std::size_t kDepth = 8>
class PrefetchQueue {
 public:
  // Starts fetching h's object and queues h. Returns the handle that leaves the
  // queue to make room (the oldest, prefetched kDepth pushes ago), or nullptr while
  // the queue is filling.
  vm::Handle* push(vm::Handle* h) {
    __builtin_prefetch(h->object);
    vm::Handle* out = ring_[next_];
    ring_[next_] = h;
    next_ = (next_ + 1) % kDepth;
    if (count_ < kDepth) {
      ++count_;
      return nullptr;
    }
    return out;
  }
  // The markers' loop: queues what next() yields (a handle, or nullptr when it has none
  // now) and scans each handle as it leaves the queue; when next() has none, scans the
  // oldest queued one and asks next() again (a scan may give it more). Returns when
  // both are empty.
  template <class Next, class Scan>
  void pump(Next&& next, Scan&& scan) {
    for (;;) {
      if (vm::Handle* h = next()) {
        if (vm::Handle* ready = push(h)) scan(ready);
      } else if (vm::Handle* ready = pop()) {
        scan(ready);
      } else {
        return;
      }
    }
  }
  // Takes the oldest queued handle (nullptr when empty), for draining.
  vm::Handle* pop() {
    if (count_ == 0) return nullptr;
    std::size_t oldest = (next_ + kDepth - count_) % kDepth;
    --count_;
    return ring_[oldest];
  }

 private:
  std::array<vm::Handle*, kDepth> ring_{};
  std::size_t next_ = 0, count_ = 0;
};

}  // namespace kith::gc
