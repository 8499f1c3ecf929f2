// mimalloc's API behind MimallocHeap (mimalloc_heap.h): the only code that links
// libmimalloc, built as the shared library kith_mimalloc so that libmimalloc does
// not replace the process's malloc (jemalloc_heap.h says why).
#include "heap/adapters/mimalloc_heap.h"

#include <mimalloc.h>

namespace kith::heap {

void* MimallocApi::allocate(std::size_t size) { return mi_malloc(size); }
void MimallocApi::release(void* p) { mi_free(p); }
std::size_t MimallocApi::usableSize(void* p) { return mi_usable_size(p); }

}  // namespace kith::heap
