// KnuthBuddyHeap: Knuth's binary buddy system (TAOCP vol. 1, 2.5) over the whole
// fixed arena, as in Donahue et al., "Storage Allocation for Real-Time, Embedded
// Systems". A request of s bytes gets a block of 2^k >= s bytes (16 at least). The
// heap keeps one doubly-linked free list per size. malloc searches upward from list k
// and bisects the block it finds. free recombines the block with its buddy eagerly,
// as long as the buddy is free. Both are O(log M) for an M-byte heap; no step depends
// on how many blocks are free. Its point is the bounded time.
//
// Invariant (checkInvariants): no two free buddies are ever both on the lists.
//
// Bounds, with L = topLevel() = log2(largest maximal block / 16) <= log2(M/16), for
// a request served by level k (counted by lastSteps()/lastFreeSteps()):
//   malloc <= (L - k + 1) list-head inspections + (L - k) bisections <= 2L + 1
//   free   <= 1 + (L - k) recombinations                              <= L + 1
//
// Metadata: the side table and list display of BuddyBlockTable, outside the arena.
// BuddyHeapCore holds the table and counters and the accessors that read them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "heap/buddy/buddy_block_table.h"
#include "heap/buddy/buddy_heap_core.h"
#include "heap/outcome.h"

namespace kith::heap {

// lastSteps(): list-head inspections + bisections of the last malloc.
// lastFreeSteps(): 1 + recombinations of the last free.
template <class Super>
class KnuthBuddyHeap : public BuddyHeapCore<Super> {
  using Core = BuddyHeapCore<Super>;
  using Core::freeSteps_;
  using Core::outcome_;
  using Core::steps_;
  using Core::table_;

 public:
  using Core::Core;

  // The head of list k, inline; the upward search and bisection out of line, so
  // that the common case saves no registers.
  void* malloc(std::size_t size) {
    const unsigned k = BuddyBlockTable::listLevelFor(size);
    if (void* block = table_.popFreeBlock(BuddyState::listedA, k)) return Core::handImmediate(block, k);
    if (size == 0) [[unlikely]] return malloc(1);  // the level of 1 byte, which listLevelFor(0) misses
    return splitLarger(k);
  }

  void free(void* ptr) {
    if (!ptr) return;
    unsigned level;
    std::size_t off = Core::startFree(ptr, level);
    table_.removeLive(off, level);
    // Eager recombination: while the buddy is a whole free block, absorb it. Every
    // free block is on list A (and a root's buddy never reads as one).
    while (table_.buddyIsBlock(off, level, BuddyState::listedA)) {
      const std::size_t buddy = BuddyBlockTable::buddyOf(off, level);
      ++freeSteps_;
      table_.removeFree(buddy, level, BuddyState::listedA);
      table_.clear(std::max(off, buddy));
      off = std::min(off, buddy);
      ++level;
    }
    table_.addFree(off, level, BuddyState::listedA);
  }

  // The statistics layer's call after a malloc (BuddyHeapCore::noteHandedOut): a split
  // bisected a block (steps - 1) / 2 levels up, one inspection and one bisection a
  // level, so the count the malloc kept anyway says which halves it listed.
  bool tookLeftover(void* ptr) {
    const std::size_t off = table_.offsetOf(ptr);
    const unsigned level = table_.levelAt(off);
    const unsigned levels = outcome_ == Outcome::split ? static_cast<unsigned>((steps_ - 1) / 2) : 0;
    return Core::noteHandedOut(off, level, level + levels);
  }

  std::string checkInvariants() const {
    return Core::checkFreeBlocks([&](std::size_t off, unsigned level, BuddyState s) -> std::string {
      if (s != BuddyState::listedA) return table_.describe(off) + ": Knuth has one list per size";
      if (!table_.isRoot(off, level) &&
          table_.isFreeBlock(BuddyBlockTable::buddyOf(off, level), level))
        return table_.describe(off) + " and its buddy are both free (not recombined)";
      return {};
    });
  }

  // The worst case of lastSteps()/lastFreeSteps() for a request of level k when the
  // largest maximal block has level `top`.
  static constexpr std::size_t mallocStepBound(unsigned k, unsigned top) {
    return k > top ? 0 : 2 * (top - k) + 1;
  }
  static constexpr std::size_t freeStepBound(unsigned top) { return top + 1; }

 private:
  // List k was empty: the first nonempty list above it, its block bisected down
  // to level k, keeping the lower half.
  [[gnu::noinline]] void* splitLarger(unsigned k) {
    Core::startSearch();
    if (k > table_.topLevel()) return nullptr;
    // The count stays in a register and is stored once.
    std::size_t steps = 1;  // the head of list k, empty
    for (unsigned m = k + 1; m <= table_.topLevel(); ++m) {
      ++steps;  // inspect the head of list m
      void* block = table_.popFreeBlock(BuddyState::listedA, m);
      if (!block) continue;
      const std::size_t off = table_.offsetOf(block);
      outcome_ = Outcome::split;
      // Lists k to m - 1 were all found empty: each upper half starts its list.
      for (unsigned level = m; level > k;) {
        --level;
        ++steps;
        table_.addFreeOnEmpty(off + BuddyBlockTable::blockBytes(level), level, BuddyState::listedA);
      }
      steps_ = steps;
      return Core::hand(off, k);
    }
    steps_ = steps;
    return Core::searchFailed(k);
  }
};

}  // namespace kith::heap
