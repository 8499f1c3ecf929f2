// CoalesceHeap: splitting and coalescing (paper §6.2), written once for every
// coalescing policy. It sits above a free structure, which sits above the block
// representation:
//
//     CoalesceHeap< free structure (UnstructuredListHeap, LeaBinsHeap, ...)
//                   < CoalesceableHeap< FixedArena > > >
//
// malloc asks the free structure for a block that fits (the structure's policy —
// first fit, best fit, ... — decides which), and when it is bigger than needed
// splits it and hands the rest back to the structure. free merges the block with
// its free address-neighbours, pulling each out of the structure first, and hands
// the merged block down. So no two free blocks are ever adjacent, and the
// structure never sees a block change size while it holds it.
//
// The free-structure interface (FreeBlockStore), all on payload pointers:
//   malloc(n)   unlink and return a free block with getSize >= n; when none fits,
//               return Super's fresh chunk (CoalesceableHeap::malloc) or nullptr
//   free(p)     file free block p (already marked free)
//   fileSplitRest(p)  optional: file the rest of the block malloc just split (else free)
//   remove(p)   unlink free block p, which the structure holds (a neighbour being merged)
//   forEachFreeBlock(fn), checkFreeStructure(), freeBytes()   for checkInvariants
// and the block primitives of CoalescingRepresentation, inherited from below.
//
// Over a fixed region the constructor takes the whole arena as the initial free
// block. Metadata: only the last outcome lives here; the rest is the structure's
// and the representation's.
#pragma once

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heap/layers/coalesceable_heap.h"
#include "heap/outcome.h"

namespace kith::heap {

template <class S>
concept FreeBlockStore = CoalescingRepresentation<S> && requires(S s, const S cs, void* p) {
  { s.remove(p) } -> std::same_as<void>;
  { cs.forEachFreeBlock([](void*) {}) };
  { cs.checkFreeStructure() } -> std::same_as<std::string>;
  { cs.freeBytes() } -> std::same_as<std::size_t>;
};

template <class Super>
class CoalesceHeap : public Super {
  static_assert(CoalescingRepresentation<Super>,
                "CoalesceHeap needs boundary tags beneath it: put CoalesceableHeap under the free structure");
  static_assert(FreeBlockStore<Super>,
                "CoalesceHeap needs a free structure directly beneath it (remove, forEachFreeBlock, "
                "checkFreeStructure, freeBytes), e.g. UnstructuredListHeap or LeaBinsHeap");

 public:
  template <class... Args>
    requires std::constructible_from<Super, Args...>
  explicit CoalesceHeap(Args&&... args) : Super(std::forward<Args>(args)...) {
    // The initial free block is the whole arena: the structure is empty, so this
    // malloc reaches CoalesceableHeap, which takes everything the arena has.
    if constexpr (FixedRegion<Super>) {
      if (void* arena = Super::malloc(0)) free(arena);
    }
  }

  void* malloc(std::size_t size) {
    void* block = size <= Super::kMaxRequest ? Super::malloc(size) : nullptr;
    if (block == nullptr) {
      outcome_ = Outcome::failed;
      return nullptr;
    }
    // The rest needs no coalescing: the block was free, so its neighbours are not.
    if (void* rest = Super::carve(block, size)) {
      fileSplitRest(rest);
      outcome_ = Outcome::split;
    } else {
      outcome_ = Outcome::immediate;
    }
    return block;
  }

  // The structure's own one-pass carve of the common request, when it has one
  // (LeaBinsHeap's victim): malloc's result and outcome (split), or nullptr,
  // changing nothing, when the request is not that case (then malloc).
  // kFastPathSteps: the steps it takes (Super's), always the same.
  void* mallocFastPath(std::size_t size)
    requires requires(Super s) { s.mallocFastPath(size); }
  {
    void* block = Super::mallocFastPath(size);
    if (block != nullptr) outcome_ = Outcome::split;
    return block;
  }

  void free(void* ptr) {
    if (ptr == nullptr) return;
    assert(!Super::isFree(ptr) && "double free");
    void* first = ptr;
    void* last = ptr;
    if (void* below = Super::freeBlockBefore(ptr)) {
      Super::remove(below);
      first = below;
    }
    if (void* above = Super::blockAfter(ptr); above && Super::isFree(above)) {
      Super::remove(above);
      last = above;
    }
    Super::free(Super::coalesce(first, last));
  }

  // immediate: the block found fitted without splitting; split: it was carved from
  // a bigger one; failed: the last malloc returned nullptr.
  Outcome lastOutcome() const { return outcome_; }

  // fn(usable bytes, 1) for each free block the structure holds (free_space.h).
  template <class Fn>
  void forEachFreeSize(Fn&& fn) const {
    Super::forEachFreeBlock([&](void* block) { fn(Super::getSize(block), std::size_t{1}); });
  }

  // The representation's checks (headers, sentinels, sizes sum to the arena), then:
  // no two adjacent blocks are free; the structure's own checks hold; it holds
  // every free block exactly once and nothing else; freeBytes() adds up.
  // "" when all hold, otherwise the first thing found wrong.
  std::string checkInvariants() const {
    if (std::string broken = Super::checkBlocks(); !broken.empty()) return broken;
    std::vector<void*> freeBlocks;
    std::size_t freeUsable = 0;
    std::string error;
    Super::forEachBlock([&](void* block) {
      if (!Super::isFree(block)) return;
      if (error.empty() && Super::freeBlockBefore(block) != nullptr)
        error = where(block) + "two adjacent free blocks (coalescing missed them)";
      freeBlocks.push_back(block);
      freeUsable += Super::getSize(block);
    });
    if (!error.empty()) return error;
    if (std::string broken = Super::checkFreeStructure(); !broken.empty()) return broken;
    std::sort(freeBlocks.begin(), freeBlocks.end());
    std::vector<bool> held(freeBlocks.size());
    std::size_t heldCount = 0;
    Super::forEachFreeBlock([&](void* block) {
      ++heldCount;
      if (!error.empty()) return;
      auto it = std::lower_bound(freeBlocks.begin(), freeBlocks.end(), block);
      if (it == freeBlocks.end() || *it != block) {
        error = where(block) + "held by the free structure but not a free block";
      } else if (held[it - freeBlocks.begin()]) {
        error = where(block) + "held by the free structure twice";
      } else {
        held[it - freeBlocks.begin()] = true;
      }
    });
    if (!error.empty()) return error;
    if (heldCount != freeBlocks.size())
      return std::to_string(freeBlocks.size()) + " free blocks but the free structure holds " +
             std::to_string(heldCount);
    if (Super::freeBytes() != freeUsable)
      return "freeBytes() says " + std::to_string(Super::freeBytes()) + " but free blocks hold " +
             std::to_string(freeUsable);
    return "";
  }

 private:
  // The rest of a split back into the structure: through its fileSplitRest where it
  // has one (it counts the filing as the malloc's step), else its free.
  void fileSplitRest(void* rest) {
    if constexpr (requires { Super::fileSplitRest(rest); }) Super::fileSplitRest(rest);
    else Super::free(rest);
  }

  std::string where(const void* block) const {
    if constexpr (requires(const Super s) { s.arenaBase(); }) {
      return "block at arena offset " +
             std::to_string(static_cast<const std::byte*>(block) - Super::arenaBase()) + ": ";
    } else {
      return "block at " + std::to_string(reinterpret_cast<std::uintptr_t>(block)) + ": ";
    }
  }

  Outcome outcome_ = Outcome::immediate;
};

}  // namespace kith::heap
