// BuddyHeapCore: what KnuthBuddyHeap and EstrangedBuddyHeap have in common. It
// takes the whole arena from Super at construction, holds the BuddyBlockTable
// and the step counters of the last malloc and free, and answers the questions
// that only read them (getSize, freeBytes, layout, ...). The two heaps derive
// from it and add malloc, free, their step bounds and their own invariant (the
// lists a free block may be on). It is not a layer on its own: it has no malloc.
//
// Metadata: the side table, list display and live summary of BuddyBlockTable,
// outside the arena. Every malloc and free also updates the live summary
// (ceil((L + 1) / 4) counters, not counted as steps: it is not a search).
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <string>
#include <utility>

#include "heap/buddy/buddy_block_table.h"
#include "heap/free_footprint.h"
#include "heap/outcome.h"

namespace kith::heap {

template <class Super>
class BuddyHeapCore : public Super {
  static_assert(WholeArenaHeap<Super>,
                "a buddy heap (KnuthBuddyHeap, EstrangedBuddyHeap) takes the whole arena at "
                "once: Super needs malloc and remaining() (use FixedArena)");

 public:
  template <class... Args>
  explicit BuddyHeapCore(Args&&... args)
      : Super(std::forward<Args>(args)...),
        table_(BuddyBlockTable::adopt(static_cast<Super&>(*this))) {}

  // The block size 2^k of a block this heap returned.
  std::size_t getSize(void* ptr) const {
    return ptr ? BuddyBlockTable::blockBytes(table_.levelAt(table_.offsetOf(ptr))) : 0;
  }

  // A free reads the block's side-table byte (heap.h's FreeFootprint).
  FreeFootprint freeFootprint() const {
    return {table_.base(), table_.sideTable(), static_cast<unsigned>(std::countr_zero(kMinBlock))};
  }

  Outcome lastOutcome() const { return outcome_; }
  void trackLeftovers(bool on) { table_.trackLeftovers(on); }
  // The steps of the last malloc and free; each heap says what it counts.
  std::size_t lastSteps() const { return steps_; }
  std::size_t lastFreeSteps() const { return freeSteps_; }

  // The last resort of a malloc whose search found no block of its level k (k at
  // most topLevel()): fn(context, k) serves it or returns nullptr. BuddyDefragmenter
  // installs itself here rather than wrapping malloc, so that a malloc served by its
  // first list neither calls nor saves anything for it. fn reports through
  // recordFallback(); a null fn removes the hook.
  using Fallback = void* (*)(void* context, unsigned level);
  void setFallback(Fallback fn, void* context) {
    fallback_ = fn;
    fallbackContext_ = context;
  }
  // The fallback ends the malloc with its own outcome and steps (which include the
  // failed search's, lastSteps() when it was called).
  void recordFallback(Outcome outcome, std::size_t steps) {
    outcome_ = outcome;
    steps_ = steps;
    servedByFallback_ = true;
  }
  // Whether the fallback ended the last malloc.
  bool lastMallocByFallback() const { return servedByFallback_; }
  std::size_t freeBytes() const { return table_.freeBytes(); }
  // The largest single free block. An estranged buddy-free pair counts as two
  // blocks, not one (it has not been glued).
  std::size_t largestFreeBlock() const { return table_.largestFreeBlock(); }
  // fn(block bytes, free blocks) for each level with free blocks (free_space.h).
  template <class Fn>
  void forEachFreeSize(Fn&& fn) const {
    for (unsigned l = 0; l <= table_.topLevel(); ++l)
      if (table_.freeBlocks(l) != 0) fn(BuddyBlockTable::blockBytes(l), table_.freeBlocks(l));
  }
  unsigned topLevel() const { return table_.topLevel(); }
  std::size_t metadataBytes() const { return table_.metadataBytes(); }
  std::string layout() const { return table_.layout(); }

  // For BuddyDefragmenter.
  BuddyBlockTable& blockTable() { return table_; }

 protected:
  // The table's own structure, then freeBlockFault(off, level, state) for each
  // free block until one returns a fault; "" when all is consistent.
  template <class FreeBlockFault>
  std::string checkFreeBlocks(FreeBlockFault freeBlockFault) const {
    if (std::string fault = table_.checkStructure(); !fault.empty()) return fault;
    std::string fault;
    table_.forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
      if (fault.empty() && isFreeState(s)) fault = freeBlockFault(off, level, s);
    });
    return fault;
  }

  // For the statistics layer, after a malloc handed out `ptr` (BuddyBlockTable's
  // "where a free block came from") of the block at `off` of `level`: marks the upper
  // halves the malloc's bisection of a block of level `splitFrom` listed (none when
  // splitFrom is `level`) and returns whether the block itself was a leftover, clearing
  // its mark.
  bool noteHandedOut(std::size_t off, unsigned level, unsigned splitFrom) {
    for (unsigned up = level; up < splitFrom; ++up) table_.markLeftover(off + BuddyBlockTable::blockBytes(up));
    return table_.takeLeftover(off);
  }

  // Ends a malloc that the first list it looked at served: one step, immediate.
  void* handImmediate(void* block, unsigned level) {
    steps_ = 1;
    outcome_ = Outcome::immediate;
    servedByFallback_ = false;
    return hand(table_.offsetOf(block), level);
  }

  // Starts a malloc that the first list did not serve (or that no level can):
  // resets the record.
  void startSearch() {
    steps_ = 0;
    outcome_ = Outcome::failed;
    servedByFallback_ = false;
  }

  // Ends a malloc of level k <= topLevel() whose search failed: the fallback's
  // answer, or nullptr without one. Out of line: the searches tail-call it.
  [[gnu::noinline]] void* searchFailed(unsigned k) {
    return fallback_ ? fallback_(fallbackContext_, k) : nullptr;
  }

  // Starts a free of the non-null `ptr`: sets lastFreeSteps() to 1, sets `level` to
  // its level and returns its offset. The caller takes the block out of the live
  // summary (table_.removeLive) after its list work, so that the summary's pointer
  // and index are not live across the buddy test.
  std::size_t startFree(void* ptr, unsigned& level) {
    assert(table_.contains(ptr) && table_.isBusyBlock(table_.offsetOf(ptr)) &&
           "free of a pointer that is not a busy block of this heap");
    freeSteps_ = 1;
    const std::size_t off = table_.offsetOf(ptr);
    level = table_.levelAt(off);
    return off;
  }

  // Marks the block at `off` busy (live) at `level` and returns its address.
  [[gnu::always_inline]] void* hand(std::size_t off, unsigned level) {
    table_.setBusy(off, level);
    table_.addLive(off, level);
    return table_.address(off);
  }

  BuddyBlockTable table_;
  Outcome outcome_ = Outcome::failed;
  bool servedByFallback_ = false;  // beside outcome_: the common malloc writes both at once
  std::size_t steps_ = 0;
  std::size_t freeSteps_ = 0;
  Fallback fallback_ = nullptr;
  void* fallbackContext_ = nullptr;
};

}  // namespace kith::heap
