// JemallocHeap: ExternalAllocatorHeap over jemalloc 5 (Debian's libjemalloc2), for
// comparison like MallocHeap: not fixed-size, the library grows its heap from the
// OS. Listed when CMake found jemalloc at build time (KITH_HAVE_JEMALLOC); `kith
// policies` notes it otherwise. Opened with dlopen when the policy is chosen
// (shared_library.h), so runs on other policies never load it.
//
// Keeping the process's malloc glibc's: Debian builds jemalloc without a prefix, so
// libjemalloc exports malloc/free themselves; opened RTLD_LOCAL, these calls use
// its own API (mallocx, dallocx, sallocx) and `malloc` stays glibc's.
//
// jemalloc's thread-locals are initial-exec TLS (2.6 KB), more than the surplus
// glibc leaves for libraries opened later, so dlopen fails unless the process
// started with a larger one: `kith` re-executes itself with it when its command
// line names jemalloc (cli/static_tls.h), and programs that build heaps in-process
// (the tests, the benchmarks) link kith_jemalloc_at_start, which loads it at start.
#pragma once

#include <cstddef>

#include "heap/adapters/external_allocator_heap.h"

namespace kith::heap {

struct JemallocApi {  // jemalloc_heap.cpp
  static void load();  // throws LibraryUnavailable
  static void* allocate(std::size_t size);
  static void release(void* p);
  static std::size_t usableSize(void* p);
};

using JemallocHeap = ExternalAllocatorHeap<JemallocApi>;

}  // namespace kith::heap
