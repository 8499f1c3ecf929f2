// VmBinding: what the VM does for its object space (vm/object_space.h) and, through
// the space, for a collector — the VM's side of the split MMTk draws between a
// collector and its VM binding (mmtk-core src/vm/mod.rs, VMBinding). It corresponds
// to two of MMTk's binding traits:
//   - Scanning (src/vm/scanning.rs): gatherRoots is scan_roots_in_mutator_thread and
//     scan_vm_specific_roots in one call (one program thread: its stack, globals,
//     constants, pinned roots);
//   - Collection (src/vm/collection.rs): throwError is out_of_memory (Kith raises a
//     catchable error).
// spendSteps (the step limit, for fuzzing) has no MMTk counterpart. The binding's
// other half, how a collector reads an object (MMTk's ObjectModel and
// Scanning::scan_object), is vm/object_scanning.h. Not what MMTk calls a Mutator
// (src/plan/mutator_context.rs: the allocation context a program thread holds), so
// not named one. The VM implements it; the space and the collectors in gc/ know
// nothing else of the interpreter.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vm/value.h"

namespace kith::vm {

class VmBinding {
 public:
  // Appends the value of every root (vm.h: VM::forEachRoot) to `roots`. Called once
  // per root scan, so a collector pays one virtual call per collection, not one per
  // root; the copies are read, never written (collectors do not move objects).
  virtual void gatherRoots(std::vector<Value>& roots) = 0;
  // Raises Kith's catchable error with `message` (the space's "out of memory").
  [[noreturn]] virtual void throwError(const std::string& message) = 0;
  // Charges work that is slow per instruction against the step limit (fuzzing).
  virtual void spendSteps(std::uint64_t steps) = 0;

 protected:
  ~VmBinding() = default;
};

// Calls fn(const Value&) for every root `binding` reports, gathered into `scratch`
// (kept by the caller for its capacity; a nested scan takes its own).
template <class Fn>
void forEachRoot(VmBinding& binding, std::vector<Value>& scratch, Fn&& fn) {
  std::vector<Value> roots = std::move(scratch);
  roots.clear();
  binding.gatherRoots(roots);
  for (const Value& v : roots) fn(v);
  scratch = std::move(roots);
}

}  // namespace kith::vm
