// The object space a VM gets for its heap, the roots it reports to a collector,
// and exhaustion of the handle table, which is Kith's out-of-memory error like
// every other exhaustion.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "vm/collected_heap_space.h"
#include "vm/handle_table_space.h"
#include "vm_test_support.h"

namespace kith::vm {
namespace {

// Holds the VM's handle table to one chunk more than it has: a loop that keeps
// every box it makes then runs out of handles within about a thousand boxes.
void leaveFewHandles(VM& vm) {
  HandleTable& handles = testing::spaceOf(vm).handles();
  handles.setChunkLimit(handles.chunkCount() + 1);
}

constexpr const char* kBoxForever =
    "let big = 1000000000000000;\n"  // past 48 bits: every sum below is a new box
    "let i = 0;\n"
    "let last = nil;\n"
    "fn boxForever() { while (true) { last = big + i; i = i + 1; } }\n";

TEST(ObjectSpace, RunningOutOfBoxHandlesIsACatchableOutOfMemory) {
  testing::TestVM t;
  leaveFewHandles(t.vm());
  testing::RunOutcome r = t.run(std::string(kBoxForever) +
                                "try { boxForever(); } catch (e) { print(e.message); }\n"
                                "print(i > 500);\n");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "out of memory\ntrue\n") << "the preallocated error: no handle is left for a new one";
}

TEST(ObjectSpace, RunningOutOfBoxHandlesUncaughtNamesTheBoxesRequest) {
  testing::TestVM t;
  leaveFewHandles(t.vm());
  testing::RunOutcome r = t.run(std::string(kBoxForever) + "boxForever();\n");
  EXPECT_EQ(r.error, "out of memory: requested " + std::to_string(sizeof(Handle)) + " bytes");
}

TEST(ObjectSpace, APolicyHeapGetsAHandleTable) {
  testing::TestVM t;
  ASSERT_NE(dynamic_cast<HandleTableSpace*>(&t.vm().space()), nullptr);
  std::size_t live = t.vm().space().handles().liveCount();
  t.vm().newString("one more");
  EXPECT_EQ(t.vm().space().handles().liveCount(), live + 1);
}

TEST(ObjectSpace, ReportsTheMutatorsRootsToACollector) {
  testing::TestVM t;
  RootScope roots(t.vm());
  Value pinned = roots.root(t.vm().newString("pinned"));
  std::vector<const Handle*> seen;
  t.vm().space().forEachRoot([&](const Value& v) {
    if (v.isObject()) seen.push_back(v.asHandle());
  });
  EXPECT_NE(std::find(seen.begin(), seen.end(), pinned.asHandle()), seen.end());
}

TEST(ObjectSpace, AHeapThatCollectsItselfGetsTheCollectedHeapSpace) {
  if (!heap::isPolicy("boehm")) GTEST_SKIP() << "this build has no boehm";
  testing::TestVM t("boehm");
  ASSERT_NE(dynamic_cast<CollectedHeapSpace*>(&t.vm().space()), nullptr);
  std::uint64_t made = t.vm().space().objectsCreated();
  testing::RunOutcome r = t.run("let s = \"a\" + \"b\"; print(s); print(1000000000000000 + 1);");
  EXPECT_EQ(r.out, "ab\n1000000000000001\n");
  EXPECT_GT(t.vm().space().objectsCreated(), made);
  EXPECT_EQ(t.vm().space().handles().liveCount(), 0u) << "each handle is in its object's block";
}

}  // namespace
}  // namespace kith::vm
