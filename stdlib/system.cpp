// System: args, gc(), exit(code), heapStats().
#include <cstdio>

#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::NativeFunction;
using vm::Value;
using vm::VM;

namespace {

Value system_gc(VM& vm, Value*, int) {
  vm.collectGarbage(vm::GcCause::systemGc);
  return Value::nil();
}

Value system_exit(VM& vm, Value* args, int) {
  std::int64_t code = intArgument(vm, args[0], "System.exit's code");
  std::fflush(stdout);
  throw vm::ExitRequest{static_cast<int>(code & 0xff)};
}

// A Map of the live statistics: the heap's counters, the handle table, the VM's.
Value system_heapStats(VM& vm, Value*, int) {
  heap::HeapStatistics s = vm.heap().statistics();
  vm::RootScope roots(vm);
  Value map = vm.newMap();
  roots.pin(map);
  auto put = [&](const char* key, Value value) {
    Value k = vm.newString(key);
    roots.pin(k);
    mapPut(vm, map, k, value);
  };
  auto count = [](std::uint64_t n) { return Value::integer(static_cast<std::int64_t>(n)); };
  put("policy", vm.newString(vm.heap().name()));
  put("heap_size", count(vm.heap().arenaSize()));
  put("allocations", count(s.allocations));
  put("frees", count(s.frees));
  put("bytes_requested", count(s.bytes_requested));
  put("bytes_allocated", count(s.bytes_allocated));
  put("bytes_in_use", count(s.bytes_in_use));
  put("peak_bytes_in_use", count(s.peak_bytes_in_use));
  put("failed_allocations", count(s.failed_allocations));
  put("internal_bytes", count(s.internal_bytes));
  put("handles_live", count(vm.handles().liveCount()));
  put("handle_table_bytes", count(vm.handles().bytesReserved()));
  put("objects_created", count(vm.objectsCreated()));
  put("gc_cycles", count(vm.collector().statistics().cycles));
  return map;
}

const NativeFunction kGc{"gc", system_gc, 0, 0};
const NativeFunction kExit{"exit", system_exit, 1, 1};
const NativeFunction kHeapStats{"heapStats", system_heapStats, 0, 0};

}  // namespace

void installSystem(VM& vm) {
  vm::ClassInfo* system = vm.newClass("System", vm::ObjectKind::instance);
  system->instantiable = false;
  system->defined = true;
  for (const NativeFunction* f : {&kGc, &kExit, &kHeapStats}) vm.defineStatic(system, f->name, Value::nativeValue(f));
  vm.defineGlobal("System", Value::klassValue(system));
  // System.args: built element by element; the array is a static (a root) throughout.
  const auto& args = vm.args();
  Value array = vm.newArray(args.size(), Value::nil());
  vm.defineStatic(system, "args", array);
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value s = vm.newString(args[i]);
    vm::objectAt<vm::ArrayObject>(array)->elements()[i] = s;
  }
}

}  // namespace kith::stdlib
