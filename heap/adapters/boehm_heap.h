// BoehmHeap: the Boehm-Demers-Weiser conservative collector (libgc, pkg-config
// bdw-gc) as a policy — the yardstick the studied policies are measured against,
// not a product path. Blocks come from GC_MALLOC (scanned: objects hold Values),
// and the heap is capped at the arena size with GC_set_max_heap_size. libgc is
// opened with dlopen when the first Boehm heap is made (shared_library.h), so runs
// on other policies never load it; a machine without it gets LibraryUnavailable.
//
// Two modes, because libgc is one collector per process:
//   - no root scanner installed (heap tests, a VM with its own collector): Boehm's
//     collection is disabled (GC_disable) and the policy is a plain allocator —
//     explicit frees go to GC_FREE. Nothing the owner keeps in system-allocator
//     memory (invisible to Boehm) can be reclaimed under it.
//   - setRootScanner(fn, ctx) installed (the VM, `--heap=boehm`): collection is on;
//     at each collection Boehm scans the static data and the thread stacks as
//     usual, and calls fn to push the owner's roots that live in system-allocator
//     memory. The owner never frees; Boehm reclaims whatever it cannot reach.
// Statistics: Boehm's own counters (boehmStatistics), see heap_registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/heap.h"
#include "heap/statistics/statistics.h"

namespace kith::heap {

class BoehmHeap {
 public:
  explicit BoehmHeap(std::size_t heapBytes);
  ~BoehmHeap();
  BoehmHeap(const BoehmHeap&) = delete;
  BoehmHeap& operator=(const BoehmHeap&) = delete;

  void* malloc(std::size_t size);
  void free(void* ptr);
  std::size_t getSize(void* ptr);

  // Installs (fn != nullptr) or removes the owner's root scanner; collection is on
  // only while one is installed. One owner at a time: true unless another holds it.
  bool setRootScanner(RootScanFn fn, void* context);
  void collect();  // a full collection (a no-op without a root scanner)
  std::uint64_t collections() const;  // GC_get_gc_no
  // Overwrites the byte counts StatsHeap cannot know (Boehm frees behind its back).
  void boehmStatistics(HeapStatistics& s) const;
};

}  // namespace kith::heap
