// mimalloc's API behind MimallocHeap (mimalloc_heap.h), looked up in libmimalloc
// when the first mimalloc heap is made.
#include "heap/adapters/mimalloc_heap.h"

#include "heap/adapters/shared_library.h"

namespace kith::heap {
namespace {

struct Mimalloc {
  void* (*mi_malloc)(std::size_t) = nullptr;
  void (*mi_free)(void*) = nullptr;
  std::size_t (*mi_usable_size)(const void*) = nullptr;
};
Mimalloc mimalloc;

}  // namespace

void MimallocApi::load() {
  static const bool loaded = [] {
    SharedLibrary library("libmimalloc.so.2", "the mimalloc policy", "libmimalloc2.0");
    mimalloc = {library.function<decltype(Mimalloc::mi_malloc)>("mi_malloc"),
                library.function<decltype(Mimalloc::mi_free)>("mi_free"),
                library.function<decltype(Mimalloc::mi_usable_size)>("mi_usable_size")};
    return true;
  }();
  (void)loaded;
}

void* MimallocApi::allocate(std::size_t size) { return mimalloc.mi_malloc(size); }
void MimallocApi::release(void* p) { mimalloc.mi_free(p); }
std::size_t MimallocApi::usableSize(void* p) { return mimalloc.mi_usable_size(p); }

}  // namespace kith::heap
