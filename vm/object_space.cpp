#include "vm/object_space.h"

#include <cstdlib>
#include <string>

#include "vm/collected_heap_space.h"
#include "vm/handle_table_space.h"

namespace kith::vm {

ObjectSpace::ObjectSpace(heap::Heap& heap, VmBinding& binding, ClassInfo* boxedIntClass, const VMOptions& options)
    : heap_(heap),
      binding_(binding),
      boxedIntClass_(boxedIntClass),
      failAllocation_(options.failAllocation),
      failAllocationEvery_(options.failAllocationEvery),
      chargeSteps_(options.stepLimit != 0) {
  stressActions_ = failAllocation_ || failAllocationEvery_ || chargeSteps_;
  beginBoxing();
}

ObjectSpace::~ObjectSpace() { endBoxing(); }

void ObjectSpace::applyStress(std::size_t bytes) {
  if (chargeSteps_) binding_.spendSteps(kStepsPerAllocation);
  if (injectedFailure()) throwOutOfMemory(bytes);
}

bool ObjectSpace::injectedFailure() {
  ++allocationRequests_;
  return allocationRequests_ == failAllocation_ ||
         (failAllocationEvery_ && allocationRequests_ % failAllocationEvery_ == 0);
}

void ObjectSpace::throwOutOfMemory(std::size_t bytes) {
  binding_.throwError("out of memory: requested " + std::to_string(bytes) + " bytes");
  std::abort();  // not reached: GCC does not carry [[noreturn]] through a virtual call
}

std::unique_ptr<ObjectSpace> makeObjectSpace(heap::Heap& heap, Collector& collector, VmBinding& binding,
                                             ClassInfo* boxedIntClass, const VMOptions& options) {
  if (heap.collectsGarbage()) {
    auto space = std::make_unique<CollectedHeapSpace>(heap, binding, boxedIntClass, options);
    if (space->scansRoots()) return space;
  }
  return std::make_unique<HandleTableSpace>(heap, collector, binding, boxedIntClass, options);
}

}  // namespace kith::vm
