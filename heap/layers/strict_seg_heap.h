// StrictSegHeap: strict segregated fits (paper §6.1, Fig. 5). Requests are
// rounded up to a size class; each class has its own bin (a LittleHeap, e.g.
// FreelistHeap<NullHeap>) that caches the freed blocks of exactly that class. A
// malloc takes from its class's bin only — never from a bigger one, and blocks
// are never split or coalesced. When the bin is empty (the LittleHeap answers
// nullptr), a fresh block of the class's full size comes from Super, so one top
// heap (one FixedArena) feeds every bin. Requests above the last class go to
// Super directly, and so do their frees.
//
// free files a block under its class: the one Super records (sizeClassOf, as
// SizeClassHeap does, over the same class map), else the class of Super::getSize(ptr),
// so Super must know block sizes (SizeHeap). Metadata: the bins' list heads live in
// this object; the rest lives in the blocks (Super's headers, the bins' links). The
// free-space reports (freeBytes, forEachFreeSize) count the bins by walking them, so
// malloc and free keep no counts for them.
//
// The bins' cached blocks are dropped with the bins when the heap is destroyed
// (they go to NullHeap): right for a FixedArena, which unmaps everything at once.
// The bins are destroyed after Super (they are the first base), so a bin must drop
// its blocks unread: its destructor is trivial, as FreelistHeap<NullHeap>'s is.
//
// Bounded time, in steps (a bin looked at, or a call to Super): malloc at most
// kMaxMallocSteps = 2 (its bin, then Super on a miss), free kMaxFreeSteps = 1 (one
// push, or one call to Super), whatever the bins hold — provided the bins and
// Super are O(1) themselves, as FreelistHeap<NullHeap> and SizeHeap<FixedArena>
// are (kingsley). lastSteps() reads the last class-sized malloc's count off its
// outcome (immediate: 1; from Super: 2), so counting costs the hot path nothing.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

#include "heap/layer.h"
#include "heap/outcome.h"

namespace kith::heap {

// StrictSegHeap's bins, as its first base so that they start the object: a bin is
// then reached at this + class * sizeof(bin), one addressing mode that the free's load and
// store of the list head share (behind Super's fields, g++ adds the offset to the
// class in a register first, an instruction more per free).
template <class LittleHeap, int NumBins>
struct StrictSegBins {
  LittleHeap bins_[NumBins];
};

template <int NumBins, int (*SizeClass)(std::size_t), std::size_t (*ClassMaxSize)(int),
          class LittleHeap, class Super>
class StrictSegHeap : private StrictSegBins<LittleHeap, NumBins>, public Super {
  static_assert(NumBins > 0);
  static_assert(HeapLayer<LittleHeap>, "each bin must be a heap (malloc/free)");
  static_assert(std::is_trivially_destructible_v<LittleHeap>,
                "the bins outlive Super, so they must drop their blocks without reading them");
  static_assert(SizedHeap<Super>,
                "StrictSegHeap files a freed block under the class of Super::getSize(ptr): "
                "put SizeClassHeap or SizeHeap (or another layer with getSize) above it");

  // Super records each block's class (SizeClassHeap), in this heap's class map and
  // for every class that has a bin here.
  static constexpr bool kSuperRecordsClass = requires(Super& s, void* p, int c) {
    { s.sizeClassOf(p) } -> std::same_as<std::size_t>;
    { s.mallocClass(c) } -> std::same_as<void*>;
    requires Super::kSizeClass == SizeClass && Super::kClassMaxSize == ClassMaxSize;
    requires Super::kClassCount >= NumBins;
  };
  // ... and no more: no freed block goes back to Super, so free need not ask.
  static constexpr bool kEveryRecordedClassBinned = [] {
    if constexpr (kSuperRecordsClass) return Super::kClassCount == NumBins;
    else return false;
  }();
  // The bins can be walked and Super knows its untouched rest.
  static constexpr bool kReportsFreeSpace = requires(const Super& s, const LittleHeap& h) {
    s.remaining();
    h.forEachFree([](void*) {});
  };

 public:
  using Super::Super;

  static constexpr std::size_t kMaxMallocSteps = 2;
  static constexpr std::size_t kMaxFreeSteps = 1;

  void* malloc(std::size_t size) {
    int c = SizeClass(size);
    if (c >= NumBins) return Super::malloc(size);  // bigger than every class
    std::size_t classSize = ClassMaxSize(c);
    if (void* p = bins_[c].malloc(classSize)) {
      outcome_ = Outcome::immediate;
      return p;
    }
    return carve(c);
  }

  void free(void* ptr) {
    if (!ptr) return;
    if constexpr (kSuperRecordsClass) {
      std::size_t c = Super::sizeClassOf(ptr);
      if (!kEveryRecordedClassBinned && c >= NumBins) Super::free(ptr);
      else bins_[c].free(ptr);
    } else {
      int bin = binOf(Super::getSize(ptr));
      if (bin < 0) Super::free(ptr);
      else bins_[bin].free(ptr);
    }
  }

  // How the last malloc of a class-sized request was met: immediate from its
  // bin, split when carved fresh from Super, failed. (Requests above the last
  // class leave it unchanged.)
  Outcome lastOutcome() const { return outcome_; }
  // A bin holds only blocks that a free returned (blocks are carved from Super to
  // the request, never split), so every immediate request is recycling (stats_heap.h).
  bool tookLeftover(void*) const { return false; }
  void trackLeftovers(bool) {}
  // Steps of the last class-sized malloc: its bin, and Super when the bin was empty.
  std::size_t lastSteps() const { return outcome_ == Outcome::immediate ? 1 : 2; }

  // Bytes cached in the bins plus what Super has never handed out, when Super
  // can tell (FixedArena::remaining). A cached block only serves its own class.
  // Time: one step per cached block (the bins are walked, not counted).
  std::size_t freeBytes() const
    requires kReportsFreeSpace
  {
    std::size_t bytes = Super::remaining();
    for (int c = 0; c < NumBins; ++c) bytes += cachedBlocks(c) * ClassMaxSize(c);
    return bytes;
  }
  std::size_t largestFreeBlock() const
    requires kReportsFreeSpace
  {
    std::size_t largest = Super::remaining();
    for (int c = NumBins - 1; c >= 0; --c)
      if (cachedBlocks(c)) return std::max(largest, ClassMaxSize(c));
    return largest;
  }

  // fn(bytes, count): the arena's untouched tail as one block, then each bin's
  // cached blocks at the class size (as freeBytes counts them; free_space.h).
  template <class Fn>
    requires kReportsFreeSpace
  void forEachFreeSize(Fn&& fn) const {
    fn(Super::remaining(), std::size_t{1});
    for (int c = 0; c < NumBins; ++c)
      if (std::size_t n = cachedBlocks(c)) fn(ClassMaxSize(c), n);
  }

  // Walks every bin whose LittleHeap can be walked (FreelistHeap::forEachFree):
  // each cached block is aligned, inside the arena (when Super has one), of a size
  // that belongs in that bin, and no list loops. "" when all hold.
  std::string checkInvariants() {
    std::string error;
    if constexpr (requires(const LittleHeap& h) { h.forEachFree([](void*) {}); }) {
      for (int c = 0; c < NumBins && error.empty(); ++c) {
        bool ok = bins_[c].forEachFree([&](void* block) {
          if (!error.empty()) return;
          if (!isAligned(block)) error = "misaligned block";
          else if (!insideArena(block)) error = "block outside the arena";
          else if (binOf(Super::getSize(block)) != c)
            error = "block of " + std::to_string(Super::getSize(block)) + " bytes";
        });
        if (!ok && error.empty()) error = "free list loops (a block freed twice?)";
        if (!error.empty())
          error = "StrictSegHeap bin " + std::to_string(c) + " (" +
                  std::to_string(ClassMaxSize(c)) + " B): " + error;
      }
    }
    return error;
  }

 protected:
  using StrictSegBins<LittleHeap, NumBins>::bins_;

  // Bin c was empty: a fresh block of the class's full size, carved from the arena's
  // untouched rest. The outcome is stored before the carve, and again only if it
  // fails: were it stored once after, as the bin hit stores its own, g++ would join
  // the two stores where the paths meet, and the hit would pay for choosing a value.
  void* carve(int c) {
    outcome_ = Outcome::split;
    void* p;
    if constexpr (kSuperRecordsClass) p = Super::mallocClass(c);
    else p = Super::malloc(ClassMaxSize(c));
    if (!p) outcome_ = Outcome::failed;
    return p;
  }

  // The blocks bin c holds, counted by walking it (a looping list counts as far
  // as the walk went; checkInvariants reports the loop).
  std::size_t cachedBlocks(int c) const {
    std::size_t n = 0;
    bins_[c].forEachFree([&](void*) { ++n; });
    return n;
  }

  // The bin a free block of `size` usable bytes belongs in: the largest class all
  // of whose requests it can hold. -1 when it belongs to Super instead (bigger than
  // the classes, or smaller than the first).
  static int binOf(std::size_t size) {
    int c = SizeClass(size);
    if (c >= NumBins) return -1;
    if (ClassMaxSize(c) > size) --c;  // between two class sizes: the smaller one
    return c;
  }

  bool insideArena(const void* block) const {
    if constexpr (requires(const Super& s) { s.arenaContains(block); }) {
      return Super::arenaContains(block);
    } else {
      return true;
    }
  }

  Outcome outcome_ = Outcome::failed;
};

}  // namespace kith::heap
