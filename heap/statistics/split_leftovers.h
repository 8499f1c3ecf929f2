// SplitLeftovers: where an immediate request's block came from (statistics.h,
// immediate_leftover), for the policies that split and coalesce with boundary tags
// (CoalesceHeap's list, kingsley-coalescing and lea; TLSF), kept by the statistics
// layer alone from read-only views of the blocks' neighbours.
//
// A free block is a leftover when no free has returned any of it: the rest a split
// filed, or memory never used. Such a block handed out whole is not recycling. The
// marks: one bit per 16-byte granule (GranuleBits), at a free block's payload.
//  - Tracking starts with every free block marked (at construction: the arena).
//  - After each malloc the layer reads and clears the mark of the block handed out,
//    and after a split marks the rest, which these policies leave as the free block
//    just above it (blockAfter).
//  - Before each free it clears the mark of the free block just below (freeBlockBefore):
//    the free merges the freed block into it, so the merged block, which starts there,
//    holds freed memory. A free block just above is merged under the freed block's
//    start, which has no mark (it was cleared when the block was handed out), and its
//    own mark is left inside the merged block: harmless, as a granule starts a block
//    again only as a split's rest (marked anew).
// So the policies' malloc and free run as without statistics, and a bare run
// (StatisticsMode::none) keeps no bits.
//
// Quick lists (lea's QuickListHeap, CachesFrees below) keep freed blocks unmerged and
// free them into the coalescing heap in a consolidation, inside a malloc, where this
// layer cannot clear the marks before each free. It marks every cached block's start
// in a second bitmap instead, and after a malloc that consolidated (the lists emptied
// other than by the malloc's own hit) clears the mark of every free block that now
// holds a cached block's start (it absorbed freed memory) and forgets the cached
// starts: a walk of the free blocks, once per consolidation (a failure, or a request of
// 128 KiB and more). A caller that consolidates the lists itself, not through malloc,
// must stop tracking first.
#pragma once

#include <concepts>
#include <cstddef>

#include "heap/layers/granule_bits.h"
#include "heap/outcome.h"

namespace kith::heap {

// Blocks with boundary tags over one arena: a split malloc leaves its rest as the
// free block just above the block it hands out, and a free merges the block with the
// free blocks just below and above it.
template <class H>
concept ShowsNeighbours = ReportsOutcome<H> && requires(const H h, void* p) {
  { h.blockAfter(p) } -> std::same_as<void*>;
  { h.freeBlockBefore(p) } -> std::same_as<void*>;
  { h.getSize(p) } -> std::convertible_to<std::size_t>;
  { h.arenaBase() } -> std::convertible_to<const std::byte*>;
  { h.arenaSize() } -> std::convertible_to<std::size_t>;
  h.forEachFreeBlock([](void*) {});
};

// Caches freed blocks without merging them (QuickListHeap).
template <class H>
concept CachesFrees = requires(const H h, void* p) {
  { h.cachesOnFree(p) } -> std::same_as<bool>;
  { h.cachedBlocks() } -> std::convertible_to<std::size_t>;
};

template <class H>
class SplitLeftovers {
  static_assert(ShowsNeighbours<H>, "SplitLeftovers reads the blocks' neighbours (blockAfter, freeBlockBefore)");

 public:
  static constexpr bool kKnown = true;
  explicit SplitLeftovers(const H& h) { track(h, true); }

  // On: every free block now is taken for a leftover. Off: the bits are released.
  void track(const H& h, bool on) {
    if (!on) {
      marks_.release();
      cached_.release();
      return;
    }
    if (marks_.on()) return;
    marks_ = GranuleBits(h.arenaSize());
    if constexpr (CachesFrees<H>) cached_ = GranuleBits(h.arenaSize());
    h.forEachFreeBlock([&](void* block) { marks_.set(offsetOf(h, block)); });
  }

  // What afterMalloc needs from before the malloc: the blocks the quick lists held.
  std::size_t beforeMalloc(const H& h) const {
    if constexpr (CachesFrees<H>) return marks_.on() ? h.cachedBlocks() : 0;
    else return 0;
  }

  // After a malloc that returned `p` (nullptr: failed) with `outcome`: whether p was
  // a leftover. Clears its mark, and marks a split's rest.
  bool afterMalloc(const H& h, void* p, Outcome outcome, std::size_t cachedBefore) {
    if (!marks_.on()) return false;
    bool leftover = false;
    if (p) leftover = marks_.take(offsetOf(h, p));
    if constexpr (CachesFrees<H>) {
      const bool hit = p && cached_.take(offsetOf(h, p));  // p came from a quick list
      if (h.cachedBlocks() + (hit ? 1 : 0) < cachedBefore) {
        if (p) leftover = leftover && !holdsCachedStart(h, p);
        if (p) forgetCachedStarts(h, p);
        afterConsolidation(h);
      }
    }
    if (p && outcome == Outcome::split) marks_.set(offsetOf(h, h.blockAfter(p)));
    return leftover;
  }

  // Before free(p).
  void beforeFree(const H& h, void* p) {
    if (!marks_.on()) return;
    if constexpr (CachesFrees<H>) {
      if (h.cachesOnFree(p)) {
        cached_.set(offsetOf(h, p));
        return;
      }
    }
    if (void* below = h.freeBlockBefore(p)) marks_.reset(offsetOf(h, below));
  }

  bool tracking() const { return marks_.on(); }

 private:
  static std::size_t offsetOf(const H& h, const void* p) {
    return static_cast<std::size_t>(static_cast<const std::byte*>(p) - h.arenaBase());
  }
  // The granules of block `p` after its first: where a block merged into it started.
  bool holdsCachedStart(const H& h, void* p) const {
    const std::size_t off = offsetOf(h, p);
    return cached_.anyIn(off + kMinBlock, off + h.getSize(p));
  }
  void forgetCachedStarts(const H& h, void* p) {
    const std::size_t off = offsetOf(h, p);
    cached_.clearIn(off, off + h.getSize(p));
  }
  // Every cached block now lies in a free block or in the block the malloc handed
  // out (forgotten already): a marked free block that holds one absorbed freed memory.
  void afterConsolidation(const H& h) {
    h.forEachFreeBlock([&](void* block) {
      if (holdsCachedStart(h, block)) marks_.reset(offsetOf(h, block));
      forgetCachedStarts(h, block);
    });
  }

  GranuleBits marks_;   // leftovers, at their payloads
  GranuleBits cached_;  // the payloads of the blocks the quick lists hold (CachesFrees)
};

}  // namespace kith::heap
