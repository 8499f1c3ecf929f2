// Collection interleaved with the buddy heaps' defragmentation (knuth, estranged):
// a cycle leaves holes between survivors; the next large request makes the heap
// move survivors (through the VM's relocation callback, which updates each
// object's handle). Every survivor must stay readable, with its contents, at
// whatever address it ends up.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gc_test_support.h"

namespace kith::gc::testing {
namespace {

using vm::Value;

// What a survivor must still contain: arrays hold (id, id * 3, ...), strings "id:<id>".
struct Expected {
  std::size_t pinnedIndex;
  std::int64_t id;
  bool isString;
  std::size_t length;
};

void expectIntact(vm::VM& vm, const std::vector<Expected>& survivors) {
  for (const Expected& e : survivors) {
    Value v = vm.rootStack()[e.pinnedIndex];
    ASSERT_TRUE(v.isObject());
    if (e.isString) {
      ASSERT_EQ(vm.stringView(v), "id:" + std::to_string(e.id));
    } else {
      auto* a = vm::objectAt<vm::ArrayObject>(v);
      ASSERT_EQ(a->length, e.length);
      for (std::size_t i = 0; i < e.length; ++i)
        ASSERT_EQ(a->elements()[i].asInt(), e.id * 3 + static_cast<std::int64_t>(i)) << "survivor " << e.id;
    }
  }
}

class MovingPolicy : public ::testing::TestWithParam<const char*> {};

TEST_P(MovingPolicy, SurvivorsStayReadableAcrossCollectionsAndDefragmentation) {
  constexpr std::size_t kHeap = 512 << 10;
  OccasionalCollectorOptions options;
  options.occupancyThreshold = 1;  // cycles only when asked or on failure
  TestVm t(GetParam(), kHeap, options);
  vm::VM& vm = t.vm();
  std::mt19937 random(7);
  vm::RootScope roots(vm);
  std::vector<Expected> survivors;
  std::int64_t nextId = 0;
  for (int round = 0; round < 6; ++round) {
    // Fill nearly all of the heap with small objects of mixed sizes.
    std::vector<Expected> made;
    while (t.heap->statistics().bytes_in_use < kHeap * 9 / 10) {
      std::int64_t id = nextId++;
      Expected e{vm.rootStack().size(), id, random() % 3 == 0, 0};
      if (e.isString) {
        roots.root(vm.newString("id:" + std::to_string(id)));
      } else {
        e.length = random() % 12;
        Value a = vm.newArray(e.length, Value::nil());
        for (std::size_t i = 0; i < e.length; ++i) element(a, i) = Value::integer(id * 3 + static_cast<std::int64_t>(i));
        roots.root(a);
      }
      made.push_back(e);
    }
    // Drop a random three quarters of this round's objects and half of the older
    // survivors: holes everywhere, and no large free buddy block left.
    std::vector<Expected> kept;
    for (const Expected& e : survivors) {
      if (random() % 2 == 0) kept.push_back(e);
      else vm.rootStack()[e.pinnedIndex] = Value::nil();
    }
    for (const Expected& e : made) {
      if (random() % 4 == 0) kept.push_back(e);
      else vm.rootStack()[e.pinnedIndex] = Value::nil();
    }
    survivors = std::move(kept);
    t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
    ASSERT_EQ(verifyAfterFullCycle(vm), "") << "round " << round;
    expectIntact(vm, survivors);
    // A large request that no free buddy block can serve without moving survivors.
    std::size_t bigLength = (kHeap / 8 - sizeof(vm::ArrayObject)) / sizeof(Value);
    Value big = vm.newArray(bigLength, Value::integer(-1));
    ASSERT_TRUE(big.isObject());
    ASSERT_EQ(verifyHeap(spaceOf(vm)), "") << "round " << round;
    expectIntact(vm, survivors);
    // The big array becomes garbage for the next cycle.
  }
  EXPECT_GT(t.heap->statistics().satisfied[static_cast<std::size_t>(heap::Outcome::defrag)], 0u)
      << "the test must have made the heap move objects";
  vm.rootStack().clear();
  t.collector.collect(spaceOf(vm), vm::GcCause::systemGc);
  EXPECT_EQ(spaceOf(vm).handles().liveCount(), 0u);
  EXPECT_EQ(t.heap->checkInvariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Buddy, MovingPolicy, ::testing::Values("knuth", "estranged"));

}  // namespace
}  // namespace kith::gc::testing
