// QuickListHeap: exact-size quick lists in front of a coalescing heap — the small-
// object half of the Lea allocator (dlmalloc 2.7's "fastbins"; paper §6.2, where
// ThresholdHeap plays the consolidating part). Requests of at most MaxSmall bytes
// are served from one LIFO list per 16-byte class (16, 32, ..., MaxSmall) in O(1).
// A freed block whose usable size falls in a class's range is cached on that
// list *as it is*: still in use as far as the coalescing heap below knows, so it
// is neither coalesced nor split while cached. Everything else goes to Super.
//
// The lists together cache at most Capacity blocks (dlmalloc's fastbins are
// unbounded); a free that finds them full goes to Super, where it coalesces at
// once. The capacity is on all lists rather than each, because what it bounds is
// a consolidation: cached blocks are memory the coalescing heap cannot reuse, so
// the lists are consolidated — every cached block freed into Super — before a
// request of ConsolidateAt bytes or more, and whenever Super cannot serve a
// request (then the request is retried once). So a fixed arena never fails while
// the lists hold a block that would have made the difference, and a consolidation
// frees at most Capacity blocks: no request walks everything freed since the last
// one. A collector's sweep frees its dead small objects in one burst, which the
// next allocations take back: a capacity above the burst keeps both sides hits.
//
// Bounded time, when Super counts steps (stepCount(), kMaxMallocSteps,
// kMaxFreeSteps, as CoalesceHeap<LeaBinsHeap> does): a step is a quick list looked
// at or pushed, a cached block consolidated, or a step of Super. lastSteps() (the
// last malloc) <= maxMallocSteps() = 1 + Capacity x (1 + Super's
// free bound) + 2 x Super's malloc bound; lastFreeSteps() <= maxFreeSteps() =
// max(1, Super's free bound).
//
// Each list is a FreelistHeap<NullHeap> (a miss answers nullptr, and the block
// then comes from Super at the class's full size). Requirements on Super: getSize
// (a freed block's list is chosen by its size) and lastOutcome (reported for the
// requests Super serves; a quick-list hit is `immediate`). When Super has a
// mallocFastPath (its common case alone, or nullptr; kFastPathSteps steps), a miss
// tries it before Super's malloc (lea: the bins' victim carved in one pass).
// Metadata: list heads, a block count and a byte total in this object; links in the
// cached blocks.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/layers/freelist_heap.h"
#include "heap/layer.h"
#include "heap/layers/null_heap.h"
#include "heap/outcome.h"

namespace kith::heap {

// Super counts its work: a running total and per-call bounds.
template <class H>
concept CountsSteps = requires(const H h) {
  { h.stepCount() } -> std::convertible_to<std::size_t>;
  { H::kMaxMallocSteps } -> std::convertible_to<std::size_t>;
  { H::kMaxFreeSteps } -> std::convertible_to<std::size_t>;
};

template <std::size_t MaxSmall, std::size_t Capacity, std::size_t ConsolidateAt, class Super>
class QuickListHeap : public Super {
  static_assert(MaxSmall >= kMinBlock && MaxSmall % kAlignment == 0, "classes are 16 bytes apart");
  static_assert(Capacity >= 1, "lists that cache nothing are no lists");
  static_assert(ConsolidateAt > MaxSmall);
  static_assert(SizedHeap<Super>, "QuickListHeap picks a freed block's list by Super::getSize");
  static_assert(ReportsOutcome<Super>, "QuickListHeap reports Super::lastOutcome for the requests Super serves");

 public:
  using Super::Super;

  static constexpr unsigned kListCount = MaxSmall / kAlignment;
  static constexpr std::size_t kCapacity = Capacity;  // blocks cached, all lists together
  // List c serves requests of (16c, 16c + 16] bytes, 1 <= request <= MaxSmall (malloc
  // serves 0 as 1).
  static constexpr std::size_t listFor(std::size_t request) { return (request - 1) / kAlignment; }
  static constexpr std::size_t listRequestSize(std::size_t list) { return list * kAlignment + kAlignment; }

  // Requests of 1 to MaxSmall bytes test once (size - 1 wraps 0 above it); 0 is
  // served as 1, out of line.
  void* malloc(std::size_t size) {
    if (size - 1 < MaxSmall) {
      const std::size_t c = listFor(size);
      if (void* block = lists_[c].malloc(0)) {
        --cached_;
        cachedBytes_ -= Super::getSize(block);
        lastMalloc_ = {1, Outcome::immediate};
        return block;
      }
      return mallocOnListMiss(c);
    }
    return mallocAboveLists(size);
  }

  void free(void* ptr) {
    if (ptr == nullptr) {
      freeSteps_ = 0;
      return;
    }
    std::size_t usable = Super::getSize(ptr);
    if (int c = cachingList(usable); c >= 0 && cached_ < Capacity) {
      lists_[c].free(ptr);
      ++cached_;
      cachedBytes_ += usable;
      freeSteps_ = 1;
      return;
    }
    freeToSuper(ptr);
  }

  // Frees every cached block into Super (at most Capacity). True if
  // there was any. Out of line: inlined into malloc, the loop's registers would
  // be saved and restored on every request, hit or miss.
  [[gnu::noinline]] bool consolidate() {
    bool any = false;
    for (unsigned c = 0; c < kListCount; ++c) {
      while (void* block = lists_[c].malloc(0)) {
        ++ownSteps_;
        Super::free(block);
        any = true;
      }
    }
    cached_ = 0;
    cachedBytes_ = 0;
    return any;
  }

  // Steps of the last malloc and of the last free (0 until Super counts steps:
  // then they include Super's), and their bounds.
  std::size_t lastSteps() const { return lastMalloc_.steps; }
  std::size_t lastFreeSteps() const { return freeSteps_; }
  static constexpr std::size_t maxMallocSteps()
    requires CountsSteps<Super>
  {
    return 1 + Capacity * (1 + Super::kMaxFreeSteps) + 2 * Super::kMaxMallocSteps;
  }
  static constexpr std::size_t maxFreeSteps()
    requires CountsSteps<Super>
  {
    return Super::kMaxFreeSteps > 1 ? Super::kMaxFreeSteps : 1;
  }

  Outcome lastOutcome() const { return lastMalloc_.outcome; }
  std::size_t cachedBlocks() const { return cached_; }
  // Whether free(ptr) would cache the block rather than hand it to Super, as free
  // decides. Read-only, for the statistics layer (split_leftovers.h): a cached block
  // merges with no neighbour until a consolidation.
  bool cachesOnFree(void* ptr) const { return cachingList(Super::getSize(ptr)) >= 0 && cached_ < Capacity; }
  // Walks the list: for tests and reports, not the allocator's own paths.
  std::size_t cachedBlocks(unsigned list) const {
    std::size_t n = 0;
    lists_[list].forEachFree([&](void*) { ++n; });
    return n;
  }

  // Usable bytes free: Super's plus the cached blocks'.
  std::size_t freeBytes() const
    requires requires(const Super s) { s.freeBytes(); }
  {
    return Super::freeBytes() + cachedBytes_;
  }
  // The larger of Super's largest free block and the largest cached block. A
  // request above it may still succeed, by consolidating cached neighbours.
  std::size_t largestFreeBlock() const
    requires requires(const Super s) { s.largestFreeBlock(); }
  {
    std::size_t largest = Super::largestFreeBlock();
    for (unsigned c = 0; c < kListCount; ++c)
      lists_[c].forEachFree([&](void* block) {
        if (Super::getSize(block) > largest) largest = Super::getSize(block);
      });
    return largest;
  }

  // fn(usable bytes, count) for Super's free blocks, then each cached block (free_space.h).
  template <class Fn>
    requires requires(const Super s) { s.forEachFreeSize([](std::size_t, std::size_t) {}); }
  void forEachFreeSize(Fn&& fn) const {
    Super::forEachFreeSize(fn);
    for (unsigned c = 0; c < kListCount; ++c)
      lists_[c].forEachFree([&](void* block) { fn(Super::getSize(block), std::size_t{1}); });
  }

  // Super's invariants, then every list: no loop, count and bytes as recorded,
  // each block of a size that belongs on it, in the arena, and not free in Super.
  std::string checkInvariants() const {
    if constexpr (requires(const Super s) { s.checkInvariants(); }) {
      if (std::string broken = Super::checkInvariants(); !broken.empty()) return broken;
    }
    std::size_t bytes = 0, blocks = 0;
    for (unsigned c = 0; c < kListCount; ++c) {
      std::string error;
      std::size_t count = 0;
      bool ended = lists_[c].forEachFree([&](void* block) {
        ++count;
        if (!error.empty()) return;
        std::size_t usable = Super::getSize(block);
        bytes += usable;
        if (!isAligned(block)) error = "misaligned block";
        else if (cachingList(usable) != static_cast<int>(c))
          error = "block of " + std::to_string(usable) + " usable bytes";
        if constexpr (requires(const Super s) { s.arenaContains(block); }) {
          if (error.empty() && !Super::arenaContains(block)) error = "block outside the arena";
        }
        if constexpr (requires { Super::isFree(block); }) {
          if (error.empty() && Super::isFree(block)) error = "cached block is free in the heap below";
        }
      });
      if (!ended && error.empty()) error = "list loops (a block freed twice?)";
      if (!error.empty())
        return "quick list " + std::to_string(listRequestSize(c)) + " B: " + error;
      blocks += count;
    }
    if (blocks != cached_)
      return "quick lists hold " + std::to_string(blocks) + " blocks but " + std::to_string(cached_) +
             " are counted";
    if (blocks > Capacity) return "quick lists hold more blocks than the capacity";
    if (bytes != cachedBytes_)
      return "quick lists hold " + std::to_string(bytes) + " bytes but " + std::to_string(cachedBytes_) +
             " are counted";
    return "";
  }

 private:
  // The list that caches a block of `usable` bytes: the largest class it serves
  // whole. -1 when it is too big (or too small) for every list.
  std::size_t superSteps() const {
    if constexpr (CountsSteps<Super>) {
      return Super::stepCount();
    } else {
      return 0;
    }
  }

  static int cachingList(std::size_t usable) {
    std::size_t c = usable / kAlignment;
    return c >= 1 && c <= kListCount ? static_cast<int>(c - 1) : -1;
  }

  // The paths through Super, out of line: inlined, their calls would make every
  // quick-list hit save and restore registers. Super's fast path first, when it has
  // one (mallocFastPath: no calls, so no registers saved) and the request does not
  // consolidate first; the rest further out.
  // A request whose list `c` was empty gets a block of the class's full size from
  // Super (one step: the list looked at); the compiler knows that size is small.
  [[gnu::noinline]] void* mallocOnListMiss(std::size_t c) {
    if (c >= kListCount) __builtin_unreachable();
    return mallocFromSuper(listRequestSize(c), 1);
  }
  [[gnu::noinline]] void* mallocAboveLists(std::size_t size) {
    if (size == 0) return malloc(1);  // list 0's
    return mallocFromSuper(size, 0);
  }
  // `list` is the steps malloc took.
  [[gnu::always_inline]] void* mallocFromSuper(std::size_t size, std::size_t list) {
    if constexpr (requires(Super s) { s.mallocFastPath(size); }) {
      if (void* block = size < ConsolidateAt ? Super::mallocFastPath(size) : nullptr) {
        lastMalloc_ = {list + Super::kFastPathSteps, Super::lastOutcome()};
        return block;
      }
    }
    return mallocThroughSuper(size, list);
  }
  [[gnu::noinline]] void* mallocThroughSuper(std::size_t size, std::size_t list) {
    if constexpr (CountsSteps<Super>) static_assert(maxMallocSteps() < (1u << 26), "MallocRecord::steps holds any malloc's");
    std::size_t before = superSteps();
    ownSteps_ = list;
    if (size >= ConsolidateAt) consolidate();
    void* block = fromSuper(size);
    lastMalloc_.steps = static_cast<std::uint32_t>(ownSteps_ + (superSteps() - before));
    return block;
  }

  [[gnu::noinline]] void freeToSuper(void* ptr) {
    std::size_t before = superSteps();
    Super::free(ptr);
    freeSteps_ = superSteps() - before;
  }

  void* fromSuper(std::size_t size) {
    void* block = Super::malloc(size);
    if (block == nullptr && consolidate()) block = Super::malloc(size);
    lastMalloc_.outcome = block ? Super::lastOutcome() : Outcome::failed;
    return block;
  }

  FreelistHeap<NullHeap> lists_[kListCount];
  std::size_t cached_ = 0;  // blocks on all lists
  std::size_t cachedBytes_ = 0;
  // The last malloc's steps and outcome in one 32-bit word, so that a path that knows
  // both writes them in one store. Its steps fit: maxMallocSteps() is checked below 2^26.
  struct MallocRecord {
    constexpr MallocRecord(std::size_t s, Outcome o) : steps(static_cast<std::uint32_t>(s)), outcome(o) {}
    std::uint32_t steps : 26;
    Outcome outcome : 6;
  };
  MallocRecord lastMalloc_{0, Outcome::immediate};
  std::size_t ownSteps_ = 0, freeSteps_ = 0;
};

}  // namespace kith::heap
