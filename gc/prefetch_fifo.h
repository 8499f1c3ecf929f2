// PrefetchFifo: a few gray handles between the gray stack and the scan, each one's
// object prefetched as it enters — prefetch-on-grey with a FIFO (Cher, Hosking and
// Vijaykumar, "Software prefetching for mark-sweep garbage collection", ASPLOS 2004).
//
// A marker that pops a handle and reads its object at once waits for the object
// whenever it is cold; so does the next one. Popped kDepth handles early, the
// object of each is on its way while the kDepth - 1 before it are scanned. The
// order stays nearly depth first: the FIFO refills from the top of the stack.
// The handles in it are gray (popped, not yet scanned): a marker is done when the
// stack and the FIFO are both empty.
#pragma once

#include <cstddef>

#include "vm/handle_table.h"

namespace kith::gc {

class PrefetchFifo {
 public:
  static constexpr std::size_t kDepth = 8;  // a power of two

  bool full() const { return count_ == kDepth; }
  bool empty() const { return count_ == 0; }
  void clear() { head_ = count_ = 0; }

  // Always inline: GCC counts a prefetch as no side effect (sweep_prefetch.h).
  [[gnu::always_inline]] void push(vm::Handle* h) {
    __builtin_prefetch(h->object);
    slots_[(head_ + count_++) & (kDepth - 1)] = h;
  }
  vm::Handle* pop() {  // the oldest; not empty()
    vm::Handle* h = slots_[head_];
    head_ = (head_ + 1) & (kDepth - 1);
    --count_;
    return h;
  }

 private:
  vm::Handle* slots_[kDepth] = {};
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace kith::gc
