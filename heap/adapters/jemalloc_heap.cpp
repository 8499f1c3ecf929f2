// jemalloc's API behind JemallocHeap (jemalloc_heap.h): the only code that links
// libjemalloc, built as the shared library kith_jemalloc so that libjemalloc does
// not replace the process's malloc (the header says why).
#include "heap/adapters/jemalloc_heap.h"

#include <jemalloc/jemalloc.h>

namespace kith::heap {

void* JemallocApi::allocate(std::size_t size) { return mallocx(size, 0); }
void JemallocApi::release(void* p) { dallocx(p, 0); }
std::size_t JemallocApi::usableSize(void* p) { return sallocx(p, 0); }

}  // namespace kith::heap
