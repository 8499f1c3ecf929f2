// JemallocHeap: a top heap over jemalloc 5 (Debian's libjemalloc), for comparison
// like MallocHeap: not fixed-size, the library grows its heap from the OS. Present
// when CMake found jemalloc at build time (KITH_HAVE_JEMALLOC); `kith policies`
// notes it otherwise.
//
// Keeping the process's malloc glibc's: Debian builds jemalloc without a prefix, so
// libjemalloc exports malloc/free themselves, and linking it into the executable
// would make it every allocation's allocator (handle table, compiler, C++ new).
// Loading it later with dlopen fails (its initial-exec TLS does not fit glibc's
// surplus). So only the small shared library kith_jemalloc (jemalloc_heap.cpp)
// links it: libjemalloc then comes in as a dependency of a dependency, after
// libc in the global symbol scope, and `malloc` still binds to glibc while these
// calls use jemalloc's own API (mallocx, dallocx, sallocx).
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/layer.h"

namespace kith::heap {

namespace jemalloc_api {  // jemalloc_heap.cpp, in libkith_jemalloc
void* allocate(std::size_t size);
void release(void* p);
std::size_t usableSize(void* p);
}  // namespace jemalloc_api

class JemallocHeap {
 public:
  JemallocHeap() = default;
  explicit JemallocHeap(std::size_t /*ignored: jemalloc grows*/) {}

  void* malloc(std::size_t sz) {
    // A request rounded up to a multiple of 16 lands in a size class of such
    // blocks (jemalloc's 16-byte quantum), so it comes 16-byte aligned without the
    // slower aligned path; 0 becomes one minimum block. Over PTRDIFF_MAX: refused.
    if (sz > static_cast<std::size_t>(PTRDIFF_MAX)) return nullptr;
    return jemalloc_api::allocate(alignUp(sz < kMinBlock ? kMinBlock : sz));
  }
  void free(void* p) {
    if (p) jemalloc_api::release(p);
  }
  std::size_t getSize(void* p) { return jemalloc_api::usableSize(p); }
};

}  // namespace kith::heap
