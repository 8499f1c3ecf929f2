// QuickListHeap: exact-size quick lists in front of a coalescing heap — the small-
// object half of the Lea allocator (dlmalloc 2.7's "fastbins"; paper §6.2, where
// ThresholdHeap plays the consolidating part). Requests of at most MaxSmall bytes
// are served from one LIFO list per 16-byte class (16, 32, ..., MaxSmall) in O(1).
// A freed block whose usable size falls in a class's range is cached on that
// list *as it is*: still in use as far as the coalescing heap below knows, so it
// is neither coalesced nor split while cached. Everything else goes to Super.
//
// Cached blocks are memory the coalescing heap cannot reuse, so the lists are
// consolidated — every cached block freed into Super, where it coalesces — before
// a request of ConsolidateAt bytes or more, and whenever Super cannot serve a
// request (then the request is retried once). So a fixed arena never fails while
// the lists hold a block that would have made the difference.
//
// Each list is a FreelistHeap<NullHeap> (a miss answers nullptr, and the block
// then comes from Super at the class's full size). Requirements on Super: getSize
// (a freed block's list is chosen by its size) and lastOutcome (reported for the
// requests Super serves; a quick-list hit is `immediate`).
// Metadata: list heads, counts and a byte total in this object; links in the
// cached blocks.
#pragma once

#include <cstddef>
#include <string>

#include "heap/freelist_heap.h"
#include "heap/layer.h"
#include "heap/null_heap.h"
#include "heap/outcome.h"

namespace kith::heap {

template <std::size_t MaxSmall, std::size_t ConsolidateAt, class Super>
class QuickListHeap : public Super {
  static_assert(MaxSmall >= kMinBlock && MaxSmall % kAlignment == 0, "classes are 16 bytes apart");
  static_assert(ConsolidateAt > MaxSmall);
  static_assert(SizedHeap<Super>, "QuickListHeap picks a freed block's list by Super::getSize");
  static_assert(ReportsOutcome<Super>, "QuickListHeap reports Super::lastOutcome for the requests Super serves");

 public:
  using Super::Super;

  static constexpr unsigned kListCount = MaxSmall / kAlignment;
  // List c serves requests of (16c, 16c + 16] bytes (list 0 also 0..16).
  static constexpr unsigned listFor(std::size_t request) {
    return request <= kAlignment ? 0 : static_cast<unsigned>((request - 1) / kAlignment);
  }
  static constexpr std::size_t listRequestSize(unsigned list) { return (list + 1) * kAlignment; }

  void* malloc(std::size_t size) {
    if (size <= MaxSmall) {
      unsigned c = listFor(size);
      if (void* block = lists_[c].malloc(0)) {
        --counts_[c];
        cachedBytes_ -= Super::getSize(block);
        outcome_ = Outcome::immediate;
        return block;
      }
      return fromSuper(listRequestSize(c));
    }
    if (size >= ConsolidateAt) consolidate();
    return fromSuper(size);
  }

  void free(void* ptr) {
    if (ptr == nullptr) return;
    std::size_t usable = Super::getSize(ptr);
    if (int c = cachingList(usable); c >= 0) {
      lists_[c].free(ptr);
      ++counts_[c];
      cachedBytes_ += usable;
      return;
    }
    Super::free(ptr);
  }

  // Frees every cached block into Super. True if there was any.
  bool consolidate() {
    bool any = false;
    for (unsigned c = 0; c < kListCount; ++c) {
      while (void* block = lists_[c].malloc(0)) {
        Super::free(block);
        any = true;
      }
      counts_[c] = 0;
    }
    cachedBytes_ = 0;
    return any;
  }

  Outcome lastOutcome() const { return outcome_; }
  std::size_t cachedBlocks() const {
    std::size_t n = 0;
    for (std::size_t count : counts_) n += count;
    return n;
  }
  std::size_t cachedBlocks(unsigned list) const { return counts_[list]; }

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

  // Super's invariants, then every list: no loop, count and bytes as recorded,
  // each block of a size that belongs on it, in the arena, and not free in Super.
  std::string checkInvariants() const {
    if constexpr (requires(const Super s) { s.checkInvariants(); }) {
      if (std::string broken = Super::checkInvariants(); !broken.empty()) return broken;
    }
    std::size_t bytes = 0;
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
      if (error.empty() && count != counts_[c])
        error = std::to_string(count) + " blocks but " + std::to_string(counts_[c]) + " counted";
      if (!error.empty())
        return "quick list " + std::to_string(listRequestSize(c)) + " B: " + error;
    }
    if (bytes != cachedBytes_)
      return "quick lists hold " + std::to_string(bytes) + " bytes but " + std::to_string(cachedBytes_) +
             " are counted";
    return "";
  }

 private:
  // The list that caches a block of `usable` bytes: the largest class it serves
  // whole. -1 when it is too big (or too small) for every list.
  static int cachingList(std::size_t usable) {
    std::size_t c = usable / kAlignment;
    return c >= 1 && c <= kListCount ? static_cast<int>(c - 1) : -1;
  }

  void* fromSuper(std::size_t size) {
    void* block = Super::malloc(size);
    if (block == nullptr && consolidate()) block = Super::malloc(size);
    outcome_ = block ? Super::lastOutcome() : Outcome::failed;
    return block;
  }

  FreelistHeap<NullHeap> lists_[kListCount];
  std::size_t counts_[kListCount] = {};
  std::size_t cachedBytes_ = 0;
  Outcome outcome_ = Outcome::immediate;
};

}  // namespace kith::heap
