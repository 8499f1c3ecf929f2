// BuddyBlockTable: the state the buddy heaps share. It holds the arena's geometry
// (its maximal power-of-two blocks, and a block's buddy and parent), a side table
// with each block's size level and state, the list display (two free lists per
// level), the free-byte counts, and the live-granule summary (buddy_live_summary.h).
// It also has the walk that checks all of these. The policies (KnuthBuddyHeap,
// EstrangedBuddyHeap) decide which lists a free block goes on. BuddyDefragmenter
// moves blocks through the same table.
//
// Levels and offsets. A block of level k is 16 << k bytes (level 0 = the 16-byte
// minimum). Offsets count from the arena base. A block's buddy is its offset with
// bit (k + 4) flipped. An arena whose size is not a power of two is covered by its
// maximal blocks ("roots"), largest first: 96 KiB + 48 B = 64 KiB | 32 KiB | 32 | 16.
// Each root starts at a multiple of its own size. A root has no buddy. No block
// crosses a root. Levels stop at 31 (32 GiB): a larger arena gets several 32 GiB roots.
//
// Where the metadata lives, and why a side table and not a header. The table has
// one byte per 16-byte granule and lives outside the arena: M/16 bytes, 6.25% of the
// arena (1 MiB for a 16 MiB heap). The layer object also holds the list display
// (2 x 64 list heads) and 32 per-level free counts, about 1.3 KiB, and the live
// summary, M/2048 bytes (0.05%). The byte at a block's first granule holds its
// level (5 bits) and state (3 bits). Every other byte is 0, so free() can tell a
// block start from any other address.
// One more zero byte follows the last granule's: in an arena of exactly 2^L bytes
// it is where the one root's buddy would start, so free() reads a block's buddy
// byte without asking whether the block is a root (a root's buddy never reads as a
// block of the root's level: buddyIsBlock).
// A header inside the block needs only a byte, but the payload must stay 16-byte
// aligned, so in practice it costs 16 bytes. The VM's objects are exactly 16, 32 or
// 64 bytes; with a header they would need blocks of 32, 64 or 128 bytes. Half of
// each block would be wasted, the heap would hold half as many objects, and
// getSize() could not return the full 2^k. With the side table the object gets the
// whole block. The tests check this: a 64 KiB heap holds exactly 4096 16-byte objects.
//
// Free-list links (prev/next) live inside the free blocks.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/buddy/buddy_free_list.h"
#include "heap/buddy/buddy_live_summary.h"
#include "heap/layer.h"
#include "heap/layers/granule_bits.h"
#include "heap/layers/zeroed_array.h"

namespace kith::heap {

// The arena a buddy heap takes whole at construction, with malloc(remaining()).
template <class H>
concept WholeArenaHeap = HeapLayer<H> && requires(H h) {
  { h.remaining() } -> std::convertible_to<std::size_t>;
};

// What a block's side-table byte says about it.
enum class BuddyState : std::uint8_t {
  none = 0,     // not the first granule of a block
  busy = 1,     // handed out: a live block
  listedA = 2,  // free, on list A of its level (Knuth: the free list; estranged: buddy-busy)
  listedB = 3,  // free, on list B of its level (estranged: buddy-free)
  implied = 4,  // free and on no list: its buddy is on buddy-free (estranged)
  held = 5,     // neither free nor live: taken by the defragmenter while it empties a
                // region; never seen outside one malloc
};

constexpr bool isFreeState(BuddyState s) { return s >= BuddyState::listedA && s <= BuddyState::implied; }
constexpr bool isListedState(BuddyState s) {
  return s == BuddyState::listedA || s == BuddyState::listedB;
}

class BuddyBlockTable {
 public:
  static constexpr unsigned kMaxLevel = 31;  // 16 B << 31 = 32 GiB
  static constexpr unsigned kLevels = kMaxLevel + 1;
  static_assert(kLevels <= BuddyLiveSummary::kLevels, "the live summary's table covers every level");
  static constexpr std::size_t kNone = SIZE_MAX;  // "no block" where an offset is returned

  static constexpr std::size_t blockBytes(unsigned level) { return kMinBlock << level; }

  // levelFor(size) for a malloc's first look at its own list, without branches:
  // the same level for every size from 1 to blockBytes(kMaxLevel); above that (and
  // for 0, which wraps) a level from kLevels to kListLevels - 1, whose lists are
  // always empty, so the malloc goes on to its search (which takes 0 as 1 byte).
  static constexpr unsigned listLevelFor(std::size_t size) {
    return static_cast<unsigned>(std::bit_width((size - 1) | (kMinBlock - 1)) - std::bit_width(kMinBlock - 1));
  }
  static constexpr unsigned kListLevels = 64;  // every level listLevelFor returns has a list

  // The level whose blocks serve a request of `size` bytes; kLevels when none can.
  static constexpr unsigned levelFor(std::size_t size) {
    return size == 0 ? 0 : std::min(listLevelFor(size), kLevels);
  }

  static constexpr std::size_t buddyOf(std::size_t off, unsigned level) {
    return off ^ blockBytes(level);
  }

  // Takes over [base, base + bytes) and makes each maximal block free on list A.
  // `bytes` is a multiple of 16. A null base means an empty heap.
  BuddyBlockTable(std::byte* base, std::size_t bytes);
  // The table over the whole of `arena`: its first and only allocation.
  template <WholeArenaHeap Arena>
  static BuddyBlockTable adopt(Arena& arena) {
    const std::size_t bytes = arena.remaining() & ~(kMinBlock - 1);
    return BuddyBlockTable(static_cast<std::byte*>(arena.malloc(bytes)), bytes);
  }
  BuddyBlockTable(const BuddyBlockTable&) = delete;
  BuddyBlockTable& operator=(const BuddyBlockTable&) = delete;

  // --- geometry ---------------------------------------------------------------
  std::byte* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  // The level of the largest root: no request above it can ever be served.
  unsigned topLevel() const { return topLevel_; }
  void* address(std::size_t off) const { return base_ + off; }
  std::size_t offsetOf(const void* p) const {
    return static_cast<std::size_t>(static_cast<const std::byte*>(p) - base_);
  }
  bool contains(const void* p) const {
    auto* b = static_cast<const std::byte*>(p);
    return base_ && b >= base_ && b < base_ + bytes_;
  }

  // True if the block (off, level) is one of the arena's maximal blocks, which have
  // no buddy. Roots below the top are placed in descending size order, so the root
  // at level l (if bit l of the granule count is set) starts where the granule
  // count, with bits 0..l cleared, says.
  bool isRoot(std::size_t off, unsigned level) const {
    if (level == kMaxLevel) return true;
    const std::size_t g = off / kMinBlock;
    return ((granules_ >> level) & 1u) && g == ((granules_ >> (level + 1)) << (level + 1));
  }

  // Calls f(offset, level) for each maximal block, in address order.
  template <class F>
  void forEachRoot(F&& f) const {
    std::size_t off = 0;
    for (std::size_t i = 0; i < (granules_ >> kMaxLevel); ++i, off += blockBytes(kMaxLevel))
      f(off, kMaxLevel);
    for (unsigned level = kMaxLevel; level-- > 0;)
      if ((granules_ >> level) & 1u) {
        f(off, level);
        off += blockBytes(level);
      }
  }

  // --- the side table -----------------------------------------------------------
  unsigned levelAt(std::size_t off) const { return byteAt(off) & 0x1Fu; }
  // The side table itself: byte off / 16 is the granule at offset off (FreeFootprint).
  const std::uint8_t* sideTable() const { return side_.get(); }
  BuddyState stateAt(std::size_t off) const {
    return static_cast<BuddyState>(byteAt(off) >> 5);
  }
  // A whole free block of exactly `level` starts at `off`.
  bool isFreeBlock(std::size_t off, unsigned level) const {
    return levelAt(off) == level && isFreeState(stateAt(off));
  }
  // A block of exactly `level` in state `s` starts at `off`: one byte compare. `off`
  // may be the arena's end (the extra zero byte).
  bool isBlock(std::size_t off, unsigned level, BuddyState s) const {
    return side_[off / kMinBlock] == encode(level, s);
  }
  // The buddy of the block (off, level) is a block of exactly `level` in state `s`:
  // false for a root, which has no buddy. A root below kMaxLevel needs no test of
  // its own: the granule after it (where its buddy would start) starts the next,
  // smaller root or is the extra zero byte past the arena, so it never reads as a
  // block of the root's level. Only the 32 GiB roots lie side by side.
  bool buddyIsBlock(std::size_t off, unsigned level, BuddyState s) const {
    assert(!isRoot(off, level) || level == kMaxLevel || !isBlock(buddyOf(off, level), level, s));
    return level != kMaxLevel && isBlock(buddyOf(off, level), level, s);
  }
  bool isBusyBlock(std::size_t off) const {
    return off < bytes_ && off % kMinBlock == 0 && stateAt(off) == BuddyState::busy;
  }
  void setBusy(std::size_t off, unsigned level) { write(off, level, BuddyState::busy); }
  void setHeld(std::size_t off, unsigned level) { write(off, level, BuddyState::held); }
  // Marks `off` as no longer a block start (it was merged into a larger block).
  void clear(std::size_t off) { side_[off / kMinBlock] = SideByte{}; }

  // --- free blocks: side table, lists and counts together ---------------------
  [[gnu::always_inline]] void addFree(std::size_t off, unsigned level, BuddyState s) {
    write(off, level, s);
    if (isListedState(s)) list(s, level).push(address(off));
    ++freeCount_[level];
  }
  // addFree onto a list the caller knows is empty (a bisection's upper halves go
  // on lists the search has just found empty).
  void addFreeOnEmpty(std::size_t off, unsigned level, BuddyState s) {
    assert(isListedState(s) && listEmpty(s, level));
    write(off, level, s);
    list(s, level).pushOnEmpty(address(off));
    ++freeCount_[level];
  }
  // Takes a free block out of the free accounting and unlinks it if listed. Its
  // side-table byte is left for the caller to rewrite (setBusy, clear, addFree).
  unsigned removeFree(std::size_t off) {
    const unsigned level = levelAt(off);
    removeFree(off, level, stateAt(off));
    return level;
  }
  // The same, when the caller already knows the block's level and state.
  void removeFree(std::size_t off, unsigned level, BuddyState s) {
    if (isListedState(s)) list(s, level).remove(address(off));
    --freeCount_[level];
  }
  // The first block of one list, removed as by removeFree; kNone if the list is
  // empty. Its side-table byte is not read: the list names its level and state.
  std::size_t popFree(BuddyState s, unsigned level) {
    void* p = popFreeBlock(s, level);
    return p ? offsetOf(p) : kNone;
  }
  // The same, as an address; nullptr if the list is empty.
  void* popFreeBlock(BuddyState s, unsigned level) {
    void* p = list(s, level).pop();
    if (p) --freeCount_[level];
    return p;
  }
  bool listEmpty(BuddyState s, unsigned level) const { return list(s, level).empty(); }
  // A free block changes list (or becomes implied); the free counts do not change.
  void restate(std::size_t off, BuddyState s) { restate(off, levelAt(off), stateAt(off), s); }
  // The same, when the caller already knows the block's level and state `old`.
  void restate(std::size_t off, unsigned level, BuddyState old, BuddyState s) {
    if (isListedState(old)) list(old, level).remove(address(off));
    write(off, level, s);
    if (isListedState(s)) list(s, level).push(address(off));
  }
  // --- where a free block came from (the split floor of Figure 10) ----------------
  // A free block is a leftover when no free has returned it since it was last handed
  // out: a bisection's upper half, or a maximal block never used. A request met from
  // its own list by a leftover is not recycling: on a program that never frees, a
  // buddy system meets half its requests that way (each split leaves the next
  // request of its size a block). One bit per granule, at the block's start, kept by
  // the statistics layer alone (stats_heap.h): after each malloc it marks the upper
  // halves the malloc's split listed and reads and clears the mark of the block
  // handed out (BuddyHeapCore::noteHandedOut), so a policy's own malloc and free never
  // touch the bits, and a bare run (no statistics) has none. A bit left set inside a
  // block that was recombined or taken apart is harmless: a granule becomes a block's
  // start again only as an upper half (marked anew) or as the lower half a malloc
  // hands out (cleared). arena / 128 bytes while tracked.
  bool tracksLeftovers() const { return leftovers_.on(); }
  // On: every free block now is taken for a leftover (at construction, the maximal
  // blocks, which no free has returned). Off: the bits are released.
  void trackLeftovers(bool on);
  void markLeftover(std::size_t off) {
    if (leftovers_.on()) leftovers_.set(off);
  }
  // Whether the block at `off` was marked a leftover; clears its mark.
  bool takeLeftover(std::size_t off) { return leftovers_.on() && leftovers_.take(off); }

  // --- live blocks and regions ----------------------------------------------------
  // A busy block of `level` at `off` became live (handed out, or a move's
  // destination) or stopped being live (freed, or moved away). BuddyHeapCore calls
  // these on every malloc and free: one counter update each, without a branch.
  void addLive(std::size_t off, unsigned level) { live_.addLive(off / kMinBlock, level); }
  void removeLive(std::size_t off, unsigned level) { live_.removeLive(off / kMinBlock, level); }

  // The regions of `level` (aligned runs of 16 << level bytes) that lie inside a
  // maximal block of that level or larger: offsets 0, 16 << level, ... below
  // regionCount(level) * (16 << level). The smaller maximal blocks come after them.
  std::size_t regionCount(unsigned level) const { return level > topLevel_ ? 0 : granules_ >> level; }
  std::size_t regionOf(std::size_t off, unsigned level) const { return off & ~(blockBytes(level) - 1); }
  bool isRegion(std::size_t regionOff, unsigned level) const {
    return level <= topLevel_ && (regionOff / kMinBlock >> level) < regionCount(level);
  }
  // Whether the region starts with a block smaller than itself, that is, it is
  // split into blocks of lower levels (and is neither one block nor inside one).
  bool isSplitRegion(std::size_t regionOff, unsigned level) const {
    return byteAt(regionOff) != 0 && levelAt(regionOff) < level;
  }

  // Live granules in the region of `level` at `regionOff`: a region (see isRegion)
  // that is split or is one block, not one inside a larger block. Busy and held
  // blocks count as live. Reads (counted in `reads`) at most regionReadBound(level):
  // the summary's counters of level 8 inside the region, stepping over blocks of
  // level 8 or larger; below level 8, the region's blocks in the side table.
  std::size_t liveGranules(std::size_t regionOff, unsigned level, std::size_t& reads) const;
  // The most reads liveGranules makes for a region of `level`.
  static constexpr std::size_t regionReadBound(unsigned level) {
    return 1 + (std::size_t{1} << (level < BuddyLiveSummary::kLevel ? level : level - BuddyLiveSummary::kLevel));
  }

  // Calls f(offset) for each free block of `level` on list A, then on list B.
  template <class F>
  void forEachListed(unsigned level, F&& f) const {
    for (BuddyState s : {BuddyState::listedA, BuddyState::listedB})
      for (const BuddyFreeList::Node* n = list(s, level).front(); n; n = n->next) f(offsetOf(n));
  }

  // --- accounting -----------------------------------------------------------------
  // Bytes in free blocks: O(log M), from the per-level counts (a running total
  // would cost every malloc and free an update).
  std::size_t freeBytes() const { return freeBytesBelow(kLevels); }
  std::size_t freeBlocks(unsigned level) const { return freeCount_[level]; }
  // Bytes in free blocks below `level`: what the defragmenter can gather into one
  // block of that level. O(level).
  std::size_t freeBytesBelow(unsigned level) const;
  // The largest single free block; O(log M) from the per-level counts.
  std::size_t largestFreeBlock() const;
  // Bytes of metadata kept outside the arena: the side table, the live summary and
  // this object.
  std::size_t metadataBytes() const {
    return granules_ + 1 + live_.bytes() + sizeof(*this) + leftovers_.bytes();
  }

  // --- whole-arena walks ------------------------------------------------------------
  // Calls f(offset, level, state) for every block, in address order. Assumes
  // checkStructure() passes.
  template <class F>
  void forEachBlock(F&& f) const {
    forEachRoot([&](std::size_t root, unsigned rootLevel) {
      for (std::size_t o = root, end = root + blockBytes(rootLevel); o < end;
           o += blockBytes(levelAt(o)))
        f(o, levelAt(o), stateAt(o));
    });
  }

  // Checks everything that does not depend on the policy. Every granule belongs to
  // exactly one block, and each block is aligned to its size inside its root. Only a
  // block's first granule has a nonzero byte. Every listed block is on exactly one
  // list: the one for its level and state. Busy and implied blocks are on no list.
  // The lists link back correctly. The free counts match the blocks. The blocks sum
  // to the arena. Returns "" or a description of the first fault.
  std::string checkStructure() const;

  // The arena block by block, for tests and debugging: each block's size followed by
  // "*" when busy, "+" when on list B (buddy-free), "-" when implied, "#" when held
  // by the defragmenter, and nothing when free on list A. Maximal blocks are separated by " | ".
  // Example: "16* 16 32 64 128" is the paper's Figure 4.
  std::string layout() const;

  // "block at offset 96 (32 bytes, busy)", for fault messages.
  std::string describe(std::size_t off) const;

 private:
  using SideByte = std::uint8_t;  // level in bits 0-4, BuddyState in bits 5-7
  static constexpr SideByte encode(unsigned level, BuddyState s) {
    return static_cast<SideByte>(static_cast<unsigned>(s) << 5 | level);
  }
  unsigned byteAt(std::size_t off) const { return static_cast<unsigned>(side_[off / kMinBlock]); }
  void write(std::size_t off, unsigned level, BuddyState s) { side_[off / kMinBlock] = encode(level, s); }
  BuddyFreeList& list(BuddyState s, unsigned level) {
    return lists_[s == BuddyState::listedB][level];
  }
  const BuddyFreeList& list(BuddyState s, unsigned level) const {
    return lists_[s == BuddyState::listedB][level];
  }
  // Whether the n table bytes from granule g on are all 0.
  bool interiorClear(std::size_t g, std::size_t n) const;
  bool isLiveOrHeld(std::size_t off) const {
    return stateAt(off) == BuddyState::busy || stateAt(off) == BuddyState::held;
  }

  // The summary against the busy blocks: each busy block below level 8 counts in
  // the region of level 8 containing it, and nothing else counts.
  std::string checkLiveSummary() const;

  std::byte* base_;
  std::size_t bytes_;
  std::size_t granules_;
  unsigned topLevel_;
  ZeroedArray<SideByte> side_;  // one byte per granule and one more; see the top of the file
  BuddyLiveSummary live_;                 // live granules per region of level 8
  BuddyFreeList lists_[2][kListLevels];   // [0] = list A, [1] = list B, by level (see listLevelFor)
  std::size_t freeCount_[kLevels] = {};   // free blocks per level, listed or implied
  GranuleBits leftovers_;                 // a bit per granule while tracked (markLeftover)
};

}  // namespace kith::heap
