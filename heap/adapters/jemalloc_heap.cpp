// jemalloc's API behind JemallocHeap (jemalloc_heap.h), looked up in libjemalloc
// when the first jemalloc heap is made.
#include "heap/adapters/jemalloc_heap.h"

#include "heap/adapters/shared_library.h"

namespace kith::heap {
namespace {

void* (*mallocx)(std::size_t, int) = nullptr;
void (*dallocx)(void*, int) = nullptr;
std::size_t (*sallocx)(const void*, int) = nullptr;

}  // namespace

void JemallocApi::load() {
  static const SharedLibrary library("libjemalloc.so.2", "the jemalloc policy", "libjemalloc2");
  library.bind(mallocx, "mallocx");
  library.bind(dallocx, "dallocx");
  library.bind(sallocx, "sallocx");
}

void* JemallocApi::allocate(std::size_t size) { return mallocx(size, 0); }
void JemallocApi::release(void* p) { dallocx(p, 0); }
std::size_t JemallocApi::usableSize(void* p) { return sallocx(p, 0); }

}  // namespace kith::heap
