#include "heap/adapters/boehm_heap.h"

#include <gc/gc.h>
#include <gc/gc_mark.h>

#include "heap/adapters/shared_library.h"

namespace kith::heap {
namespace {

// libgc's functions, looked up when the first Boehm heap is made; the headers give
// their types only (nothing links libgc).
#define KITH_BOEHM_FUNCTIONS(X)                                                                            \
  X(GC_init) X(GC_set_warn_proc) X(GC_ignore_warn_proc) X(GC_get_push_other_roots) X(GC_set_push_other_roots) \
  X(GC_disable) X(GC_enable) X(GC_set_max_heap_size) X(GC_malloc) X(GC_free) X(GC_size) X(GC_push_all)       \
  X(GC_gcollect) X(GC_get_gc_no) X(GC_get_heap_size) X(GC_get_free_bytes) X(GC_get_total_bytes)
struct Boehm {
#define KITH_BOEHM_POINTER(name) decltype(&::name) name = nullptr;
  KITH_BOEHM_FUNCTIONS(KITH_BOEHM_POINTER)
#undef KITH_BOEHM_POINTER
};
Boehm gc;

void loadLibgc() {
  SharedLibrary library("libgc.so.1", "the boehm policy", "libgc1");
#define KITH_BOEHM_LOOKUP(name) gc.name = library.function<decltype(&::name)>(#name);
  KITH_BOEHM_FUNCTIONS(KITH_BOEHM_LOOKUP)
#undef KITH_BOEHM_LOOKUP
}

// libgc is one collector per process: its state, and the one owner's roots.
RootScanFn scanRoots = nullptr;
void* scanContext = nullptr;
GC_push_other_roots_proc chainedPushRoots = nullptr;  // libgc's own (thread stacks in some builds)

void pushRange(void* begin, void* end) { gc.GC_push_all(begin, end); }

void GC_CALLBACK pushOwnerRoots() {
  if (chainedPushRoots) chainedPushRoots();
  if (scanRoots) scanRoots(scanContext, &pushRange);
}

void initializeOnce() {
  static bool initialized = [] {
    loadLibgc();
    gc.GC_init();  // all GC_INIT() does on Linux
    // Out of memory is the caller's business ("out of memory: requested N bytes"),
    // not a warning on stderr.
    gc.GC_set_warn_proc(gc.GC_ignore_warn_proc);
    chainedPushRoots = gc.GC_get_push_other_roots();
    gc.GC_set_push_other_roots(&pushOwnerRoots);
    gc.GC_disable();  // until an owner reports its roots
    return true;
  }();
  (void)initialized;
}

}  // namespace

BoehmHeap::BoehmHeap(std::size_t heapBytes) {
  initializeOnce();
  gc.GC_set_max_heap_size(heapBytes);
}

BoehmHeap::~BoehmHeap() = default;  // the owner removes its root scanner first

void* BoehmHeap::malloc(std::size_t size) { return gc.GC_malloc(size); }

void BoehmHeap::free(void* ptr) { gc.GC_free(ptr); }

std::size_t BoehmHeap::getSize(void* ptr) { return gc.GC_size(ptr); }

bool BoehmHeap::setRootScanner(RootScanFn fn, void* context) {
  if (fn) {
    if (scanRoots) return scanRoots == fn && scanContext == context;
    scanRoots = fn;
    scanContext = context;
    gc.GC_enable();
    return true;
  }
  // Removing: only the installer's heap gets here with one installed (one VM per
  // heap); the pending collection state stays consistent with GC_disable.
  if (scanRoots) {
    gc.GC_disable();
    scanRoots = nullptr;
    scanContext = nullptr;
  }
  return true;
}

void BoehmHeap::collect() {
  if (scanRoots) gc.GC_gcollect();
}

std::uint64_t BoehmHeap::collections() const { return gc.GC_get_gc_no(); }

void BoehmHeap::boehmStatistics(HeapStatistics& s) const {
  // bytes_allocated: Boehm's running total; bytes_in_use: the heap less its free
  // blocks (includes garbage not yet collected); peak: the heap size, which Boehm
  // only grows. frees stay StatsHeap's count of explicit frees: Boehm does not
  // count the objects it reclaims.
  std::size_t heapSize = gc.GC_get_heap_size();
  std::size_t freeBytes = gc.GC_get_free_bytes();
  s.bytes_allocated = gc.GC_get_total_bytes();
  s.bytes_in_use = heapSize > freeBytes ? heapSize - freeBytes : 0;
  s.peak_bytes_in_use = heapSize;
  s.internal_bytes = s.bytes_allocated > s.bytes_requested ? s.bytes_allocated - s.bytes_requested : 0;
}

}  // namespace kith::heap
