// The continuous (incremental tri-colour) collector. The VM's allocation gate colours
// new objects and paces slices; the tests drive cycles by hand (startCycle, step)
// and play the interpreter's reference stores (the write barrier) where they write
// object slots directly.
#include "gc/continuous_collector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "gc_test_support.h"
#include "tests/heap/policy_test_name.h"

namespace kith::gc::testing {
namespace {

using vm::Value;
using Phase = ContinuousCollector::Phase;

struct ContinuousVm {
  ContinuousVm(std::string_view policy, std::size_t bytes, ContinuousCollectorOptions options = {})
      : heap(heap::makeHeap(policy, bytes, heap::StatisticsMode::counts)), collector(withVerify(options)) {
    machine = std::make_unique<vm::VM>(*heap, collector);
  }
  vm::VM& vm() { return *machine; }
  // The invariant check at the end of marking, in every build type.
  static ContinuousCollectorOptions withVerify(ContinuousCollectorOptions options) {
    options.verify = !options.stress;
    return options;
  }
  // The allocation gate coloured the new object already: check it did.
  Value born(Value v) {
    EXPECT_EQ(v.asHandle()->gcBits, collector.allocationColour());
    return v;
  }
  // What a reference store will do: the barrier, then the store.
  void store(Value& slot, Value v) {
    collector.writeBarrier(slot);
    slot = v;
  }
  std::unique_ptr<heap::Heap> heap;
  ContinuousCollector collector;
  std::unique_ptr<vm::VM> machine;
};

void runToIdle(ContinuousVm& t) {
  for (int i = 0; i < 1'000'000 && t.collector.phase() != Phase::idle; ++i) t.collector.step(spaceOf(t.vm()));
  ASSERT_EQ(t.collector.phase(), Phase::idle);
}

TEST(ContinuousCollector, FreesGarbageInATrickleOfSmallSweeps) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 64;
  ContinuousVm t("estranged", 4 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newArray(100, Value::nil())));
  for (int i = 0; i < 100; ++i) element(vm.rootStack().back(), i) = t.born(vm.newString("live"));
  for (int i = 0; i < 5000; ++i) t.born(vm.newArray(3, Value::nil()));  // garbage
  t.collector.startCycle(spaceOf(vm));
  runToIdle(t);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 101u);
  EXPECT_EQ(t.collector.statistics().objectsFreed, 5000u);
  // A free costs kWorkUnitsPerFree of a slice's 64 units (the slice's last free may
  // take what is left of the budget).
  constexpr std::size_t kFreesPerSlice = 64 / ContinuousCollector::kWorkUnitsPerFree + 1;
  EXPECT_LE(t.collector.largestSweepBurst(), kFreesPerSlice) << "never more than one slice's worth at once";
  EXPECT_GE(t.collector.largestSweepBurst(), kFreesPerSlice - 1) << "all garbage: a slice frees its whole budget";
  EXPECT_GT(t.collector.incrementsRun(), 5000u / kFreesPerSlice);
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

// An array longer than kLongArraySlots is scanned a piece per slice, not in one slice
// (a slice stays bounded however long the array), and stays gray until its last piece;
// stores into it meanwhile keep the snapshot's objects alive.
// --pretouch: the gray stack is populated at start with room for a gray handle per
// kPretouchHeapBytesPerGray bytes of heap; without it the stack is made when first used.
TEST(ContinuousCollector, PretouchPopulatesTheGrayStackForTheHeap) {
  ContinuousCollectorOptions options;
  options.heapBytes = 64 << 20;
  options.pretouch = true;
  ContinuousCollector pretouched(options);
  EXPECT_GE(pretouched.grayStackCapacity(), (64u << 20) / ContinuousCollector::kPretouchHeapBytesPerGray);
  options.pretouch = false;
  ContinuousCollector lazy(options);
  EXPECT_EQ(lazy.grayStackCapacity(), 0u);
}

TEST(ContinuousCollector, ScansALongArrayAPieceAtATime) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 8;  // 8 * kMarkSlotsPerWorkUnit elements a slice
  ContinuousVm t("estranged", 4 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  constexpr std::size_t kLength = 3000;
  roots.root(t.born(vm.newArray(kLength, Value::nil())));
  Value array = vm.rootStack().back();
  for (std::size_t i = 0; i < kLength; ++i) element(array, i) = t.born(vm.newString("s" + std::to_string(i)));
  t.collector.startCycle(spaceOf(vm));
  std::uint64_t before = t.collector.incrementsRun();
  t.collector.step(spaceOf(vm));
  t.collector.step(spaceOf(vm));
  EXPECT_FALSE(ContinuousCollector::isBlack(array.asHandle())) << "two slices cannot have scanned it";
  // The last element (not scanned yet) moves to the front (scanned), its old place cleared.
  t.store(element(array, 0), element(array, kLength - 1));
  t.store(element(array, kLength - 1), Value::nil());
  runToIdle(t);
  std::size_t perSlice = 8 * ContinuousCollector::kMarkSlotsPerWorkUnit;
  EXPECT_GE(t.collector.incrementsRun() - before, kLength / perSlice) << "one piece a slice";
  EXPECT_EQ(vm.stringView(element(array, 0)), "s2999");
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), kLength + 1) << "the array, 2999 strings, and s0 (shaded when overwritten)";
  EXPECT_EQ(verifyHeap(spaceOf(vm), betweenCycles()), "");
  t.collector.startCycle(spaceOf(vm));
  runToIdle(t);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), kLength) << "s0 goes in the next cycle";
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

// The lost-object race the barrier exists for: the mutator moves the only
// reference to C from an unscanned object A into an already scanned (black) B.
TEST(ContinuousCollector, DeletionBarrierKeepsAnObjectMovedBehindTheMarker) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 1;
  ContinuousVm t("knuth", 1 << 20, options);
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 1);
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newInstance(node)));  // A
  roots.root(t.born(vm.newInstance(node)));  // B
  Value a = vm.rootStack()[vm.rootStack().size() - 2], b = vm.rootStack().back();
  Value c = t.born(vm.newString("C"));
  field(a, 0) = c;
  t.collector.startCycle(spaceOf(vm));  // A and B gray; B is on top of the gray stack
  t.collector.step(spaceOf(vm));        // scans B: black
  ASSERT_TRUE(ContinuousCollector::isBlack(b.asHandle()));
  ASSERT_TRUE(ContinuousCollector::isWhite(c.asHandle()));
  t.store(field(b, 0), c);            // into a black object: SATB needs no barrier here
  t.store(field(a, 0), Value::nil()); // the deletion: the barrier shades C
  runToIdle(t);
  ASSERT_TRUE(field(b, 0).isObject());
  EXPECT_EQ(vm.stringView(field(b, 0)), "C");
  EXPECT_EQ(verifyHeap(spaceOf(vm), betweenCycles()), "");
}

TEST(ContinuousCollector, WithoutTheBarrierTheVerifierCatchesTheLostObject) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 1;
  ContinuousVm t("knuth", 1 << 20, options);
  t.collector.setVerify(false);  // it would abort at the end of marking
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 1);
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newInstance(node)));
  roots.root(t.born(vm.newInstance(node)));
  Value a = vm.rootStack()[vm.rootStack().size() - 2], b = vm.rootStack().back();
  field(a, 0) = t.born(vm.newString("C"));
  t.collector.startCycle(spaceOf(vm));
  t.collector.step(spaceOf(vm));
  field(b, 0) = field(a, 0);
  field(a, 0) = Value::nil();  // no barrier: C is never marked
  runToIdle(t);
  EXPECT_NE(verifyHeap(spaceOf(vm), betweenCycles()).find("freed handle"), std::string::npos)
      << verifyHeap(spaceOf(vm), betweenCycles());
  field(b, 0) = Value::nil();  // drop the dangling reference before teardown
}

TEST(ContinuousCollector, ObjectsAllocatedWhileMarkingOrSweepingSurvive) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 4;
  ContinuousVm t("estranged", 1 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  for (int i = 0; i < 40; ++i) roots.root(t.born(vm.newArray(2, Value::nil())));
  for (int i = 0; i < 400; ++i) t.born(vm.newArray(2, Value::nil()));  // garbage
  t.collector.startCycle(spaceOf(vm));
  t.collector.step(spaceOf(vm));
  ASSERT_EQ(t.collector.phase(), Phase::marking);
  roots.root(t.born(vm.newString("born while marking")));  // a new root: no barrier needed
  while (t.collector.phase() == Phase::marking) t.collector.step(spaceOf(vm));
  ASSERT_EQ(t.collector.phase(), Phase::sweeping);
  roots.root(t.born(vm.newString("born while sweeping")));
  Value floating = t.born(vm.newString("garbage born while sweeping"));
  (void)floating;
  runToIdle(t);
  EXPECT_EQ(vm.stringView(vm.rootStack()[vm.rootStack().size() - 2]), "born while marking");
  EXPECT_EQ(vm.stringView(vm.rootStack().back()), "born while sweeping");
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 43u) << "the floating garbage waits for the next cycle";
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 42u);
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

TEST(ContinuousCollector, CollectMidCycleFreesEverythingUnreachable) {
  ContinuousCollectorOptions options;
  options.workPerSlice = 2;
  ContinuousVm t("tlsf", 1 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newArray(10, Value::nil())));
  for (int i = 0; i < 10; ++i) element(vm.rootStack().back(), i) = t.born(vm.newString("x"));
  t.collector.startCycle(spaceOf(vm));
  t.collector.step(spaceOf(vm));
  // Drop half the live strings mid-cycle (with the barrier): the snapshot keeps
  // them this cycle, the full collection that follows frees them.
  for (int i = 0; i < 5; ++i) t.store(element(vm.rootStack().back(), i), Value::nil());
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(t.collector.phase(), Phase::idle);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 6u);
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
}

// A heap whose marking has every kind of unit: a chain of 3000 one-field nodes (each
// a unit), two arrays of 100,000 elements (scanned in pieces), arrays of exactly
// kLongArraySlots elements (the longest scanned whole), and garbage to sweep.
void buildChainsAndArrays(ContinuousVm& t) {
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 1);
  vm.rootStack().push_back(t.born(vm.newInstance(node)));
  Value last = vm.rootStack().back();
  for (int i = 0; i < 3000; ++i) {
    Value next = t.born(vm.newInstance(node));
    field(last, 0) = next;
    last = next;
  }
  for (int i = 0; i < 2; ++i) vm.rootStack().push_back(t.born(vm.newArray(100'000, last)));
  for (int i = 0; i < 20; ++i)
    vm.rootStack().push_back(t.born(vm.newArray(ContinuousCollector::kLongArraySlots, last)));
  for (int i = 0; i < 3000; ++i) t.born(vm.newArray(3, Value::nil()));  // garbage
}

// One cycle over buildChainsAndArrays' heap, started and run to its end by hand.
struct ChainsAndArraysCycle {
  ChainsAndArraysCycle(GcPacing pacing, std::size_t workPerSlice, std::chrono::nanoseconds sliceTimeLimit)
      : t("estranged", 16 << 20, options(pacing, workPerSlice, sliceTimeLimit)), roots(t.vm()) {
    buildChainsAndArrays(t);
    t.collector.startCycle(spaceOf(t.vm()));
    std::uint64_t before = t.collector.incrementsRun();
    runToIdle(t);
    slices = t.collector.incrementsRun() - before;
  }
  static ContinuousCollectorOptions options(GcPacing pacing, std::size_t workPerSlice,
                                            std::chrono::nanoseconds sliceTimeLimit) {
    ContinuousCollectorOptions o;
    o.pacing = pacing;
    o.workPerSlice = workPerSlice;
    o.sliceTimeLimit = sliceTimeLimit;
    return o;
  }
  ContinuousVm t;
  vm::RootScope roots;
  std::uint64_t slices = 0;
};

// The most units one object costs: an array of kLongArraySlots elements, scanned whole.
constexpr std::size_t kLargestObject = ContinuousCollector::kLongArraySlots / ContinuousCollector::kMarkSlotsPerWorkUnit;

// The most one slice may do: its budget, plus what the object it was scanning when
// the budget ran out cost beyond it — never a long array or a long chain at once.
TEST(ContinuousCollector, NoSliceDoesMoreThanItsBudgetAndOneObject) {
  ChainsAndArraysCycle c(GcPacing::work, 64, ContinuousCollectorOptions{}.sliceTimeLimit);  // the budget alone
  EXPECT_LE(c.t.collector.largestSliceWork(), 64 + kLargestObject);
  EXPECT_GE(c.t.collector.largestSliceWork(), 64u);
  EXPECT_EQ(c.t.collector.statistics().objectsFreed, 3000u);
  EXPECT_EQ(verifyAfterFullCycle(c.t.vm()), "");
}

// Under time pacing a slice also stops at its time limit, read every
// kUnitsPerClockCheck units: with a limit already past at the first reading, every
// slice, marking or sweeping, stops there however large its budget, and the cycle
// still ends with the same objects freed.
TEST(ContinuousCollector, ASliceStopsAtItsTimeLimit) {
  ChainsAndArraysCycle c(GcPacing::time, 1 << 20, std::chrono::nanoseconds(1));
  // The reading comes after the unit that reached kUnitsPerClockCheck: a one-field
  // node (1 unit), a piece of a long array or an array scanned whole (128), a free (3).
  EXPECT_LE(c.t.collector.largestSliceWork(), ContinuousCollector::kUnitsPerClockCheck - 1 + kLargestObject);
  // 3000 nodes and 200,000 + 20 * 256 elements to mark: far more than one slice.
  EXPECT_GT(c.slices, (3000 + 205'120 / 2) / (ContinuousCollector::kUnitsPerClockCheck + kLargestObject));
  EXPECT_EQ(c.t.collector.statistics().objectsFreed, 3000u);
  EXPECT_EQ(verifyAfterFullCycle(c.t.vm()), "");
}

// Work pacing never reads the clock: the same limit leaves every slice its budget.
TEST(ContinuousCollector, WorkPacingIgnoresTheTimeLimit) {
  ChainsAndArraysCycle c(GcPacing::work, 1 << 20, std::chrono::nanoseconds(1));
  EXPECT_EQ(c.slices, 2u) << "one slice marks everything, one sweeps everything";
  EXPECT_EQ(c.t.collector.statistics().objectsFreed, 3000u);
}

// Under time pacing the root scan that starts a cycle is a pause like a slice: an
// allocation that spends the first slice's bytes right after it is deferred (the
// mutator gets its share after the scan too), not sliced back to back with it.
// Several tries, since the OS may preempt the test between the two.
TEST(ContinuousCollector, TheRootScanCountsForTheGovernor) {
  ContinuousCollectorOptions options;
  options.startOccupancy = 1.0;  // cycles only by hand
  ContinuousVm t("estranged", 16 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  for (int i = 0; i < 50'000; ++i) vm.rootStack().push_back(t.born(vm.newString("root")));  // a long scan
  int deferredFirst = 0;
  for (int attempt = 0; attempt < 5 && deferredFirst == 0; ++attempt) {
    t.collector.startCycle(spaceOf(vm));
    std::int64_t before = t.collector.statistics().deferredSlices;
    t.born(vm.newArray(t.collector.sliceBytes() / sizeof(Value) + 1, Value::nil()));
    deferredFirst += t.collector.statistics().deferredSlices > before;
    t.collector.finishCycle(spaceOf(vm));
  }
  EXPECT_EQ(deferredFirst, 1);
}

// The slice that ends a cycle holds the mutator up for the cycle's end too (its log
// line, here written to a stream that takes 3 ms a write): the pause recorded for it
// covers that, so no time the mutator waits goes unrecorded.
TEST(ContinuousCollector, TheLastSlicesPauseCoversTheEndOfTheCycle) {
  cookie_io_functions_t slowWrites{};
  slowWrites.write = [](void*, const char*, std::size_t size) -> ssize_t {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return static_cast<ssize_t>(size);
  };
  std::FILE* log = fopencookie(nullptr, "w", slowWrites);
  ASSERT_NE(log, nullptr);
  std::setvbuf(log, nullptr, _IONBF, 0);
  ContinuousCollectorOptions options;
  options.startOccupancy = 1.0;  // cycles only by hand
  options.log = log;
  {
    ContinuousVm t("estranged", 4 << 20, options);
    t.collector.pauseRecorder().keepAll();
    vm::VM& vm = t.vm();
    for (int i = 0; i < 1000; ++i) t.born(vm.newArray(3, Value::nil()));  // garbage
    t.collector.startCycle(spaceOf(vm));
    runToIdle(t);
    ASSERT_EQ(t.collector.statistics().cycles, 1u);
    const auto& pauses = t.collector.pauseRecorder().pauses();
    ASSERT_FALSE(pauses.empty());
    EXPECT_GE(pauses.back().end - pauses.back().begin, 3'000'000u);
  }
  std::fclose(log);
}

// Every pause is kept on both clocks with the work it did: the root scan a unit a
// root, each slice its units (at most the budget plus the last object's slots), in
// time order on each clock. (Nothing about how long they took: that is timing.)
TEST(ContinuousCollector, EveryPauseCarriesBothClocksAndItsWork) {
  ContinuousCollectorOptions options;
  options.startOccupancy = 1.0;  // cycles only by hand
  options.workPerSlice = 64;
  options.pacing = GcPacing::work;
  ContinuousVm t("estranged", 4 << 20, options);
  t.collector.pauseRecorder().keepAll();
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newArray(100, Value::nil())));
  for (int i = 0; i < 100; ++i) element(vm.rootStack().back(), i) = t.born(vm.newArray(2, Value::nil()));
  for (int i = 0; i < 2000; ++i) t.born(vm.newArray(3, Value::nil()));  // garbage
  t.collector.startCycle(spaceOf(vm));
  runToIdle(t);
  const auto& pauses = t.collector.pauseRecorder().pauses();
  ASSERT_EQ(pauses.size(), t.collector.incrementsRun());
  ASSERT_GT(pauses.size(), 3u);
  EXPECT_GT(pauses.front().work, 0u) << "the root scan: a unit a root";
  for (std::size_t i = 1; i < pauses.size(); ++i) {
    EXPECT_GT(pauses[i].work, 0u) << "slice " << i;
    EXPECT_LE(pauses[i].work, t.collector.largestSliceWork()) << "slice " << i;
    EXPECT_GE(pauses[i].begin, pauses[i - 1].end);
    EXPECT_GE(pauses[i].cpuBegin, pauses[i - 1].cpuEnd);
  }
  for (const auto& p : pauses) {
    EXPECT_LE(p.begin, p.end);
    EXPECT_LE(p.cpuBegin, p.cpuEnd);
  }
  vm::CollectorStatistics s = t.collector.statistics();
  EXPECT_GE(s.cpu.mmu[0], 0);
  EXPECT_LE(s.cpu.mmu[0], 1);
  EXPECT_GE(s.pausesLongByHost, 0);
}

// Paced by allocation as the gate will pace it, on every policy.
class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, AllocationPacedCyclesKeepTheHeapFromFilling) {
  ContinuousCollectorOptions options;
  options.startOccupancy = 0.3;
  options.workPerSlice = 256;
  options.heapBytes = 1 << 20;  // `malloc` has no arena: give it a size to pace by
  // Work pacing alone: the time governor reads the clock, and a test must not.
  options.pacing = GcPacing::work;
  ContinuousVm t(GetParam(), 1 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newArray(64, Value::nil())));
  for (int i = 0; i < 50'000; ++i) {
    Value v = t.born(vm.newArray(2, Value::integer(i)));
    if (i % 1000 == 0) t.store(element(vm.rootStack().back(), (i / 1000) % 64), v);
  }
  EXPECT_GT(t.collector.statistics().cycles, 1u);
  EXPECT_EQ(t.heap->statistics().failed_allocations, 0u);
  EXPECT_LE(t.collector.largestSweepBurst(), 256 / ContinuousCollector::kWorkUnitsPerFree + 1);
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(verifyAfterFullCycle(vm), "");
  vm.rootStack().clear();
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
}

// A cycle that needs several times the slices the last one took (the live set grew
// fivefold) catches up once its allowance is spent — a slice every quarter of the
// bytes — instead of running into a full heap and a forced completion.
TEST(ContinuousCollector, ACycleBehindPlanCatchesUp) {
  ContinuousCollectorOptions options;
  options.startOccupancy = 0.3;
  options.workPerSlice = 64;
  options.pacing = GcPacing::work;  // no clock in a test
  ContinuousVm t("estranged", 8 << 20, options);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(t.born(vm.newArray(1000, Value::nil())));
  auto garbage = [&](int count) {  // big arrays: many bytes, few handles to sweep
    for (int i = 0; i < count; ++i) t.born(vm.newArray(120, Value::nil()));
  };
  auto live = [&](int from, int to) {
    for (int i = from; i < to; ++i) t.store(element(vm.rootStack().back(), i), t.born(vm.newArray(120, Value::nil())));
  };
  live(0, 200);
  garbage(20'000);
  std::uint64_t cyclesBefore = t.collector.statistics().cycles;
  ASSERT_GT(cyclesBefore, 2u);
  live(200, 1000);
  garbage(40'000);
  EXPECT_GT(t.collector.statistics().cycles, cyclesBefore + 2);
  EXPECT_EQ(t.collector.forcedCompletions(), 0u);
  EXPECT_EQ(t.heap->statistics().failed_allocations, 0u);
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
