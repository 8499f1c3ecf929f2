// SegHeap: segregated fits that looks further than StrictSegHeap (paper §6.2, used
// by LeaHeap). When a request's own bin is empty it takes a cached block from the
// nearest larger non-empty bin, whole (no splitting), before asking Super for a
// fresh block. The borrowed block keeps its size (Super::getSize), so when it is
// freed it goes back to the bin it came from.
//
// Which bins may hold blocks is kept in one 64-bit word, so the search is a
// count-trailing-zeros, not a walk. A bit is set when a block is freed into its
// bin and cleared when that bin answers nullptr, so a set bit may be stale but a
// non-empty bin always has its bit. LittleHeap must answer nullptr when it has
// nothing cached (FreelistHeap<NullHeap>). Metadata: that word and the bins' list
// heads live in this object.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/layers/strict_seg_heap.h"

namespace kith::heap {

template <int NumBins, int (*SizeClass)(std::size_t), std::size_t (*ClassMaxSize)(int),
          class LittleHeap, class Super>
class SegHeap : public StrictSegHeap<NumBins, SizeClass, ClassMaxSize, LittleHeap, Super> {
  using Strict = StrictSegHeap<NumBins, SizeClass, ClassMaxSize, LittleHeap, Super>;
  static_assert(NumBins <= 64, "SegHeap tracks its non-empty bins in one 64-bit word");

 public:
  using Strict::Strict;

  void* malloc(std::size_t size) {
    int c = SizeClass(size);
    if (c >= NumBins) return Super::malloc(size);
    // Candidates: this class's bin and every larger one that may hold a block.
    for (std::uint64_t candidates = maybeNonEmpty_ & (~std::uint64_t{0} << c); candidates;
         candidates &= candidates - 1) {
      int bin = std::countr_zero(candidates);
      if (void* p = this->bins_[bin].malloc(ClassMaxSize(bin))) return p;
      maybeNonEmpty_ &= ~(std::uint64_t{1} << bin);  // it was empty after all
    }
    return Super::malloc(ClassMaxSize(c));
  }

  void free(void* ptr) {
    if (!ptr) return;
    int bin = Strict::binOf(Super::getSize(ptr));
    if (bin < 0) {
      Super::free(ptr);
      return;
    }
    this->bins_[bin].free(ptr);
    maybeNonEmpty_ |= std::uint64_t{1} << bin;
  }

  // StrictSegHeap's checks, plus: every bin holding a block has its bit set.
  std::string checkInvariants() {
    std::string error = Strict::checkInvariants();
    if constexpr (requires(const LittleHeap& h) { h.forEachFree([](void*) {}); }) {
      for (int c = 0; c < NumBins && error.empty(); ++c) {
        bool holdsBlock = false;
        this->bins_[c].forEachFree([&](void*) { holdsBlock = true; });
        if (holdsBlock && !(maybeNonEmpty_ & (std::uint64_t{1} << c)))
          error = "SegHeap bin " + std::to_string(c) + " holds blocks but its bit is clear";
      }
    }
    return error;
  }

 private:
  std::uint64_t maybeNonEmpty_ = 0;
};

}  // namespace kith::heap
