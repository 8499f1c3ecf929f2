// ExternalAllocatorHeap<Api>: a top heap over an allocator library's own API, for
// comparison like MallocHeap: not fixed-size, the library grows its heap from the
// OS. Api gives static load(), allocate(size), release(p) and usableSize(p); load
// opens the library on first use (shared_library.h) and throws LibraryUnavailable
// when this machine cannot.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/layer.h"

namespace kith::heap {

template <class Api>
class ExternalAllocatorHeap {
 public:
  ExternalAllocatorHeap() { Api::load(); }
  explicit ExternalAllocatorHeap(std::size_t /*ignored: the library grows*/) { Api::load(); }

  void* malloc(std::size_t sz) {
    // A request rounded up to a multiple of 16 lands in a size class of 16-aligned
    // blocks (jemalloc's 16-byte quantum; mimalloc's 8-byte-granular small bins would
    // give a 24-byte block only 8-aligned) without the libraries' slower aligned path;
    // 0 becomes one minimum block. Over PTRDIFF_MAX: refused.
    if (sz > static_cast<std::size_t>(PTRDIFF_MAX)) return nullptr;
    return Api::allocate(alignUp(sz < kMinBlock ? kMinBlock : sz));
  }
  void free(void* p) {
    if (p) Api::release(p);
  }
  std::size_t getSize(void* p) { return Api::usableSize(p); }
};

}  // namespace kith::heap
