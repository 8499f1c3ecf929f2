// Mutator: the program an object space (vm/object_space.h) serves, as the space and
// its collector see it — the split MMTk makes between a collector and its VM
// binding: the roots of its Scanning trait (scan_roots_in_mutator_thread) and its
// Collection trait (out_of_memory). Not what MMTk calls a Mutator (the collector's
// allocation context held by each program thread): here the name is the program's.
// The VM implements it; the other half of the binding, how a collector reads an
// object, is vm/object_scanning.h. The space and the collectors in gc/ know nothing
// else of the interpreter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vm/value.h"

namespace kith::vm {

class Mutator {
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
  ~Mutator() = default;
};

}  // namespace kith::vm
