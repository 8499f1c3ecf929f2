#include "gc/mark_sweep.h"

#include "gc/prefetch_fifo.h"
#include "vm/object_scanning.h"

namespace kith::gc {

namespace {

// Marks the object a Value refers to, if any, and queues it for scanning.
// A boxed int (value.h) is a leaf: marked, never scanned.
inline void markValue(const vm::Value& value, std::vector<vm::Handle*>& markStack, std::size_t& marked) {
  if (!value.holdsHandle()) return;
  vm::Handle* handle = value.handle();
  if (handle->gcBits & kMarked) return;
  handle->gcBits |= kMarked;
  if (value.isBoxedInt()) return;
  ++marked;
  markStack.push_back(handle);
}

// The mark loop, compiled once with the locality meter and once without: with a
// run-time test of the meter inside it, GCC no longer inlines markValue, and every
// collection pays for the calls.
template <bool kMeasureLocality>
std::size_t markFromRoots(vm::CollectedSpace& space, std::vector<vm::Handle*>& markStack, std::uint64_t& bytes,
                          LocalityMeter* locality) {
  std::size_t marked = 0;
  markStack.clear();
  space.forEachRoot([&](const vm::Value& root) { markValue(root, markStack, marked); });
  // Depth first, from the top of the stack, through a FIFO of kDepth handles whose
  // objects are prefetched as they enter it (prefetch_fifo.h): reading a popped
  // object at once waited for it whenever the live graph is not laid out in the
  // order it is marked (gcbench's long-lived tree, voronoi's quad-edges).
  PrefetchFifo ahead;
  for (;;) {
    while (!ahead.full() && !markStack.empty()) {
      ahead.push(markStack.back());
      markStack.pop_back();
    }
    if (ahead.empty()) break;
    vm::Handle* handle = ahead.pop();
    const std::uint32_t size = vm::objectBytes(handle);  // scanning reads it anyway
    bytes += size;
    if constexpr (kMeasureLocality) locality->object(handle->object, size);
    vm::forEachReference(handle, [&](vm::Value& field) {
      if constexpr (kMeasureLocality) {
        if (field.isObject()) locality->reference(handle->object, field.asHandle()->object);
      }
      markValue(field, markStack, marked);
    });
  }
  return marked;
}

}  // namespace

std::size_t markReachable(vm::CollectedSpace& space, std::vector<vm::Handle*>& markStack, std::uint64_t* markedBytes,
                          LocalityMeter* locality) {
  std::uint64_t bytes = 0;
  std::size_t marked = locality ? markFromRoots<true>(space, markStack, bytes, locality)
                                : markFromRoots<false>(space, markStack, bytes, nullptr);
  if (markedBytes) *markedBytes += bytes;
  return marked;
}

SweepTotals sweepUnmarked(vm::CollectedSpace& space) {
  SweepTotals totals;
  SweepCursor cursor;
  SweepToTheEnd pace;
  sweepHandles(space, cursor, StopTheWorldMarks{}, pace, totals);
  return totals;
}

}  // namespace kith::gc
