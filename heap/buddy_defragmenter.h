// BuddyDefragmenter: on-demand defragmentation of a buddy heap (Donahue et al.,
// section 2.8). It works for both KnuthBuddyHeap and EstrangedBuddyHeap. Sometimes a
// request of level k (a block of 16 << k bytes) fails even though the free blocks
// below k add up to that size: the holes are there but not as buddies. The defragmenter then moves just enough
// blocks to build one free block of level k, for this request only. It never
// compacts the whole heap.
//
// How one block of level j is built (obtain(j)):
//   - a free block of level j that the policy can give without moving anything
//     (Knuth: its list; estranged: buddy-busy, buddy-free, or a buddy-free pair of
//     level j-1 glued), else
//   - two blocks X, Y of level j-1, each built the same way. If they are buddies
//     they simply join. If one has a whole free buddy (estranged, after taking from
//     buddy-free) it joins that buddy and the other goes back. Otherwise one of
//     them, A, has a busy buddy H (the paper's Figure 6). The defragmenter moves H
//     into the other free block, which keeps H's inner layout. Then A joins with the
//     place H left. H may be split into several blocks. Each busy block in it is
//     copied (memcpy) and reported through the relocation callback. Each free block
//     in it keeps its list, at its new address.
// This recursion succeeds exactly when the free bytes below level k are at least
// 16 << k. The greedy use of whole free blocks is like making change with powers of
// two. So the heap checks that sum first, in O(k), and fails without moving
// anything when it falls short.
//
// Bounds for one request of level k (k <= L = log2(M/16)):
//   obtain calls:   at most 2^(k-i) at level i, so < 2^(k+1) in all
//   joins:          at most 2^(k-1-i) at level i, each moving one half-block of
//                   level i, which holds at most 2^i blocks
//   block moves:    <= k * 2^(k-1)  (at most 2^(k-1) blocks per level; this bounds
//                   defragMoves() per request, and bytes moved <= k * 2^(k-1) * 16,
//                   i.e. k/2 times the request's block)
//   steps:          defragStepBound(k) = k (the precheck) + R * (2^(k+1) - 1)
//                   (R = Super::kReserveSteps) + 2 * (2^k - 1) for the joins
//                   + k * 2^(k-1) moves
// When the free space sits in blocks of level k-1 (one level below), building the
// block needs one join and one move of a half-block of at most 2^(k-1) blocks.
// The worst case needs every free block to be a 16-byte hole. lastSteps() adds
// these steps to the failed search of Super, so every malloc stays under
// Super::mallocStepBound(k, L) + defragStepBound(k).
//
// The owner supplies the callback with setRelocator(fn, context) (the VM redirects
// the object's handle there). The callback must not call back into the heap.
// Without a callback the defragmenter is off: the failed request returns nullptr
// and nothing moves. Its state (callback, counters) lives in this layer object.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstring>

#include "heap/buddy_block_table.h"
#include "heap/outcome.h"

namespace kith::heap {

// What the defragmenter needs from the buddy heap beneath it.
template <class H>
concept DefragmentableBuddyHeap =
    HeapLayer<H> && requires(H h, unsigned level, std::size_t& steps) {
      { h.blockTable() } -> std::same_as<BuddyBlockTable&>;
      { h.reserveFreeBlock(level, steps) } -> std::same_as<std::size_t>;
      { h.lastOutcome() } -> std::same_as<Outcome>;
      { h.lastSteps() } -> std::convertible_to<std::size_t>;
      { H::kReserveSteps } -> std::convertible_to<std::size_t>;
    };

template <class Super>
class BuddyDefragmenter : public Super {
  static_assert(DefragmentableBuddyHeap<Super>,
                "BuddyDefragmenter sits on a buddy heap (KnuthBuddyHeap, EstrangedBuddyHeap)");
  static constexpr std::size_t kNone = BuddyBlockTable::kNone;

 public:
  using Super::Super;

  // Installs the relocation callback; a null fn turns defragmentation off.
  void setRelocator(RelocateFn fn, void* context) {
    relocate_ = fn;
    context_ = context;
  }

  void* malloc(std::size_t size) {
    defragmented_ = false;
    defragSteps_ = 0;
    void* p = Super::malloc(size);
    if (p || !relocate_) return p;
    BuddyBlockTable& table = Super::blockTable();
    const unsigned k = BuddyBlockTable::levelFor(size);
    if (k > table.topLevel()) return nullptr;
    defragmented_ = true;
    outcome_ = Outcome::failed;
    defragSteps_ += k;  // the precheck reads k free counts
    if (table.freeBytesBelow(k) < BuddyBlockTable::blockBytes(k)) return nullptr;
    const std::size_t relocationsBefore = relocations_;
    const std::size_t off = obtain(k);
    if (off == kNone) return nullptr;  // not reached: the precheck guarantees success
    outcome_ = relocations_ != relocationsBefore ? Outcome::defrag : Outcome::glue;
    return table.address(off);
  }

  // The last malloc's outcome, "defrag" when blocks moved to serve it.
  Outcome lastOutcome() const { return defragmented_ ? outcome_ : Super::lastOutcome(); }
  // The last malloc's steps: Super's search plus, if it failed, the precheck,
  // list-head inspections, glues, joins and block moves of the defragmentation.
  std::size_t lastSteps() const { return Super::lastSteps() + defragSteps_; }
  // Busy blocks moved (one relocation callback each), and their bytes, since construction.
  std::size_t defragMoves() const { return moves_; }
  std::size_t defragBytesMoved() const { return bytesMoved_; }

  static constexpr std::size_t defragStepBound(unsigned k) {
    const std::size_t blocks = std::size_t{1} << k;
    return k + Super::kReserveSteps * (2 * blocks - 1) + 2 * (blocks - 1) + k * blocks / 2;
  }
  // The most busy-block moves one request of level k can make.
  static constexpr std::size_t defragMoveBound(unsigned k) { return k * (std::size_t{1} << k) / 2; }

 private:
  // A block of `level`, marked busy, built as described at the top; kNone on failure.
  std::size_t obtain(unsigned level) {
    std::size_t off = Super::reserveFreeBlock(level, defragSteps_);
    if (off != kNone || level == 0) return off;
    const std::size_t x = obtain(level - 1);
    if (x == kNone) return kNone;
    const std::size_t y = obtain(level - 1);
    if (y == kNone) {  // not reached after the precheck; give x back all the same
      Super::free(Super::blockTable().address(x));
      return kNone;
    }
    return join(x, y, level - 1);
  }

  // Joins two held (busy-marked) blocks of `level` into one held block of level + 1.
  std::size_t join(std::size_t x, std::size_t y, unsigned level) {
    BuddyBlockTable& table = Super::blockTable();
    ++defragSteps_;
    if (!table.isRoot(x, level) && BuddyBlockTable::buddyOf(x, level) == y)
      return merge(x, y, level);
    // If X or Y has a whole free buddy, join the two and give the other back: no move
    // is needed. In the estranged heap this happens after a block was taken from
    // buddy-free: its partner moved to buddy-busy and is still free.
    for (std::size_t a : {x, y}) {
      const std::size_t b = BuddyBlockTable::buddyOf(a, level);
      if (table.isRoot(a, level) || !table.isFreeBlock(b, level)) continue;
      ++defragSteps_;
      table.removeFree(b);
      table.setBusy(b, level);
      Super::free(table.address(a == x ? y : x));
      return merge(a, b, level);
    }
    // Otherwise A, the block that is not a maximal block (at most one of X and Y is:
    // there is one per level below the top), has a busy or split buddy H: move H
    // into the other block and let A join the place H left.
    const std::size_t a = table.isRoot(x, level) ? y : x;
    const std::size_t target = a == x ? y : x;
    const std::size_t h = BuddyBlockTable::buddyOf(a, level);
    transplant(h, target, level);
    table.setBusy(h, level);
    return merge(a, h, level);
  }

  std::size_t merge(std::size_t a, std::size_t b, unsigned level) {
    BuddyBlockTable& table = Super::blockTable();
    table.clear(std::max(a, b));
    table.setBusy(std::min(a, b), level + 1);
    return std::min(a, b);
  }

  // Moves the half-block `from` (level `level`, busy or split) into the held free
  // block `to`, keeping its layout: busy blocks are copied and reported, free blocks
  // keep their list at the new address. Leaves `from`'s inner table bytes clear.
  void transplant(std::size_t from, std::size_t to, unsigned level) {
    BuddyBlockTable& table = Super::blockTable();
    const std::size_t end = from + BuddyBlockTable::blockBytes(level);
    for (std::size_t o = from; o < end;) {
      const std::size_t size = BuddyBlockTable::blockBytes(table.levelAt(o));
      const std::size_t n = to + (o - from);
      ++defragSteps_;
      ++relocations_;
      if (table.stateAt(o) == BuddyState::busy) {
        std::memcpy(table.address(n), table.address(o), size);
        table.setBusy(n, table.levelAt(o));
        relocate_(context_, table.address(o), table.address(n), size);
        ++moves_;
        bytesMoved_ += size;
      } else {
        table.moveFree(o, n);
      }
      table.clear(o);
      o += size;
    }
  }

  RelocateFn relocate_ = nullptr;
  void* context_ = nullptr;
  bool defragmented_ = false;        // the last malloc went through defragmentation
  Outcome outcome_ = Outcome::failed;
  std::size_t defragSteps_ = 0;
  std::size_t relocations_ = 0;      // blocks moved, busy or free
  std::size_t moves_ = 0;            // busy blocks moved (callbacks)
  std::size_t bytesMoved_ = 0;
};

}  // namespace kith::heap
