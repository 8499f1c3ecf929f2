// Objects on a moving heap (knuth's buddy defragmentation) stay readable through
// their handles: moving an object updates its handle and nothing else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vm/object.h"
#include "vm_test_support.h"

namespace kith::vm {
namespace {

std::string expectedText(std::size_t i) { return "object-" + std::to_string(i); }

TEST(Relocation, DefragmentationMovesObjectsAndHandlesFollow) {
  testing::TestVM t("knuth", 64 * 1024);
  VM& vm = t.vm();
  RootScope roots(vm);

  // Fill the heap with small strings (64-byte buddy blocks) until it is full.
  std::vector<Handle*> strings;
  for (std::size_t i = 0;; ++i) {
    try {
      Value s = vm.newString(expectedText(i));
      roots.root(s);
      strings.push_back(s.asHandle());
    } catch (const KithThrow&) {
      vm.clearException();
      break;
    }
  }
  ASSERT_GT(strings.size(), 200u);
  // Free every other string: half the space is free, but only in 64-byte holes
  // whose buddies are busy, so no larger block exists without moving something.
  std::vector<std::size_t> survivors;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    if (i % 2 == 0) testing::spaceOf(vm).freeObject(strings[i]);
    else survivors.push_back(i);
  }
  auto addressOf = [&](std::size_t i) { return strings[i]->object; };
  std::vector<void*> before;
  for (std::size_t i : survivors) before.push_back(addressOf(i));

  std::uint64_t defragsBefore = t.heap().statistics().satisfied[static_cast<int>(heap::Outcome::defrag)];
  // An array (984 bytes: a 1024-byte block) that only defragmentation can place;
  // it refers to some survivors, so references are checked through it too.
  Value array = vm.newArray(60, Value::nil());
  roots.root(array);
  for (std::size_t k = 0; k < 60; ++k) objectAt<ArrayObject>(array)->elements()[k] = Value::object(strings[survivors[k]]);
  EXPECT_GT(t.heap().statistics().satisfied[static_cast<int>(heap::Outcome::defrag)], defragsBefore);

  std::size_t moved = 0;
  for (std::size_t k = 0; k < survivors.size(); ++k) {
    Handle* h = strings[survivors[k]];
    if (h->object != before[k]) ++moved;
    auto* header = static_cast<ObjectHeader*>(h->object);
    EXPECT_EQ(header->handle, h) << "the header's back-pointer names the handle";
    EXPECT_EQ(objectAt<StringObject>(h)->view(), expectedText(survivors[k]));
    EXPECT_GE(static_cast<std::byte*>(h->object), t.heap().arenaBase());
    EXPECT_LT(static_cast<std::byte*>(h->object), t.heap().arenaBase() + t.heap().arenaSize());
  }
  EXPECT_GT(moved, 0u) << "defragmentation should have moved some strings";
  for (std::size_t k = 0; k < 60; ++k)
    EXPECT_EQ(vm.stringView(objectAt<ArrayObject>(array)->elements()[k]), expectedText(survivors[k]));
  EXPECT_EQ(t.heap().checkInvariants(), "");
}

TEST(Relocation, ScriptStateSurvivesMoves) {
  // The same on estranged, driven from script code after native frees: a program
  // keeps working (reads its closures, instances and strings) after objects move.
  testing::TestVM t("estranged", 64 * 1024);
  VM& vm = t.vm();
  RootScope roots(vm);
  std::vector<Handle*> garbage;
  for (int i = 0;; ++i) {
    try {
      Value s = vm.newString("g" + std::to_string(i));
      roots.root(s);
      garbage.push_back(s.asHandle());
    } catch (const KithThrow&) {
      vm.clearException();
      break;
    }
  }
  for (std::size_t i = 0; i < garbage.size(); i += 2) testing::spaceOf(vm).freeObject(garbage[i]);
  auto r = t.run(R"(
    class P { field x, y; init(x, y) { this.x = x; this.y = y; } sum() { return this.x + this.y; } }
    let p = new P(1, 2);
    let big = new Array(100, p);
    print(p.sum(), big[99].sum(), big.length);
  )");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "3 3 100\n");
  for (std::size_t i = 1; i < garbage.size(); i += 2)
    EXPECT_EQ(objectAt<StringObject>(garbage[i])->view(), "g" + std::to_string(i));
}

}  // namespace
}  // namespace kith::vm
