// mimalloc's API behind MimallocHeap (mimalloc_heap.h), looked up in libmimalloc
// when the first mimalloc heap is made.
#include "heap/adapters/mimalloc_heap.h"

#include "heap/adapters/shared_library.h"

namespace kith::heap {
namespace {

void* (*mi_malloc)(std::size_t) = nullptr;
void (*mi_free)(void*) = nullptr;
std::size_t (*mi_usable_size)(const void*) = nullptr;

}  // namespace

void MimallocApi::load() {
  static const SharedLibrary library("libmimalloc.so.2", "the mimalloc policy", "libmimalloc2.0");
  library.bind(mi_malloc, "mi_malloc");
  library.bind(mi_free, "mi_free");
  library.bind(mi_usable_size, "mi_usable_size");
}

void* MimallocApi::allocate(std::size_t size) { return mi_malloc(size); }
void MimallocApi::release(void* p) { mi_free(p); }
std::size_t MimallocApi::usableSize(void* p) { return mi_usable_size(p); }

}  // namespace kith::heap
