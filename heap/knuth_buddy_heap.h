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
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <string>
#include <utility>

#include "heap/buddy_block_table.h"
#include "heap/outcome.h"

namespace kith::heap {

template <class Super>
class KnuthBuddyHeap : public Super {
  static_assert(WholeArenaHeap<Super>,
                "KnuthBuddyHeap takes the whole arena at once: Super needs malloc and remaining() "
                "(use FixedArena)");

 public:
  template <class... Args>
  explicit KnuthBuddyHeap(Args&&... args)
      : Super(std::forward<Args>(args)...), table_(BuddyBlockTable::adopt(static_cast<Super&>(*this))) {}

  void* malloc(std::size_t size) {
    steps_ = 0;
    outcome_ = Outcome::failed;
    const unsigned k = BuddyBlockTable::levelFor(size);
    if (k > table_.topLevel()) return nullptr;
    for (unsigned m = k; m <= table_.topLevel(); ++m) {
      ++steps_;  // inspect the head of list m
      const std::size_t off = table_.popFree(BuddyState::listedA, m);
      if (off == BuddyBlockTable::kNone) continue;
      outcome_ = m == k ? Outcome::immediate : Outcome::split;
      for (unsigned level = m; level > k;) {  // bisect: keep the lower half
        --level;
        ++steps_;
        table_.addFree(off + BuddyBlockTable::blockBytes(level), level, BuddyState::listedA);
      }
      table_.setBusy(off, k);
      return table_.address(off);
    }
    return nullptr;
  }

  void free(void* ptr) {
    if (!ptr) return;
    assert(table_.contains(ptr) && table_.isBusyBlock(table_.offsetOf(ptr)) &&
           "free of a pointer that is not a busy block of this heap");
    std::size_t off = table_.offsetOf(ptr);
    unsigned level = table_.levelAt(off);
    freeSteps_ = 1;
    // Eager recombination: while the buddy is a whole free block, absorb it.
    while (!table_.isRoot(off, level)) {
      const std::size_t buddy = BuddyBlockTable::buddyOf(off, level);
      if (!table_.isFreeBlock(buddy, level)) break;
      ++freeSteps_;
      table_.removeFree(buddy);
      table_.clear(std::max(off, buddy));
      off = std::min(off, buddy);
      ++level;
    }
    table_.addFree(off, level, BuddyState::listedA);
  }

  // The block size 2^k of a block this heap returned.
  std::size_t getSize(void* ptr) const {
    return ptr ? BuddyBlockTable::blockBytes(table_.levelAt(table_.offsetOf(ptr))) : 0;
  }

  Outcome lastOutcome() const { return outcome_; }
  // List-head inspections + bisections of the last malloc.
  std::size_t lastSteps() const { return steps_; }
  // 1 + recombinations of the last free.
  std::size_t lastFreeSteps() const { return freeSteps_; }
  std::size_t freeBytes() const { return table_.freeBytes(); }
  std::size_t largestFreeBlock() const { return table_.largestFreeBlock(); }
  unsigned topLevel() const { return table_.topLevel(); }
  std::size_t metadataBytes() const { return table_.metadataBytes(); }
  std::string layout() const { return table_.layout(); }

  std::string checkInvariants() const {
    if (std::string fault = table_.checkStructure(); !fault.empty()) return fault;
    std::string fault;
    table_.forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
      if (!fault.empty() || !isFreeState(s)) return;
      if (s != BuddyState::listedA) fault = table_.describe(off) + ": Knuth has one list per size";
      else if (!table_.isRoot(off, level) &&
               table_.isFreeBlock(BuddyBlockTable::buddyOf(off, level), level))
        fault = table_.describe(off) + " and its buddy are both free (not recombined)";
    });
    return fault;
  }

  // The worst case of lastSteps()/lastFreeSteps() for a request of level k when the
  // largest maximal block has level `top`.
  static constexpr std::size_t mallocStepBound(unsigned k, unsigned top) {
    return k > top ? 0 : 2 * (top - k) + 1;
  }
  static constexpr std::size_t freeStepBound(unsigned top) { return top + 1; }

  // --- for BuddyDefragmenter --------------------------------------------------------
  BuddyBlockTable& blockTable() { return table_; }
  // A free block of exactly `level`, marked busy, found without moving or splitting
  // anything; kNone if there is none. Counts its list-head inspection in `steps`.
  std::size_t reserveFreeBlock(unsigned level, std::size_t& steps) {
    ++steps;
    const std::size_t off = table_.popFree(BuddyState::listedA, level);
    if (off != BuddyBlockTable::kNone) table_.setBusy(off, level);
    return off;
  }
  static constexpr std::size_t kReserveSteps = 1;  // the most reserveFreeBlock counts

 private:
  BuddyBlockTable table_;
  Outcome outcome_ = Outcome::failed;
  std::size_t steps_ = 0;
  std::size_t freeSteps_ = 0;
};

}  // namespace kith::heap
