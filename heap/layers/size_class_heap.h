// SizeClassHeap: rounds each request up to its size class, one of NumClasses, and
// records the class index in a 16-byte header just before the object, as BSD's
// Kingsley malloc keeps its bucket index (ov_index); a request above the last class
// fails. getSize(ptr) is the class's largest size; sizeClassOf
// (ptr) is the index itself, so StrictSegHeap files a freed block under its bin with
// one header load and no class computation (SizeHeap records the size instead, from
// which the bin must be worked out again on every free). The header is one whole
// alignment unit, so objects stay 16-byte aligned.
// Metadata: the header, inside each block Super hands out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "heap/layer.h"

namespace kith::heap {

template <int NumClasses, int (*SizeClass)(std::size_t), std::size_t (*ClassMaxSize)(int), class Super>
class SizeClassHeap : public Super {
  static_assert(NumClasses > 0);
  static_assert(HeapLayer<Super>, "SizeClassHeap needs Super::malloc and Super::free");

 public:
  using Super::Super;

  static constexpr std::size_t kHeader = kAlignment;
  // The class map, so a layer above can check that its classes are these.
  static constexpr int kClassCount = NumClasses;
  static constexpr int (*kSizeClass)(std::size_t) = SizeClass;
  static constexpr std::size_t (*kClassMaxSize)(int) = ClassMaxSize;

  void* malloc(std::size_t size) {
    int c = SizeClass(size);
    if (c >= NumClasses) return nullptr;
    return mallocClass(c);
  }

  // A block of class c's full size (c < NumClasses), for a layer above that has
  // worked the class out. Fails when the class's size plus the header would not fit
  // in a size_t.
  void* mallocClass(int c) {
    std::size_t usable = ClassMaxSize(c);
    if (usable > SIZE_MAX - kHeader) return nullptr;
    void* block = Super::malloc(kHeader + usable);
    if (!block) return nullptr;
    ::new (block) std::size_t{static_cast<std::size_t>(c)};
    return static_cast<std::byte*>(block) + kHeader;
  }

  void free(void* ptr) {
    if (ptr) Super::free(static_cast<std::byte*>(ptr) - kHeader);
  }

  std::size_t getSize(void* ptr) const { return ClassMaxSize(sizeClassOf(ptr)); }
  // Below NumClasses: the header's first word (the rest of it keeps the alignment).
  std::size_t sizeClassOf(void* ptr) const {
    return *std::launder(reinterpret_cast<const std::size_t*>(static_cast<std::byte*>(ptr) - kHeader));
  }
};

}  // namespace kith::heap
