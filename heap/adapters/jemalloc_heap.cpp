// jemalloc's API behind JemallocHeap (jemalloc_heap.h), looked up in libjemalloc
// when the first jemalloc heap is made.
#include "heap/adapters/jemalloc_heap.h"

#include "heap/adapters/shared_library.h"

namespace kith::heap {
namespace {

struct Jemalloc {
  void* (*mallocx)(std::size_t, int) = nullptr;
  void (*dallocx)(void*, int) = nullptr;
  std::size_t (*sallocx)(const void*, int) = nullptr;
};
Jemalloc jemalloc;

}  // namespace

void JemallocApi::load() {
  static const bool loaded = [] {
    SharedLibrary library("libjemalloc.so.2", "the jemalloc policy", "libjemalloc2");
    jemalloc = {library.function<decltype(Jemalloc::mallocx)>("mallocx"),
                library.function<decltype(Jemalloc::dallocx)>("dallocx"),
                library.function<decltype(Jemalloc::sallocx)>("sallocx")};
    return true;
  }();
  (void)loaded;
}

void* JemallocApi::allocate(std::size_t size) { return jemalloc.mallocx(size, 0); }
void JemallocApi::release(void* p) { jemalloc.dallocx(p, 0); }
std::size_t JemallocApi::usableSize(void* p) { return jemalloc.sallocx(p, 0); }

}  // namespace kith::heap
