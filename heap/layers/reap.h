// Reap: a region that also takes back single objects (Berger, Zorn & McKinley,
// "Reconsidering Custom Memory Allocation", OOPSLA 2002, §5). Like ZoneHeap it
// bump-allocates from chunks and release() frees the whole region in one step;
// unlike it, every object carries a size header (SizeHeap), so free(ptr) puts the
// object on a free list for its size, and a later malloc of that size takes it
// back before bumping. As in the paper, a reap behaves as a plain region (one bump
// per malloc) until the first individual free: their ClearOptimizedHeap's
// `nothingOnHeap` flag is our `freeObjects_ == 0`.
//
// The paper hands freed objects to a Lea-style heap that splits and coalesces.
// Ours is simpler: segregated LIFO lists, no splitting, no coalescing; a reused
// object keeps its own size (getSize reports it).
//  - up to 1 KiB: one list per 16-byte size. A malloc takes an object of exactly
//    its (rounded) size or bumps. O(1).
//  - above 1 KiB: one list per power-of-two range [2^k, 2^(k+1)). A malloc takes the
//    head of its own range if that is big enough, else the head of the nearest
//    non-empty larger range (found in a bitmap), else bumps. O(1).
// Metadata: the size headers (SizeHeap) and chunk links (ZoneHeap) live in the
// chunks, the list links in the freed objects; list heads, bitmap and count here.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "heap/layer.h"
#include "heap/layers/size_heap.h"
#include "heap/layers/zone_heap.h"

namespace kith::heap {

template <class Super, std::size_t ChunkSize = 64 * 1024>
class Reap : public SizeHeap<ZoneHeap<Super, ChunkSize>> {
  using Region = SizeHeap<ZoneHeap<Super, ChunkSize>>;

 public:
  using Region::Region;

  void* malloc(std::size_t size) {
    if (freeObjects_ != 0 && size <= Region::kLargestRequest) {
      if (void* p = takeFree(Region::usableSize(size))) return p;
    }
    return Region::malloc(size);
  }

  void free(void* ptr) {
    if (!ptr) return;
    std::size_t size = Region::getSize(ptr);
    FreeObject*& head = size <= kExactLimit ? exact_[exactIndex(size)] : ranges_[rangeIndex(size)];
    head = ::new (ptr) FreeObject{head};
    if (size > kExactLimit) rangesNonEmpty_ |= std::uint64_t{1} << rangeIndex(size);
    ++freeObjects_;
  }

  // Ends the life of every object in the reap at once and returns every chunk to
  // Super; the reap is empty and ready for reuse.
  void release() {
    exact_.fill(nullptr);
    ranges_.fill(nullptr);
    rangesNonEmpty_ = 0;
    freeObjects_ = 0;
    Region::release();
  }

  std::size_t freeObjects() const { return freeObjects_; }

  // Each freed object is on the list for its size, the bitmap matches the
  // non-empty ranges, and the lists hold freeObjects() objects. "" when all hold.
  std::string checkInvariants() {
    std::size_t counted = 0;
    auto walk = [&](FreeObject* head, auto belongs) -> std::string {
      for (FreeObject* o = head; o; o = o->next) {
        if (++counted > freeObjects_) return "more objects on the lists than were freed";
        if (!isAligned(o)) return "misaligned free object";
        if (!belongs(Region::getSize(o)))
          return "object of " + std::to_string(Region::getSize(o)) + " bytes on the wrong list";
      }
      return "";
    };
    for (int i = 0; i < kExactLists; ++i) {
      std::string e = walk(exact_[i], [&](std::size_t s) { return s <= kExactLimit && exactIndex(s) == i; });
      if (!e.empty()) return "Reap exact list " + std::to_string(i) + ": " + e;
    }
    for (int k = 0; k < kRangeLists; ++k) {
      if (!ranges_[k] != !(rangesNonEmpty_ & (std::uint64_t{1} << k)))
        return "Reap range " + std::to_string(k) + ": bitmap disagrees with the list";
      std::string e = walk(ranges_[k], [&](std::size_t s) { return s > kExactLimit && rangeIndex(s) == k; });
      if (!e.empty()) return "Reap range list " + std::to_string(k) + ": " + e;
    }
    if (counted != freeObjects_) return "Reap lists hold fewer objects than were freed";
    return "";
  }

 private:
  struct FreeObject {
    FreeObject* next;
  };
  static constexpr std::size_t kExactLimit = 1024;
  static constexpr int kExactLists = kExactLimit / kAlignment;          // 16, 32, ..., 1024
  static constexpr int kFirstRangeLog2 = std::countr_zero(kExactLimit);  // 2^10
  static constexpr int kRangeLists = 64 - kFirstRangeLog2;               // 2^10 .. 2^63

  static int exactIndex(std::size_t size) { return static_cast<int>(size / kAlignment) - 1; }
  static int rangeIndex(std::size_t size) { return std::bit_width(size) - 1 - kFirstRangeLog2; }

  // A freed object of at least `need` bytes (a usable size), or nullptr.
  void* takeFree(std::size_t need) {
    if (need <= kExactLimit) return pop(exact_[exactIndex(need)]);
    int k = rangeIndex(need);
    if (ranges_[k] && Region::getSize(ranges_[k]) >= need) return popRange(k);
    // Every object in a larger range is at least 2^(k+11) > need bytes.
    std::uint64_t larger = rangesNonEmpty_ & (~std::uint64_t{0} << (k + 1));
    return larger ? popRange(std::countr_zero(larger)) : nullptr;
  }

  void* popRange(int k) {
    void* p = pop(ranges_[k]);
    if (!ranges_[k]) rangesNonEmpty_ &= ~(std::uint64_t{1} << k);
    return p;
  }

  void* pop(FreeObject*& head) {
    FreeObject* o = head;
    if (!o) return nullptr;
    head = o->next;
    --freeObjects_;
    return o;
  }

  std::array<FreeObject*, kExactLists> exact_{};
  std::array<FreeObject*, kRangeLists> ranges_{};
  std::uint64_t rangesNonEmpty_ = 0;  // bit k: ranges_[k] is non-empty
  std::size_t freeObjects_ = 0;
};

}  // namespace kith::heap
