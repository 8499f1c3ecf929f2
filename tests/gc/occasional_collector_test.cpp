// The occasional (stop-the-world mark-sweep) collector over real heap policies:
// what survives, what is freed, and that the heap and the handles agree after.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "gc/gc_log.h"
#include "gc/mark_sweep.h"
#include "gc_test_support.h"
#include "tests/heap/policy_test_name.h"

namespace kith::gc::testing {
namespace {

using vm::Value;

constexpr std::size_t kSmallHeap = 1 << 20;

TEST(OccasionalCollector, FreesAnUnreachableCycle) {
  TestVm t("estranged", kSmallHeap);
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 1);
  {
    vm::RootScope roots(vm);
    Value a = vm.newInstance(node);
    roots.root(a);
    Value b = vm.newInstance(node);
    field(a, 0) = b;
    field(b, 0) = a;
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    EXPECT_EQ(spaceOf(vm).handles().liveCount(), 2u) << "a pinned cycle survives";
  }
  std::uint64_t freesBefore = t.heap->statistics().frees;
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u) << "reference counting would keep the cycle; tracing does not";
  EXPECT_EQ(t.heap->statistics().frees, freesBefore + 2);
  EXPECT_EQ(t.heap->statistics().bytes_in_use, 0u);
  EXPECT_EQ(t.collector.statistics().objectsFreed, 2u);
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

TEST(OccasionalCollector, MarksAMillionNodeListWithoutRecursionThenFreesIt) {
  constexpr int kNodes = 1'000'000;
  TestVm t("estranged", std::size_t{64} << 20);
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 2);
  {
    vm::RootScope roots(vm);
    roots.root(Value::nil());
    Value& head = vm.rootStack().back();
    for (int i = 0; i < kNodes; ++i) {
      Value n = vm.newInstance(node);
      field(n, 0) = head;
      field(n, 1) = Value::integer(i);
      head = n;
    }
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    ASSERT_EQ(spaceOf(vm).handles().liveCount(), static_cast<std::size_t>(kNodes));
    // Walk it: every node is still there, in order.
    int expected = kNodes - 1;
    for (Value n = head; n.isObject(); n = field(n, 0)) ASSERT_EQ(field(n, 1).asInt(), expected--);
    EXPECT_EQ(expected, -1);
  }
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
  EXPECT_GE(t.collector.statistics().objectsFreed, static_cast<std::uint64_t>(kNodes));
  EXPECT_EQ(t.heap->statistics().bytes_in_use, 0u);
}

TEST(OccasionalCollector, KeepsWhatOnlyAClosureUpvalueReaches) {
  TestVm t("knuth", kSmallHeap);
  vm::VM& vm = t.vm();
  {
    vm::RootScope roots(vm);
    Value array = vm.newArray(3, Value::integer(7));
    roots.root(array);
    Value closure = makeClosureCapturing(vm, array);
    vm.rootStack().back() = closure;  // now only the closure's upvalue reaches the array
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    EXPECT_EQ(spaceOf(vm).handles().liveCount(), 3u) << "closure, upvalue, array";
    auto* up = vm::objectAt<vm::UpvalueObject>(vm::objectAt<vm::ClosureObject>(closure)->upvalues()[0]);
    ASSERT_TRUE(up->closed.isObject());
    EXPECT_EQ(element(up->closed, 2).asInt(), 7);
    EXPECT_EQ(verifyAfterFullCycle(vm), "");
  }
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
}

TEST(OccasionalCollector, KeepsWhatNativeCodePinsAndFreesItAfterwards) {
  TestVm t("tlsf", kSmallHeap);
  vm::VM& vm = t.vm();
  {
    vm::RootScope roots(vm);
    Value s = vm.newString("held by a native");
    roots.root(s);
    vm.newString("garbage");
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    EXPECT_EQ(spaceOf(vm).handles().liveCount(), 1u);
    EXPECT_EQ(vm.stringView(s), "held by a native");
  }
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
}

TEST(OccasionalCollector, KeepsGlobalsAndBoundMethodsAndContainers) {
  TestVm t("lea", kSmallHeap);
  vm::VM& vm = t.vm();
  // A List and a Map with their backing storage, a StringBuilder, a bound method.
  Value list = vm.newList();
  vm.defineGlobal("list", list);
  vm::Handle* storage = vm.newValueStorage(4);
  vm::objectAt<vm::ListObject>(list)->storage = Value::object(storage);
  vm::objectAt<vm::ListObject>(list)->size = 1;
  Value text = vm.newString("in the list");
  vm::objectAt<vm::ArrayObject>(vm::objectAt<vm::ListObject>(list)->storage)->elements()[0] = text;
  Value map = vm.newMap();
  vm.defineGlobal("map", map);
  vm::objectAt<vm::MapObject>(map)->entries = Value::object(vm.newValueStorage(2));
  vm::objectAt<vm::MapObject>(map)->index = Value::object(vm.newByteStorage(32));
  Value builder = vm.newStringBuilder();
  vm.defineGlobal("builder", builder);
  vm::objectAt<vm::StringBuilderObject>(builder)->buffer = Value::object(vm.newByteStorage(16));
  Value receiver = vm.newArray(1, Value::nil());
  vm.defineGlobal("bound", vm.newBoundMethod(receiver, Value::nil()));
  std::size_t live = spaceOf(vm).handles().liveCount();
  for (int i = 0; i < 100; ++i) vm.newArray(8, Value::nil());  // garbage
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), live);
  EXPECT_EQ(vm.stringView(text), "in the list");
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

TEST(OccasionalCollector, CollectsOnAllocationFailureThroughTheGate) {
  OccasionalCollectorOptions options;
  options.occupancyThreshold = 1;  // only failures trigger
  TestVm t("estranged", 256 << 10, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(vm.newString("survivor"));
  for (int i = 0; i < 10'000; ++i) vm.newArray(30, Value::integer(i));  // ~5 MB of garbage
  EXPECT_GT(t.collector.statistics().cycles, 0u);
  EXPECT_NE(t.collector.lastLogLine().find("(Allocation Failure)"), std::string::npos) << t.collector.lastLogLine();
  EXPECT_EQ(vm.stringView(vm.rootStack().back()), "survivor");
}

// The gate's check: the VM calls beforeAllocation before every allocation.
TEST(OccasionalCollector, CollectsWhenOccupancyPassesTheThreshold) {
  OccasionalCollectorOptions options;
  options.occupancyThreshold = 0.5;
  TestVm t("kingsley", kSmallHeap, options);
  vm::VM& vm = t.vm();
  std::size_t peak = 0;
  for (int i = 0; i < 5'000; ++i) {
    vm.newArray(20, Value::nil());
    peak = std::max<std::size_t>(peak, t.heap->statistics().bytes_in_use);
  }
  EXPECT_GT(t.collector.statistics().cycles, 0u);
  EXPECT_EQ(t.heap->statistics().failed_allocations, 0u) << "the threshold ran cycles before the heap filled";
  EXPECT_NE(t.collector.lastLogLine().find("(Heap Occupancy)"), std::string::npos) << t.collector.lastLogLine();
  EXPECT_LE(peak, kSmallHeap / 2 + OccasionalCollector::kOccupancyGranularity + 512);
  EXPECT_GT(peak, kSmallHeap / 4) << "the budget lets the heap fill up to near the threshold";
}

TEST(OccasionalCollector, AboveThresholdLiveSetDoesNotCollectAtEveryAllocation) {
  OccasionalCollectorOptions options;
  options.occupancyThreshold = 0.25;
  TestVm t("estranged", kSmallHeap, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  // About 40% of the heap stays live: more than the threshold.
  for (int i = 0; i < 100; ++i) {
    roots.root(vm.newArray((4096 - sizeof(vm::ArrayObject)) / sizeof(Value), Value::nil()));
  }
  std::uint64_t cyclesBefore = t.collector.statistics().cycles;
  for (int i = 0; i < 2'000; ++i) {
    vm.newArray(2, Value::nil());
  }
  // 2000 x 64-byte blocks = 128K; half of the ~600K free space is ~300K per cycle.
  EXPECT_LE(t.collector.statistics().cycles - cyclesBefore, 2u);
}

TEST(OccasionalCollector, StressCollectsBeforeEveryAllocation) {
  OccasionalCollectorOptions options;
  options.stress = true;
  TestVm t("estranged", kSmallHeap, options);
  vm::VM& vm = t.vm();
  for (int i = 0; i < 50; ++i) {
    vm.newString("x");
  }
  EXPECT_EQ(t.collector.statistics().cycles, 50u);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 1u) << "each cycle freed the previous string";
}

TEST(OccasionalCollector, StatisticsAndLogLine) {
  TestVm t("estranged", std::size_t{64} << 20);
  vm::VM& vm = t.vm();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 1000; ++i) vm.newArray(4, Value::nil());
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  }
  vm::CollectorStatistics s = t.collector.statistics();
  EXPECT_EQ(s.cycles, 3u);
  EXPECT_EQ(s.objectsFreed, 3000u);
  EXPECT_EQ(s.bytesFreed, 3000u * 64);  // 16 + 8 + 4 * 8 = 56 bytes: 64-byte buddy blocks
  EXPECT_GT(s.wall.maxMs, 0);
  EXPECT_LE(s.wall.meanMs, s.wall.maxMs);
  EXPECT_LE(s.wall.p99Ms, s.wall.maxMs);
  EXPECT_NEAR(s.wall.totalMs, 3 * s.wall.meanMs, 1e-9);
  // The same by the thread's CPU time (no bound against wall time: the clocks are
  // read apart, and a test must not depend on timing).
  EXPECT_GT(s.cpu.maxMs, 0);
  EXPECT_LE(s.cpu.meanMs, s.cpu.maxMs);
  EXPECT_NEAR(s.cpu.totalMs, 3 * s.cpu.meanMs, 1e-9);
  EXPECT_GE(s.cpu.mmu[0], 0);
  EXPECT_LE(s.cpu.mmu[0], 1);
  EXPECT_GE(s.pausesLongByHost, 0);
  EXPECT_LE(s.pausesLongByHost, 3);
  EXPECT_GE(s.pauseHostGapMaxMs, 0);
  std::regex shape(R"(\[\d+\.\d{3}s\]\[info\]\[gc\] GC\(2\) Pause Full \(System\.gc\(\)\) 0M->0M\(64M\) \d+\.\d{3}ms \(cpu \d+\.\d{3}ms\))");
  EXPECT_TRUE(std::regex_match(t.collector.lastLogLine(), shape)) << t.collector.lastLogLine();
}

TEST(GcLog, FormatsLikeJavaUnifiedLogging) {
  GcLogEntry e;
  e.uptimeSeconds = 0.025;
  e.cycle = 0;
  e.cause = vm::GcCause::systemGc;
  e.bytesBefore = 2 << 20;
  e.bytesAfter = (1 << 20) + 5000;
  e.heapBytes = 64 << 20;
  e.pauseMs = 3.96;
  e.pauseCpuMs = 3.5;
  EXPECT_EQ(formatGcLogLine(e), "[0.025s][info][gc] GC(0) Pause Full (System.gc()) 2M->1M(64M) 3.960ms (cpu 3.500ms)");
  e.heapBytes = 512 << 10;
  e.bytesBefore = 300 << 10;
  e.bytesAfter = 120 << 10;
  e.cycle = 12;
  e.cause = vm::GcCause::allocationFailure;
  EXPECT_EQ(formatGcLogLine(e),
            "[0.025s][info][gc] GC(12) Pause Full (Allocation Failure) 300K->120K(512K) 3.960ms (cpu 3.500ms)");
  e.cause = vm::GcCause::heapOccupancy;
  EXPECT_NE(formatGcLogLine(e).find("(Heap Occupancy)"), std::string::npos);
}

TEST(HeapVerifier, ReportsAFreedHandleThatIsStillReachable) {
  TestVm t("estranged", kSmallHeap);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  Value s = vm.newString("doomed");
  roots.root(s);
  EXPECT_EQ(verifyHeap(spaceOf(vm)), "");
  spaceOf(vm).freeObject(s.asHandle());  // what a collector bug would do
  EXPECT_NE(verifyHeap(spaceOf(vm)).find("freed handle"), std::string::npos) << verifyHeap(spaceOf(vm));
  vm.rootStack().clear();
}

TEST(HeapVerifier, ReportsMarksLeftSetAndSurvivingGarbage) {
  TestVm t("estranged", kSmallHeap);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  Value s = vm.newString("marked");
  roots.root(s);
  s.asHandle()->gcBits = kMarked;
  EXPECT_NE(verifyHeap(spaceOf(vm)).find("mark bits"), std::string::npos);
  s.asHandle()->gcBits = 0;
  vm.newString("garbage");
  EXPECT_EQ(verifyHeap(spaceOf(vm)), "");
  EXPECT_NE(verifyAfterFullCycle(vm).find("garbage survived"), std::string::npos);
}

// --- every policy ----------------------------------------------------------------

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

// A random graph (arrays, instances, strings, lists) rooted in a few pinned
// arrays; some roots dropped between cycles. After each cycle exactly the objects
// reachable from the remaining roots are live, each with its contents.
TEST_P(EveryPolicy, RandomGraphsSurviveExactlyAsReachable) {
  TestVm t(GetParam(), 4 << 20);
  vm::VM& vm = t.vm();
  vm::ClassInfo* pair = makeClass(vm, "Pair", 2);
  std::mt19937 random(12345);
  vm::RootScope roots(vm);
  constexpr int kRoots = 8, kSlots = 16;
  for (int r = 0; r < kRoots; ++r) roots.root(vm.newArray(kSlots, Value::nil()));
  std::size_t firstRoot = vm.rootStack().size() - kRoots;
  std::vector<Value> made;  // every object made this round (holds handles only)
  for (int round = 0; round < 5; ++round) {
    made.clear();
    for (int i = 0; i < 2000; ++i) {
      Value v;
      switch (random() % 3) {
        case 0: v = vm.newString("s" + std::to_string(i)); break;
        case 1: v = vm.newArray(random() % 6, Value::integer(i)); break;
        default: v = vm.newInstance(pair); field(v, 1) = Value::integer(i); break;
      }
      // Link it from an earlier object (or a root) so graphs, chains and cycles form.
      Value holder = made.empty() || random() % 4 == 0 ? vm.rootStack()[firstRoot + random() % kRoots]
                                                      : made[random() % made.size()];
      if (vm.isKind(holder, vm::ObjectKind::array)) {
        auto* a = vm::objectAt<vm::ArrayObject>(holder);
        if (a->length) a->elements()[random() % a->length] = v;
      } else if (vm.isKind(holder, vm::ObjectKind::instance)) {
        field(holder, 0) = v;
      }
      made.push_back(v);
    }
    vm.rootStack()[firstRoot + random() % kRoots] = vm.newArray(kSlots, Value::nil());  // drop one root
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    ASSERT_EQ(verifyAfterFullCycle(vm), "") << "round " << round;
  }
  vm.rootStack().resize(firstRoot);
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
  EXPECT_EQ(t.heap->statistics().bytes_in_use, 0u);
  EXPECT_EQ(t.heap->statistics().frees, t.heap->statistics().allocations);
}

std::vector<std::string> policyNames() {
  std::vector<std::string> names;
  for (const heap::PolicyInfo& p : heap::policyList()) names.emplace_back(p.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Policies, EveryPolicy, ::testing::ValuesIn(policyNames()),
                         [](const auto& info) { return heap::testing::policyTestName(info.param); });

}  // namespace
}  // namespace kith::gc::testing
