// MmapHeap: a top heap that maps each request straight from the kernel (page
// granular): a growable top heap for layers composed outside the fixed arena (the
// layer tests use it; no shipped policy does). It keeps the mapping's length in a
// 16-byte header so free and getSize need nothing else.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

#include "heap/layer.h"

namespace kith::heap {

class MmapHeap {
 public:
  MmapHeap() = default;
  explicit MmapHeap(std::size_t /*ignored*/) {}

  void* malloc(std::size_t sz) {
    std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::size_t total = alignUp(sz + kHeader, page);
    if (total < sz) return nullptr;
    void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    *static_cast<std::size_t*>(p) = total;
    return static_cast<std::byte*>(p) + kHeader;
  }
  void free(void* p) {
    if (!p) return;
    std::byte* start = static_cast<std::byte*>(p) - kHeader;
    ::munmap(start, *reinterpret_cast<std::size_t*>(start));
  }
  std::size_t getSize(void* p) {
    return *reinterpret_cast<std::size_t*>(static_cast<std::byte*>(p) - kHeader) - kHeader;
  }

 private:
  static constexpr std::size_t kHeader = kAlignment;
};

}  // namespace kith::heap
