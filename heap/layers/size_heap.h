// SizeHeap: records each block's usable size in a 16-byte header just before the
// object, so the layers above can ask getSize(ptr) — StrictSegHeap finds the size
// class of a freed block that way (paper §6.1). The header is one whole alignment
// unit, so objects stay 16-byte aligned. The usable size is the request rounded up
// to 16 bytes, at least 16; that is what getSize reports.
// Metadata: the header, inside each block Super hands out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "heap/layer.h"

namespace kith::heap {

template <class Super>
class SizeHeap : public Super {
  static_assert(HeapLayer<Super>, "SizeHeap needs Super::malloc and Super::free");

 public:
  using Super::Super;

  static constexpr std::size_t kHeader = kAlignment;
  // Larger requests fail: header plus rounding would not fit in a size_t.
  static constexpr std::size_t kLargestRequest = SIZE_MAX - kHeader - kAlignment;

  // The usable size a request of `size` bytes gets (size <= kLargestRequest).
  static constexpr std::size_t usableSize(std::size_t size) {
    return alignUp(size < kMinBlock ? kMinBlock : size);
  }

  void* malloc(std::size_t size) {
    if (size > kLargestRequest) return nullptr;
    std::size_t usable = usableSize(size);
    void* block = Super::malloc(kHeader + usable);
    if (!block) return nullptr;
    ::new (block) Header{usable};
    return static_cast<std::byte*>(block) + kHeader;
  }

  void free(void* ptr) {
    if (ptr) Super::free(header(ptr));
  }

  std::size_t getSize(void* ptr) const { return header(ptr)->size; }

 private:
  struct alignas(kAlignment) Header {
    std::size_t size;
  };
  static_assert(sizeof(Header) == kHeader);

  static Header* header(void* ptr) {
    return std::launder(reinterpret_cast<Header*>(static_cast<std::byte*>(ptr) - kHeader));
  }
};

}  // namespace kith::heap
