#include "heap/adapters/boehm_heap.h"

#include <gc/gc.h>
#include <gc/gc_mark.h>

namespace kith::heap {
namespace {

// libgc is one collector per process: its state, and the one owner's roots.
RootScanFn scanRoots = nullptr;
void* scanContext = nullptr;
GC_push_other_roots_proc chainedPushRoots = nullptr;  // libgc's own (thread stacks in some builds)

void pushRange(void* begin, void* end) { GC_push_all(begin, end); }

void GC_CALLBACK pushOwnerRoots() {
  if (chainedPushRoots) chainedPushRoots();
  if (scanRoots) scanRoots(scanContext, &pushRange);
}

void initializeOnce() {
  static bool initialized = [] {
    GC_INIT();
    // Out of memory is the caller's business ("out of memory: requested N bytes"),
    // not a warning on stderr.
    GC_set_warn_proc(GC_ignore_warn_proc);
    chainedPushRoots = GC_get_push_other_roots();
    GC_set_push_other_roots(&pushOwnerRoots);
    GC_disable();  // until an owner reports its roots
    return true;
  }();
  (void)initialized;
}

}  // namespace

BoehmHeap::BoehmHeap(std::size_t heapBytes) {
  initializeOnce();
  GC_set_max_heap_size(heapBytes);
}

BoehmHeap::~BoehmHeap() = default;  // the owner removes its root scanner first

void* BoehmHeap::malloc(std::size_t size) { return GC_MALLOC(size); }

void BoehmHeap::free(void* ptr) { GC_FREE(ptr); }

std::size_t BoehmHeap::getSize(void* ptr) { return GC_size(ptr); }

bool BoehmHeap::setRootScanner(RootScanFn fn, void* context) {
  if (fn) {
    if (scanRoots) return scanRoots == fn && scanContext == context;
    scanRoots = fn;
    scanContext = context;
    GC_enable();
    return true;
  }
  // Removing: only the installer's heap gets here with one installed (one VM per
  // heap); the pending collection state stays consistent with GC_disable.
  if (scanRoots) {
    GC_disable();
    scanRoots = nullptr;
    scanContext = nullptr;
  }
  return true;
}

void BoehmHeap::collect() {
  if (scanRoots) GC_gcollect();
}

std::uint64_t BoehmHeap::collections() const { return GC_get_gc_no(); }

void BoehmHeap::boehmStatistics(HeapStatistics& s) const {
  // bytes_allocated: Boehm's running total; bytes_in_use: the heap less its free
  // blocks (includes garbage not yet collected); peak: the heap size, which Boehm
  // only grows. frees stay StatsHeap's count of explicit frees: Boehm does not
  // count the objects it reclaims.
  std::size_t heapSize = GC_get_heap_size();
  std::size_t freeBytes = GC_get_free_bytes();
  s.bytes_allocated = GC_get_total_bytes();
  s.bytes_in_use = heapSize > freeBytes ? heapSize - freeBytes : 0;
  s.peak_bytes_in_use = heapSize;
  s.internal_bytes = s.bytes_allocated > s.bytes_requested ? s.bytes_allocated - s.bytes_requested : 0;
}

}  // namespace kith::heap
