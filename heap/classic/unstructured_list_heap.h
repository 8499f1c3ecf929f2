// UnstructuredListHeap: the free structure of the JDK 1.1.8 allocator, the
// baseline of Donahue et al. (§2.1, Fig. 1): ONE doubly-linked list of every free
// block, whatever its size. malloc takes the first block that fits, searching from
// the head; free pushes at the head. No size segregation, so a request that only
// the far end of the list can satisfy walks the whole list: after N equal blocks
// are allocated and every other one freed, a larger request steps past N/2 small
// blocks to reach the remainder at the tail (their Fig. 8). lastSteps() counts the
// nodes the last malloc looked at, so that growth can be measured.
//
// It is a free structure for CoalesceHeap (see coalesce_heap.h), which does the
// splitting and coalescing; Super is the block representation (CoalesceableHeap).
// The `list` policy is CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>.
// Metadata: the list head, count and byte total live in this object; the links in
// the free blocks' payloads.
#pragma once

#include <cstddef>
#include <string>

#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/free_block_list.h"

namespace kith::heap {

template <class Super>
class UnstructuredListHeap : public Super {
  static_assert(CoalescingRepresentation<Super>,
                "UnstructuredListHeap files blocks by their boundary-tag sizes: put CoalesceableHeap under it");

 public:
  using Super::Super;

  // First fit from the head; when nothing fits, Super's fresh chunk (or nullptr).
  void* malloc(std::size_t size) {
    steps_ = 0;
    for (FreeBlockList::Node* n = list_.head(); n; n = n->next) {
      ++steps_;
      if (Super::getSize(n) >= size) {
        remove(n);
        return n;
      }
    }
    return Super::malloc(size);
  }

  // Files a free block at the head (most recently freed first).
  void free(void* block) {
    list_.pushFront(block);
    bytes_ += Super::getSize(block);
  }

  void remove(void* block) {
    list_.remove(block);
    bytes_ -= Super::getSize(block);
  }

  // List nodes the last malloc visited (0 when the list was empty).
  std::size_t lastSteps() const { return steps_; }
  // Usable bytes in the listed blocks, and how many there are.
  std::size_t freeBytes() const { return bytes_; }
  std::size_t freeBlockCount() const { return list_.count(); }
  // The largest request malloc can serve now; walks the list (a statistic).
  std::size_t largestFreeBlock() const {
    std::size_t largest = 0;
    for (FreeBlockList::Node* n = list_.head(); n; n = n->next)
      if (Super::getSize(n) > largest) largest = Super::getSize(n);
    return largest;
  }

  // Head to tail.
  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    for (FreeBlockList::Node* n = list_.head(); n; n = n->next) fn(static_cast<void*>(n));
  }

  std::string checkFreeStructure() const {
    if (std::string broken = list_.checkLinks(); !broken.empty()) return "free list: " + broken;
    return "";
  }

 private:
  FreeBlockList list_;
  std::size_t bytes_ = 0;
  std::size_t steps_ = 0;
};

}  // namespace kith::heap
