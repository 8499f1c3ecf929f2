// The one sweep loop (gc/handle_sweep.h): stopped by its pace anywhere — before a
// slot, after a free — and resumed from its cursor, it frees what one sweep to the
// end frees, in the same order, and leaves the same heap.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gc/handle_sweep.h"
#include "gc/mark_sweep.h"
#include "gc_test_support.h"

namespace kith::gc::testing {
namespace {

using vm::Value;

// Stops after `visits` slots, or after the first free when `oneFree`.
struct ShortPace {
  std::size_t visits;
  bool oneFree;
  std::size_t left = visits;
  bool mayVisit() {
    if (left == 0) return false;
    --left;
    return true;
  }
  bool goesOnAfterFree() const { return !oneFree; }
};

// Instances, every third rooted, with a boxed int (a handle without a heap block) in
// every fifth; marked, ready to sweep. Returns the number of garbage objects.
std::size_t buildAndMark(TestVm& t, int objects) {
  vm::VM& vm = t.vm();
  vm::ClassInfo* node = makeClass(vm, "Node", 1);
  vm.space().boxHere();  // two VMs live: this one's boxes go to its own table
  std::size_t garbage = 0;
  for (int i = 0; i < objects; ++i) {
    Value n = vm.newInstance(node);
    if (i % 5 == 0) field(n, 0) = Value::integer((std::int64_t{1} << 60) + i);
    if (i % 3 == 0) vm.rootStack().push_back(n);
    else ++garbage;
  }
  EXPECT_EQ(t.collector.statistics().cycles, 0u) << "nothing collected before the sweep under test";
  std::vector<vm::Handle*> markStack;
  markReachable(spaceOf(vm), markStack);
  return garbage;
}

// Sweeps `t` in pieces of `pace` until done; counts the pieces in *pieces.
SweepTotals sweepInPieces(TestVm& t, ShortPace pace, std::size_t* pieces) {
  SweepTotals totals;
  SweepCursor cursor;
  *pieces = 0;
  for (bool done = false; !done; ++*pieces) {
    ShortPace piece = pace;
    std::uint64_t freedBefore = totals.objectsFreed;
    done = sweepHandles(spaceOf(t.vm()), cursor, StopTheWorldMarks{}, piece, totals);
    if (pace.oneFree) {
      EXPECT_LE(totals.objectsFreed - freedBefore, 1u);
    }
  }
  return totals;
}

void expectSameSweep(const SweepTotals& whole, TestVm& wholeVm, const SweepTotals& pieces, TestVm& piecesVm) {
  EXPECT_EQ(pieces.objectsFreed, whole.objectsFreed);
  EXPECT_EQ(pieces.bytesFreed, whole.bytesFreed);
  EXPECT_EQ(pieces.survivors, whole.survivors);
  EXPECT_EQ(piecesVm.heap->statistics().frees, wholeVm.heap->statistics().frees);
  EXPECT_EQ(piecesVm.heap->statistics().bytes_in_use, wholeVm.heap->statistics().bytes_in_use);
  EXPECT_EQ(spaceOf(piecesVm.vm()).handles().liveCount(), spaceOf(wholeVm.vm()).handles().liveCount());
  EXPECT_EQ(verifyAfterFullCycle(piecesVm.vm()), "") << "marks cleared, no garbage left";
}

TEST(HandleSweep, StoppedBeforeASlotAndResumedFreesWhatOneSweepFrees) {
  constexpr int kObjects = 3000;
  TestVm whole("estranged", 1 << 20), paced("estranged", 1 << 20);
  std::size_t garbage = buildAndMark(whole, kObjects);
  ASSERT_EQ(buildAndMark(paced, kObjects), garbage);
  SweepTotals one = sweepUnmarked(spaceOf(whole.vm()));
  EXPECT_EQ(one.objectsFreed, garbage);
  std::size_t pieces = 0;
  SweepTotals many = sweepInPieces(paced, ShortPace{7, false}, &pieces);
  EXPECT_GT(pieces, std::size_t{kObjects} / 7) << "the pace stops the sweep";
  expectSameSweep(one, whole, many, paced);
}

TEST(HandleSweep, StoppedAfterEachFreeAndResumedFreesWhatOneSweepFrees) {
  constexpr int kObjects = 3000;
  TestVm whole("knuth", 1 << 20), paced("knuth", 1 << 20);
  std::size_t garbage = buildAndMark(whole, kObjects);
  ASSERT_EQ(buildAndMark(paced, kObjects), garbage);
  SweepTotals one = sweepUnmarked(spaceOf(whole.vm()));
  std::size_t pieces = 0;
  SweepTotals many = sweepInPieces(paced, ShortPace{~std::size_t{0}, true}, &pieces);
  EXPECT_GE(pieces, garbage) << "one free a piece";
  expectSameSweep(one, whole, many, paced);
}

}  // namespace
}  // namespace kith::gc::testing
