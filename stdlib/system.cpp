// System: args, gc(), exit(code), heapStats().
#include <cstdio>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::NativeFunction;
using vm::Value;
using vm::VM;

namespace {

Value system_gc(VM& vm, Value*, int) {
  vm.space().collectGarbage(vm::GcCause::systemGc);
  return Value::nil();
}

Value system_exit(VM& vm, Value* args, int) {
  std::int64_t code = intArgument(vm, args[0], "System.exit's code");
  // A process's status is 8 bits: a code outside them would leave as another number
  // (256 as 0, success), so it is an error rather than a silently different exit.
  if (code < 0 || code > 255) vm.throwError("exit code must be in 0..255, got " + std::to_string(code));
  std::fflush(stdout);
  throw vm::ExitRequest{static_cast<int>(code)};
}

// A Map of the live statistics: the heap's counters, the handle table, the VM's.
// Counts are read first (a snapshot from before the Map's own allocations).
Value system_heapStats(VM& vm, Value*, int) {
  heap::HeapStatistics s = vm.heap().statistics();
  std::string policy(vm.heap().name());
  std::uint64_t handlesLive = vm.space().handles().liveCount(), handleBytes = vm.space().handles().bytesReserved();
  std::uint64_t objectsCreated = vm.space().objectsCreated(), cycles = vm.collector().statistics().cycles;
  vm::RootScope roots(vm);
  Value& map = roots.root(vm.newMap());
  auto put = [&](const char* key, Value value) {  // value: an int, or a rooted string
    vm::RootScope entry(vm);
    Value& v = entry.root(value);
    Value& k = entry.root(vm.newString(key));
    mapPut(vm, map, k, v);
  };
  auto count = [](std::uint64_t n) { return Value::integer(static_cast<std::int64_t>(n)); };
  {
    vm::RootScope entry(vm);
    put("policy", entry.root(vm.newString(policy)));
  }
  put("heap_size", count(vm.heap().arenaSize()));
  put("allocations", count(s.allocations));
  put("frees", count(s.frees));
  put("bytes_requested", count(s.bytes_requested));
  put("bytes_allocated", count(s.bytes_allocated));
  put("bytes_in_use", count(s.bytes_in_use));
  put("peak_bytes_in_use", count(s.peak_bytes_in_use));
  put("failed_allocations", count(s.failed_allocations));
  put("internal_bytes", count(s.internal_bytes));
  put("handles_live", count(handlesLive));
  put("handle_table_bytes", count(handleBytes));
  put("objects_created", count(objectsCreated));
  put("gc_cycles", count(cycles));
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
  // System.args: built element by element into a rooted array.
  const auto& args = vm.args();
  vm::RootScope roots(vm);
  Value& array = roots.root(vm.newArray(args.size(), Value::nil()));
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value s = vm.newString(args[i]);  // stored at once, before anything else allocates
    vm::objectAt<vm::ArrayObject>(array)->elements()[i] = s;
  }
  vm.defineStatic(system, "args", array);
}

}  // namespace kith::stdlib
