// BuddyDefragmenter: on-demand defragmentation of a buddy heap (Donahue et al.,
// section 2.8), for KnuthBuddyHeap and EstrangedBuddyHeap. Sometimes a request of
// level k (a block of 16 << k bytes) fails although the free blocks add up to
// that size: the holes are there but not as buddies. The defragmenter then makes
// one free block of level k for this request only, moving as little as it can:
// like Defoe, Cholleti & Cytron ("Upper bound for defragmenting buddy heaps",
// LCTES 2005) it empties the aligned region of level k with the fewest live bytes.
//
// empty(V), for a region V of level v (an aligned run of 16 << v bytes, split into
// smaller blocks):
//   1. hold V's free blocks: off the lists and the free counts, state "held";
//   2. move V's live blocks out, largest first. A block of level j goes to a block
//      from the heap's own malloc of level j (the smallest free block of level >= j,
//      bisected; the held blocks are on no list, so it is never inside a region
//      being emptied). If the heap has none, the region of level j with the fewest
//      live bytes outside the regions being emptied is emptied the same way, and
//      the block goes there;
//   3. V's held blocks become one block of level v.
// Each live block moved is copied (memcpy) and reported through the relocation
// callback (context, old, new, size). Free blocks never move. A request is
// "defrag" when a live block moved and "glue" when none had to (an estranged region
// made only of free buddy pairs).
//
// Choosing a region (leastLiveRegion) weighs each candidate with
// BuddyBlockTable::liveGranules, from the live summary (buddy_live_summary.h: one
// counter per 4 KiB region) and the side table: at most R(j) = 1 + 2^(j-8) reads for
// a region of level j >= 8, 1 + 2^j below. The candidates are either the regions of
// the level or the regions holding a free block below it, whichever are fewer. That
// is the one cost that depends on the heap, not the request: at most
// j + (1 + R(j)) * min(free blocks below level j, regions of level j) steps per
// search of level j (lastRegionSearchSteps()), one search per request plus one per
// block that needs a region of its own. In `kith bench defrag` it is 4 regions; on
// a 64 MiB heap whose free space is only 16-byte holes and a 64-byte request, a
// scan of its 2^20 regions can be needed.
//
// What is guaranteed, for a request of level k, s = 2^k granules, with
// m = the fewest live bytes of an aligned region of level k (every way of serving
// the request must move at least m: it must empty some such region):
//  (a) Exactness: the request fails only when the free bytes are fewer than 16 << k
//      (checked first in O(k), before anything moves). Proof: at a failed request
//      there is no free block of level >= k, so every free byte is below k. The
//      maximal blocks below level k total < 16 << k bytes, so some region of level
//      k holds a free byte and has live < 16 << k; the chosen one has m < 16 << k,
//      and its blocks are all below level k. Invariant while emptying: the free bytes
//      outside the regions being emptied are at least the live bytes still to be
//      placed (true at the start: F - (16 << k - m) >= m when F >= 16 << k; a placed
//      block uses as much free space as it leaves pending, and emptying a region of
//      level j for a block of 16 << j holds its 16 << j - x free bytes and adds its x
//      live bytes while the block's 16 << j stop being pending). So when a block of
//      level j finds no free block of level >= j, the pending bytes (>= 16 << j)
//      exceed the free bytes in maximal blocks below j, and some region of level j
//      outside the regions being emptied holds free bytes: the recursion has a
//      region, of lower level each time, and ends.
//  (b) When no block needs the recursion, the bytes moved are exactly m: optimal.
//      No block needs it when the free blocks outside the chosen region R can take
//      R's live blocks by size: for every j, the free bytes outside R in blocks of
//      level >= j are at least R's live bytes in blocks of level >= j (largest first
//      and best fit then never fail: a placed block of level i >= j uses 2^i of the
//      first sum, and bisection keeps the rest at levels >= i). A heap of 16-byte
//      objects always qualifies.
//  (c) When every region emptied for a block of R needs no recursion of its own, the
//      bytes moved are < 2m <= 2 * optimal: R's blocks total m, and each block of
//      16 << j that needs a region adds that region's live bytes, < 16 << j.
//  (d) Always: bytes moved <= k * 2^(k-1) granules (16 bytes each), so at most
//      k * 2^(k-1) moves: s * log2(s) / 2 granules, not linear in s. Emptying a
//      region of level v moves its live blocks (< 2^v granules) and, for each block
//      of level j that needs one, empties a region of level j: W(v) <= sum over its
//      blocks of (2^j + W(j)). Per granule that is 1 + j/2 with W(j) = j * 2^(j-1),
//      growing with j, so the worst case is one block of each level below v:
//      W(v) = (2^v - 1) + sum_{j<v} j 2^(j-1) = v * 2^(v-1). A "staircase" heap,
//      every region holding one block of each level below it and one free granule,
//      reaches it: at k = 4 the defragmenter moves 32 granules where m = 15. There
//      every algorithm has to move as much (sketch: no free run above one granule
//      exists, so each block of level j >= 1 that leaves needs a region of level j
//      emptied first, and each such region holds a staircase of its own), which an
//      exhaustive search confirms at k = 3 (12 granules, m = 7); so "at most 2m" is
//      no bound any algorithm keeps in general: m/optimum falls as 2/k there.
//      tests/heap/buddy_defrag_optimum_test.cpp checks (a)-(d) against a search for
//      the optimum.
//
// Steps (lastSteps()): Super's failed search, then k (the precheck), the region
// searches (above), and for the rest defragStepBound(k, L): each region of level v
// emptied is walked at most v + 2 times (hold, one pass per level of live blocks,
// join), the regions emptied for blocks total at most the granules moved, and each
// move costs one step plus one Super::malloc.
//
// The owner supplies the callback with setRelocator(fn, context) (the VM redirects
// the object's handle there). The callback must not call back into the heap.
// Without a callback the defragmenter is off: the failed request returns nullptr
// and nothing moves. Its state (callback, counters, the stack of regions being
// emptied) lives in this layer object.
#pragma once

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "heap/buddy/buddy_block_table.h"
#include "heap/outcome.h"

namespace kith::heap {

// What the defragmenter needs from the buddy heap beneath it.
template <class H>
concept DefragmentableBuddyHeap = HeapLayer<H> && requires(H h, unsigned level, typename H::Fallback fn) {
  { h.blockTable() } -> std::same_as<BuddyBlockTable&>;
  { h.lastOutcome() } -> std::same_as<Outcome>;
  { h.lastSteps() } -> std::convertible_to<std::size_t>;
  { H::mallocStepBound(level, level) } -> std::convertible_to<std::size_t>;
  // The hook a failed search calls, and how the fallback reports (buddy_heap_core.h).
  h.setFallback(fn, nullptr);
  h.recordFallback(Outcome::failed, std::size_t{0});
  { h.lastMallocByFallback() } -> std::same_as<bool>;
};

template <class Super>
class BuddyDefragmenter : public Super {
  static_assert(DefragmentableBuddyHeap<Super>,
                "BuddyDefragmenter sits on a buddy heap (KnuthBuddyHeap, EstrangedBuddyHeap)");
  static constexpr std::size_t kNone = BuddyBlockTable::kNone;

 public:
  using Super::Super;

  // Installs the relocation callback; a null fn turns defragmentation off. The
  // defragmenter runs as Super's fallback: when a malloc's search fails.
  void setRelocator(RelocateFn fn, void* context) {
    relocate_ = fn;
    context_ = context;
    Super::setFallback(fn ? &BuddyDefragmenter::defragmentFallback : nullptr, this);
  }

  // The part of lastSteps() spent choosing regions (summary and side-table reads).
  std::size_t lastRegionSearchSteps() const { return Super::lastMallocByFallback() ? regionSearchSteps_ : 0; }
  // Live blocks moved (one relocation callback each), and their bytes, since construction.
  std::size_t defragMoves() const { return moves_; }
  std::size_t defragBytesMoved() const { return bytesMoved_; }

  // The most bytes, and so the most moves, one request of level k can move: (d) above.
  static constexpr std::size_t defragBytesBound(unsigned k) {
    return k * (std::size_t{1} << k) / 2 * BuddyBlockTable::blockBytes(0);
  }
  static constexpr std::size_t defragMoveBound(unsigned k) { return k * (std::size_t{1} << k) / 2; }
  // The most steps of one defragmentation of level k on a heap whose largest maximal
  // block has level `top`, not counting Super's failed search and the region searches.
  static constexpr std::size_t defragStepBound(unsigned k, unsigned top) {
    const std::size_t moved = defragMoveBound(k);  // granules, and moves
    std::size_t malloc = 0;
    for (unsigned j = 0; j <= k && j <= top; ++j) malloc = std::max(malloc, Super::mallocStepBound(j, top));
    return k + (k + 2) * ((std::size_t{1} << k) + moved) + moved * (1 + malloc);
  }

 private:
  static void* defragmentFallback(void* self, unsigned level) {
    return static_cast<BuddyDefragmenter*>(self)->defragment(level);
  }

  // Super's search failed a request of level k (at most its top level) and a
  // relocator is installed: one free block of that level, made by emptying the
  // region with the fewest live bytes. The malloc's outcome is "defrag" when live
  // blocks moved; its steps, Super's failed search plus everything done here.
  void* defragment(unsigned k) {
    BuddyBlockTable& table = Super::blockTable();
    const std::size_t searchSteps = Super::lastSteps();
    defragSteps_ = k;  // the precheck reads k free counts
    regionSearchSteps_ = 0;
    Outcome outcome = Outcome::failed;
    void* block = nullptr;
    if (table.freeBytesBelow(k) >= BuddyBlockTable::blockBytes(k)) {
      // The moves' own mallocs must not come back here: an empty region is found
      // for them below instead.
      Super::setFallback(nullptr, nullptr);
      const std::size_t movesBefore = moves_;
      const std::size_t region = leastLiveRegion(k);
      empty(region, k);
      table.setBusy(region, k);
      table.addLive(region, k);
      outcome = moves_ != movesBefore ? Outcome::defrag : Outcome::glue;
      block = table.address(region);
      Super::setFallback(&BuddyDefragmenter::defragmentFallback, this);
    }
    Super::recordFallback(outcome, searchSteps + defragSteps_ + regionSearchSteps_);
    return block;
  }

  // Empties the split region `off` of `level` as described at the top; on return it
  // is one held block of that level.
  void empty(std::size_t off, unsigned level) {
    BuddyBlockTable& table = Super::blockTable();
    assert(depth_ < BuddyBlockTable::kLevels);
    emptying_[depth_++] = {off, level};
    const std::size_t end = off + BuddyBlockTable::blockBytes(level);
    std::size_t live[BuddyBlockTable::kLevels] = {};
    for (std::size_t o = off; o < end; o += BuddyBlockTable::blockBytes(table.levelAt(o))) {
      ++defragSteps_;
      const unsigned l = table.levelAt(o);
      if (isFreeState(table.stateAt(o))) {
        table.removeFree(o);
        table.setHeld(o, l);
      } else {
        assert(table.stateAt(o) == BuddyState::busy && l < level);
        ++live[l];
      }
    }
    for (unsigned j = level; j-- > 0;)
      for (std::size_t o = off; live[j] != 0 && o < end; o += BuddyBlockTable::blockBytes(table.levelAt(o))) {
        ++defragSteps_;
        if (table.levelAt(o) != j || table.stateAt(o) != BuddyState::busy) continue;
        moveOut(o, j);
        --live[j];
      }
    for (std::size_t o = off + BuddyBlockTable::blockBytes(table.levelAt(off)); o < end;) {
      ++defragSteps_;
      const std::size_t next = o + BuddyBlockTable::blockBytes(table.levelAt(o));
      table.clear(o);
      o = next;
    }
    table.setHeld(off, level);
    --depth_;
  }

  // Moves the live block at `from` (of `level`) out of the regions being emptied.
  void moveOut(std::size_t from, unsigned level) {
    BuddyBlockTable& table = Super::blockTable();
    const std::size_t size = BuddyBlockTable::blockBytes(level);
    std::size_t to;
    if (void* p = Super::malloc(size)) {  // live (busy, counted) at once
      defragSteps_ += Super::lastSteps();
      to = table.offsetOf(p);
      Super::tookLeftover(p);  // handed out here, not through the statistics layer
    } else {
      defragSteps_ += Super::lastSteps();
      to = leastLiveRegion(level);
      empty(to, level);
      table.setBusy(to, level);
      table.addLive(to, level);
      table.takeLeftover(to);
    }
    ++defragSteps_;
    std::memcpy(table.address(to), table.address(from), size);
    table.removeLive(from, level);
    table.setHeld(from, level);
    relocate_(context_, table.address(from), table.address(to), size);
    ++moves_;
    bytesMoved_ += size;
  }

  // The split region of `level` with the fewest live granules (the lowest address
  // among equals) outside the regions being emptied. The proof of (a) says one exists.
  std::size_t leastLiveRegion(unsigned level) {
    const BuddyBlockTable& table = Super::blockTable();
    std::size_t best = kNone, bestLive = SIZE_MAX;
    auto consider = [&](std::size_t region) {
      const std::size_t live = table.liveGranules(region, level, regionSearchSteps_);
      if (live < bestLive || (live == bestLive && region < best)) {
        best = region;
        bestLive = live;
      }
    };
    std::size_t freeBlocks = 0;
    for (unsigned l = 0; l < level; ++l) freeBlocks += table.freeBlocks(l);
    regionSearchSteps_ += level;
    const std::size_t regions = table.regionCount(level);
    if (freeBlocks < regions) {
      // The regions holding a free block below `level`; held blocks are on no list,
      // so none of these lies in a region being emptied.
      for (unsigned l = 0; l < level && bestLive != 0; ++l)
        table.forEachListed(l, [&](std::size_t off) {
          ++regionSearchSteps_;
          const std::size_t region = table.regionOf(off, level);
          if (bestLive != 0 && table.isRegion(region, level)) consider(region);
        });
    } else {
      const std::size_t bytes = BuddyBlockTable::blockBytes(level);
      for (std::size_t region = 0; region < regions * bytes && bestLive != 0; region += bytes) {
        ++regionSearchSteps_;
        if (table.isSplitRegion(region, level) && !beingEmptied(region)) consider(region);
      }
    }
    if (best == kNone || bestLive >= (std::size_t{1} << level)) std::abort();  // impossible: see (a)
    return best;
  }

  bool beingEmptied(std::size_t off) const {
    for (unsigned i = 0; i < depth_; ++i)
      if (off >= emptying_[i].off && off - emptying_[i].off < BuddyBlockTable::blockBytes(emptying_[i].level))
        return true;
    return false;
  }

  struct Region {
    std::size_t off;
    unsigned level;
  };

  RelocateFn relocate_ = nullptr;
  void* context_ = nullptr;
  std::size_t defragSteps_ = 0;        // precheck, walks, moves, destination mallocs
  std::size_t regionSearchSteps_ = 0;  // choosing regions
  std::size_t moves_ = 0;              // live blocks moved (callbacks)
  std::size_t bytesMoved_ = 0;
  Region emptying_[BuddyBlockTable::kLevels] = {};  // the regions being emptied, outermost first
  unsigned depth_ = 0;
};

}  // namespace kith::heap
