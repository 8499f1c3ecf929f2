#include "gc/mark_sweep.h"

#include "gc/object_references.h"
#include "gc/prefetch_queue.h"

namespace kith::gc {

namespace {

// Marks the object a Value refers to, if any, and queues it for scanning.
inline void markValue(const vm::Value& value, std::vector<vm::Handle*>& markStack, std::size_t& marked) {
  if (!value.isObject() || value.as.handle == nullptr) return;
  vm::Handle* handle = value.as.handle;
  if (handle->gcBits & kMarked) return;
  handle->gcBits |= kMarked;
  ++marked;
  markStack.push_back(handle);
}

}  // namespace

std::size_t markReachable(vm::VM& vm, std::vector<vm::Handle*>& markStack, std::uint64_t* markedBytes,
                          LocalityMeter* locality) {
  std::size_t marked = 0;
  std::uint64_t bytes = 0;
  markStack.clear();
  vm.forEachRoot([&](vm::Value& root) { markValue(root, markStack, marked); });
  auto scan = [&](vm::Handle* handle) {
    const std::uint32_t size = static_cast<const vm::ObjectHeader*>(handle->object)->size;  // scanning reads it anyway
    bytes += size;
    if (locality) locality->object(handle->object, size);
    forEachReference(handle, [&](vm::Value& field) {
      if (locality && field.isObject() && field.as.handle) locality->reference(handle->object, field.as.handle->object);
      markValue(field, markStack, marked);
    });
  };
  // Objects pass through a prefetch queue between the mark stack and their scan, so
  // each is fetched while the ones before it are scanned (prefetch_queue.h).
  PrefetchQueue<>().pump(
      [&]() -> vm::Handle* {
        if (markStack.empty()) return nullptr;
        vm::Handle* handle = markStack.back();
        markStack.pop_back();
        return handle;
      },
      scan);
  if (markedBytes) *markedBytes += bytes;
  return marked;
}

SweepTotals sweepUnmarked(vm::VM& vm) {
  SweepTotals totals;
  heap::Heap& heap = vm.heap();
  vm::HandleTable& handles = vm.handles();
  // Chunk by chunk, as HandleTable::forEachLive, but fetching the dead object a few
  // slots ahead (prefetchDeadAhead). Freeing releases the handle (its klass becomes
  // nullptr); no slot is revisited.
  for (std::size_t c = 0; c < handles.chunkCount(); ++c) {
    vm::Handle* chunk = handles.chunk(c);
    for (std::size_t i = 0; i < vm::HandleTable::kHandlesPerChunk; ++i) {
      prefetchDeadAhead(chunk, i, [](const vm::Handle* h) { return !(h->gcBits & kMarked); });
      vm::Handle* handle = &chunk[i];
      if (!handle->klass) continue;
      if (handle->gcBits & kMarked) {
        handle->gcBits &= ~kMarked;
        ++totals.survivors;
        continue;
      }
      totals.bytesFreed += heap.getSize(handle->object);
      ++totals.objectsFreed;
      vm.freeObject(handle);
    }
  }
  return totals;
}

}  // namespace kith::gc
