// The write barrier at every kind of reference store the VM makes, driven through
// compiled script code and the built-ins (not by hand): while the continuous
// collector marks, the object a store overwrites must be shaded (white -> gray), and
// the lost-object race (the only reference to a white object moved into a black
// one, the old slot cleared) must not lose the object.
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <memory>
#include <string>

#include "gc/continuous_collector.h"
#include "gc_test_support.h"
#include "stdlib/builtins.h"
#include "vm/compiler.h"

namespace kith::gc::testing {
namespace {

using vm::Handle;
using vm::Value;
using Phase = ContinuousCollector::Phase;

struct ScriptVm {
  explicit ScriptVm(std::size_t workPerSlice = 1024, std::size_t heapBytes = 64 << 20)
      : heap(heap::makeHeap("estranged", heapBytes, heap::StatisticsMode::counts)) {
    ContinuousCollectorOptions options;
    options.workPerSlice = workPerSlice;
    options.verify = true;  // the invariant, checked at the end of every marking phase
    collector = std::make_unique<ContinuousCollector>(options);
    machine = std::make_unique<vm::VM>(*heap, *collector);
    stdlib::installBuiltins(*machine);
  }
  // Compiles and runs `source` in this VM (globals persist between calls).
  void run(const std::string& source) {
    vm::CompileResult compiled = vm::compile(*machine, source, "barrier_test.kith");
    ASSERT_TRUE(compiled.script) << (compiled.errors.empty() ? "" : compiled.errors[0]);
    try {
      machine->runScript(compiled.script);
    } catch (const vm::KithThrow&) {
      FAIL() << machine->exceptionMessage(machine->pendingException());
    }
  }
  Value global(const char* name) { return machine->global(name); }

  std::unique_ptr<heap::Heap> heap;
  std::unique_ptr<ContinuousCollector> collector;
  std::unique_ptr<vm::VM> machine;
};

Value& field0(Value instance) { return vm::objectAt<vm::InstanceObject>(instance)->fields()[0]; }
Value& element(Value array, std::size_t i) { return vm::objectAt<vm::ArrayObject>(array)->elements()[i]; }

struct StoreCase {
  const char* name;
  const char* setup;  // leaves the victim reachable only through one heap slot
  std::function<Handle*(ScriptVm&)> victim;
  const char* store;  // overwrites that slot
};

class EveryStoreKind : public ::testing::TestWithParam<StoreCase> {};

TEST_P(EveryStoreKind, ShadesTheOverwrittenObjectWhileMarking) {
  const StoreCase& c = GetParam();
  ScriptVm t;
  t.run(std::string("class Box { field item; }\nfn put(b, v) { b.item = v; }\nput(new Box(), 0);\n") + c.setup);
  Handle* victim = c.victim(t);
  ASSERT_NE(victim, nullptr);
  t.collector->startCycle(spaceOf(*t.machine));  // roots gray; the victim, behind a heap slot, white
  ASSERT_EQ(t.collector->phase(), Phase::marking);
  ASSERT_TRUE(ContinuousCollector::isWhite(victim)) << c.name;
  t.run(c.store);
  EXPECT_EQ(victim->gcBits, ContinuousCollector::kGray) << c.name << ": the store did not go through the barrier";
  t.collector->finishCycle(spaceOf(*t.machine));
  EXPECT_EQ(verifyHeap(spaceOf(*t.machine), betweenCycles()), "");
}

const StoreCase kStoreCases[] = {
    {"field, inline-cache fast path", "let box = new Box();\nbox.item = \"v\" + 1;\n",
     [](ScriptVm& t) { return field0(t.global("box")).asHandle(); }, "put(box, nil);"},
    {"field, first store at a site", "let box = new Box();\nbox.item = \"v\" + 1;\n",
     [](ScriptVm& t) { return field0(t.global("box")).asHandle(); }, "box.item = nil;"},
    {"array element", "let arr = [\"v\" + 1];\n", [](ScriptVm& t) { return element(t.global("arr"), 0).asHandle(); },
     "arr[0] = nil;"},
    {"closed upvalue",
     "fn make() { let v = \"v\" + 1; return fn (x) { v = x; }; }\nlet setter = make();\n",
     [](ScriptVm& t) {
       Value up = vm::objectAt<vm::ClosureObject>(t.global("setter"))->upvalues()[0];
       return vm::objectAt<vm::UpvalueObject>(up)->closed.asHandle();
     },
     "setter(nil);"},
    {"List.set", "let l = new List();\nl.add(\"v\" + 1);\n",
     [](ScriptVm& t) { return element(vm::objectAt<vm::ListObject>(t.global("l"))->storage, 0).asHandle(); },
     "l.set(0, nil);"},
    {"List.removeLast", "let l = new List();\nl.add(\"v\" + 1);\n",
     [](ScriptVm& t) { return element(vm::objectAt<vm::ListObject>(t.global("l"))->storage, 0).asHandle(); },
     "l.removeLast();"},
    {"List growth replacing its storage", "let l = new List();\nfor (let i = 0; i < 8; i = i + 1) l.add(i);\n",
     [](ScriptVm& t) { return vm::objectAt<vm::ListObject>(t.global("l"))->storage.asHandle(); }, "l.add(8);"},
    {"Map.put over a value", "let m = new Map();\nm.put(1, \"v\" + 1);\n",
     [](ScriptVm& t) { return element(vm::objectAt<vm::MapObject>(t.global("m"))->entries, 1).asHandle(); },
     "m.put(1, nil);"},
    {"Map.remove", "let m = new Map();\nm.put(1, \"v\" + 1);\n",
     [](ScriptVm& t) { return element(vm::objectAt<vm::MapObject>(t.global("m"))->entries, 1).asHandle(); },
     "m.remove(1);"},
    {"Map growth replacing its entries", "let m = new Map();\nfor (let i = 0; i < 5; i = i + 1) m.put(i, i);\n",
     [](ScriptVm& t) { return vm::objectAt<vm::MapObject>(t.global("m"))->entries.asHandle(); },
     "for (let i = 5; i < 40; i = i + 1) m.put(i, i);"},
    {"StringBuilder growth replacing its buffer", "let sb = new StringBuilder();\nsb.append(\"abc\");\n",
     [](ScriptVm& t) { return vm::objectAt<vm::StringBuilderObject>(t.global("sb"))->buffer.asHandle(); },
     "sb.append(\"a longer piece of text than sixteen bytes\");"},
};

INSTANTIATE_TEST_SUITE_P(Stores, EveryStoreKind, ::testing::ValuesIn(kStoreCases), [](const auto& info) {
  std::string name;
  for (char ch : std::string(info.param.name))
    if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
  return name;
});

// The race itself, through the interpreter: `pair[1]` is scanned (black) while
// `pair[0]` is not; the script moves the only reference to its item across and
// clears the old slot. The item must survive the cycle.
TEST(WriteBarrier, ObjectMovedFromAnUnscannedIntoAScannedObjectSurvives) {
  ScriptVm t(1);  // one object scanned per slice
  t.run("class Box { field item; }\nlet pair = [new Box(), new Box()];\npair[0].item = \"moved \" + 1;\n");
  Handle* first = element(t.global("pair"), 0).asHandle();
  Handle* second = element(t.global("pair"), 1).asHandle();
  Handle* item = field0(Value::object(first)).asHandle();
  t.collector->startCycle(spaceOf(*t.machine));
  for (int i = 0; i < 100000 && !ContinuousCollector::isBlack(second); ++i) t.collector->step(spaceOf(*t.machine));
  ASSERT_TRUE(ContinuousCollector::isBlack(second));
  ASSERT_FALSE(ContinuousCollector::isBlack(first)) << "the array pushes its elements in order: the last is scanned first";
  ASSERT_TRUE(ContinuousCollector::isWhite(item));
  t.run("pair[1].item = pair[0].item;\npair[0].item = nil;\n");
  t.collector->finishCycle(spaceOf(*t.machine));  // verifyMarking aborts if the item was missed
  Value moved = field0(element(t.global("pair"), 1));
  ASSERT_TRUE(moved.isObject());
  EXPECT_EQ(t.machine->stringView(moved), "moved 1");
  t.collector->collect(spaceOf(*t.machine), vm::GcCause::systemGc);
  EXPECT_EQ(t.machine->stringView(field0(element(t.global("pair"), 1))), "moved 1");
  EXPECT_EQ(verifyAfterFullCycle(*t.machine), "");
}

// Allocation while marking is black, during the sweep the new white: neither is
// freed by the cycle in progress, whatever slot of the handle table it lands in.
TEST(WriteBarrier, ObjectsBornDuringACycleSurviveIt) {
  ScriptVm t(4, 1 << 20);  // a small heap: the pacing runs slices every few allocations
  t.run("let keep = new List();\nfor (let i = 0; i < 3000; i = i + 1) { let g = [i]; }\n");
  t.collector->startCycle(spaceOf(*t.machine));
  // Enough garbage that the cycle runs through its sweep while `keep` grows.
  t.run("for (let i = 0; i < 40000; i = i + 1) { if (i < 2000) keep.add(\"k\" + i); let g = [i, i]; }\n");
  EXPECT_GT(t.collector->statistics().cycles, 0u) << "the gate's slices ran the cycle through its sweep";
  t.run("let ok = keep.size() == 2000;\nfor (let i = 0; i < 2000; i = i + 1) if (keep.get(i) != \"k\" + i) ok = false;\n");
  EXPECT_TRUE(t.global("ok").asBool());
  t.collector->collect(spaceOf(*t.machine), vm::GcCause::systemGc);
  EXPECT_EQ(verifyAfterFullCycle(*t.machine), "");
}

}  // namespace
}  // namespace kith::gc::testing
