// HybridHeap: one heap for small objects, another for large ones (paper §3.2).
// Requests of at most Threshold bytes go to the small-object heap; larger ones
// straight to Super. free routes by Super::getSize(ptr).
//
// One arena for both. The small heap must not have a top heap of its own (that
// would be a second FixedArena), so SmallHeap is a template template parameter,
// instantiated here as SmallHeap<SuperPart>: SuperPart is a tiny top heap that
// forwards malloc/free/getSize to this object's own Super base. So in
//   template <class S> using Bins = StrictSegHeap<3, pow2SizeClass, pow2ClassMaxSize,
//                                                 FreelistHeap<NullHeap>, S>;
//   HybridHeap<64, Bins, SizeHeap<FixedArena>> heap(arenaBytes);
// there is exactly one FixedArena, and the bins' fresh blocks come out of it.
//
// Because free tells the two sides apart by size, two requirements (documented,
// and asserted in Debug builds):
//  - SmallHeap hands out Super's blocks unchanged (no header of its own), so
//    Super::getSize answers for both sides — segregated bins over SuperPart do;
//  - no block it hands out is larger than Threshold, i.e. Threshold is one of its
//    class sizes. Big blocks are larger than Threshold because their requests are.
// Metadata: whatever the two sides keep; HybridHeap adds none.
#pragma once

#include <cassert>
#include <cstddef>

#include "heap/layer.h"

namespace kith::heap {

template <std::size_t Threshold, template <class> class SmallHeap, class Super>
class HybridHeap : public Super {
  static_assert(SizedHeap<Super>,
                "HybridHeap routes free by Super::getSize(ptr): put SizeHeap (or another "
                "layer with getSize) above it");

  // The small heap's top heap: this object's Super part, by reference.
  class SuperPart {
   public:
    explicit SuperPart(Super& super) : super_(&super) {}
    void* malloc(std::size_t size) { return super_->malloc(size); }
    void free(void* ptr) { super_->free(ptr); }
    std::size_t getSize(void* ptr) { return super_->getSize(ptr); }

   private:
    Super* super_;
  };

 public:
  using Super::Super;
  HybridHeap() = default;
  HybridHeap(const HybridHeap&) = delete;  // small_ points into this object
  HybridHeap& operator=(const HybridHeap&) = delete;

  void* malloc(std::size_t size) {
    if (size > Threshold) return Super::malloc(size);
    void* p = small_.malloc(size);
    assert(!p || Super::getSize(p) <= Threshold);  // Threshold must be a small-heap class size
    return p;
  }

  void free(void* ptr) {
    if (!ptr) return;
    if (Super::getSize(ptr) <= Threshold) small_.free(ptr);
    else Super::free(ptr);
  }

  SmallHeap<SuperPart>& smallHeap() { return small_; }

 private:
  SmallHeap<SuperPart> small_{static_cast<Super&>(*this)};
};

}  // namespace kith::heap
