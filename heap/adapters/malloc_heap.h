// MallocHeap: a thin top heap over the C library's malloc, for comparison. It is
// not fixed-size; `contains` cannot be answered, so it claims every pointer.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "heap/layer.h"

namespace kith::heap {

class MallocHeap {
 public:
  MallocHeap() = default;
  explicit MallocHeap(std::size_t /*ignored: the system heap grows*/) {}

  void* malloc(std::size_t sz) {
    // aligned_alloc needs a multiple of the alignment; 0 becomes one minimum block.
    // No object can exceed PTRDIFF_MAX; refusing here also keeps alignUp from wrapping.
    if (sz > static_cast<std::size_t>(PTRDIFF_MAX)) return nullptr;
    std::size_t need = alignUp(sz < kMinBlock ? kMinBlock : sz);
    return std::aligned_alloc(kAlignment, need);
  }
  void free(void* p) { std::free(p); }
  std::size_t getSize(void* p) { return ::malloc_usable_size(p); }
};

}  // namespace kith::heap
