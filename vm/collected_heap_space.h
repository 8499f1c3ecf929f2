// CollectedHeapSpace: the object space over a heap that collects garbage itself
// (`--heap=boehm`, the baseline; vm/object_space.h). Such a heap reclaims what it
// cannot reach, but a handle table in the system allocator is invisible to it, and
// one scanned as a root would keep every object alive. So here each object's Handle
// is the first cell of the object's own block: [Handle, padded to
// kHandleBytes][object]. A Value holds the Handle*, which is the block's address,
// so whatever reaches a Value reaches the block, whose handle->object points into
// the same block; an unreachable handle and its object die together, with no
// finalizer and no table entry. The roots in system-allocator memory (stack,
// frames, globals, constants, pinned, ...: VmBinding::gatherRoots) are reported at
// each collection by pushRoots; C++ locals are on the thread stack, which the heap
// scans. Objects never move here, nothing is freed explicitly, and no Collector
// runs: the heap paces itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vm/allocation_trace.h"
#include "vm/object_space.h"

namespace kith::vm {

class CollectedHeapSpace final : public ObjectSpace {
 public:
  // Installs the root scanner; scansRoots() says whether the heap accepted it (one
  // owner at a time): without it the heap does not collect, and this space is no use.
  CollectedHeapSpace(heap::Heap& heap, VmBinding& binding, ClassInfo* boxedIntClass, const VMOptions& options);
  ~CollectedHeapSpace() override;
  bool scansRoots() const { return scansRoots_; }

  Handle* allocate(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr) override;
  Handle* boxInteger(std::int64_t i) override;
  void collectGarbage(GcCause) override { heap_.collect(); }
  void backEdgeSlice() override {}
  const HandleTable& handles() const override { return noHandles_; }
  void setTraceWriter(heap::TraceWriter* writer) override { trace_.setWriter(writer); }

 private:
  static constexpr std::size_t kHandleBytes = 32;  // sizeof(Handle) to 16

  static void pushRoots(void* context, heap::PushRootsFn push);
  void payForBoxes() override {}  // never due: boxes are blocks of the heap, which paces itself

  AllocationTrace trace_;
  bool scansRoots_ = false;
  HandleTable noHandles_;             // stays empty: each handle is in its object's block
  std::vector<Handle*> pushedRoots_;  // the roots pushRoots reports
};

}  // namespace kith::vm
