// A VM over a real heap policy with the occasional collector, and helpers that
// build object graphs through the VM's own allocation API (the same calls the
// interpreter makes), so the collector sees exactly the objects a script makes.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gc/continuous_collector.h"
#include "gc/heap_verifier.h"
#include "gc/occasional_collector.h"
#include "heap/heap.h"
#include "vm/handle_table_space.h"
#include "vm/vm.h"

namespace kith::gc::testing {

// What the collectors work on: the VM's object space as a collector sees it (over a
// policy heap, a HandleTableSpace's CollectedSpace).
inline vm::CollectedSpace& spaceOf(vm::VM& vm) { return dynamic_cast<vm::HandleTableSpace&>(vm.space()).collected(); }

// Heap, collector and VM, in construction order (the VM refers to both).
struct TestVm {
  TestVm(std::string_view policy, std::size_t heapBytes, OccasionalCollectorOptions options = {})
      : heap(heap::makeHeap(policy, heapBytes, heap::StatisticsMode::counts)), collector(withVerify(options)) {
    if (!heap) throw std::invalid_argument("unknown policy");
    machine = std::make_unique<vm::VM>(*heap, collector);
  }
  vm::VM& vm() { return *machine; }

  // Tests verify explicitly and also after each cycle, in every build type.
  static OccasionalCollectorOptions withVerify(OccasionalCollectorOptions options) {
    options.verify = !options.stress;
    return options;
  }

  std::unique_ptr<heap::Heap> heap;
  OccasionalCollector collector;
  std::unique_ptr<vm::VM> machine;
};

// A user class with `fieldCount` fields named f0, f1, ... (as a compiled class
// statement would leave it).
inline vm::ClassInfo* makeClass(vm::VM& vm, std::string name, int fieldCount) {
  vm::ClassInfo* klass = vm.newClass(std::move(name));
  for (int i = 0; i < fieldCount; ++i) {
    int symbol = vm.symbol("f" + std::to_string(i));
    klass->ownFieldSymbols.push_back(symbol);
    klass->fieldSlots[symbol] = i;
    klass->fieldSymbols.push_back(symbol);
  }
  klass->defined = true;
  return klass;
}

inline vm::Value& field(vm::Value instance, int slot) {
  return vm::objectAt<vm::InstanceObject>(instance)->fields()[slot];
}
inline vm::Value& element(vm::Value array, std::size_t i) {
  return vm::objectAt<vm::ArrayObject>(array)->elements()[i];
}

// A closure with one closed upvalue holding `captured` (what OP_CLOSURE and
// closeUpvalues leave behind). Only the closure refers to the upvalue.
inline vm::Value makeClosureCapturing(vm::VM& vm, vm::Value captured) {
  vm::RootScope roots(vm);
  roots.root(captured);
  vm::Handle* closure = vm.allocateObject(vm.builtinClass(vm::ObjectKind::closure),
                                          sizeof(vm::ClosureObject) + sizeof(vm::Value));
  auto* c = vm::objectAt<vm::ClosureObject>(closure);
  c->proto = vm.newProto();
  c->upvalueCount = 1;
  c->upvalues()[0] = vm::Value::nil();
  roots.root(vm::Value::object(closure));
  vm::Handle* upvalue = vm.allocateObject(vm.builtinClass(vm::ObjectKind::upvalue), sizeof(vm::UpvalueObject));
  auto* u = vm::objectAt<vm::UpvalueObject>(upvalue);
  u->stackSlot = nullptr;
  u->closed = captured;
  vm::objectAt<vm::ClosureObject>(closure)->upvalues()[0] = vm::Value::object(upvalue);
  return vm::Value::object(closure);
}

// Between cycles: marks clear, but the continuous collector's whites may be set.
inline VerifyOptions betweenCycles() {
  VerifyOptions options;
  options.allowedBits = ContinuousCollector::kWhite0 | ContinuousCollector::kWhite1;
  return options;
}

inline std::string verifyAfterFullCycle(vm::VM& vm) {
  VerifyOptions options = betweenCycles();
  options.requireNoGarbage = true;
  return verifyHeap(spaceOf(vm), options);
}

}  // namespace kith::gc::testing
