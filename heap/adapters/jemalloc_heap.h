// JemallocHeap: ExternalAllocatorHeap over jemalloc 5 (Debian's libjemalloc), for comparison
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

#include "heap/adapters/external_allocator_heap.h"

namespace kith::heap {

struct JemallocApi {  // jemalloc_heap.cpp, in libkith_jemalloc
  static void* allocate(std::size_t size);
  static void release(void* p);
  static std::size_t usableSize(void* p);
};

using JemallocHeap = ExternalAllocatorHeap<JemallocApi>;

}  // namespace kith::heap
