#include "vm/handle_table.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace kith::vm {
namespace {

ClassInfo* fakeClass() { return reinterpret_cast<ClassInfo*>(std::uintptr_t{0x1000}); }

TEST(HandleTable, AllocateHoldsObjectAndClass) {
  HandleTable table;
  int object;
  Handle* h = table.allocate(&object, fakeClass());
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->object, &object);
  EXPECT_EQ(h->klass, fakeClass());
  EXPECT_EQ(h->gcBits, 0u);
  EXPECT_EQ(table.liveCount(), 1u);
  EXPECT_TRUE(table.owns(h));
}

TEST(HandleTable, ReleasedHandlesAreRecycledFirst) {
  HandleTable table;
  int object;
  Handle* a = table.allocate(&object, fakeClass());
  Handle* b = table.allocate(&object, fakeClass());
  a->gcBits = 7;
  table.release(a);
  EXPECT_EQ(table.liveCount(), 1u);
  Handle* c = table.allocate(&object, fakeClass());
  EXPECT_EQ(c, a);            // LIFO free list
  EXPECT_EQ(c->gcBits, 0u);   // collector state starts clear
  EXPECT_NE(c, b);
  EXPECT_EQ(table.chunkCount(), 1u);
}

TEST(HandleTable, GrowsByChunksAndReportsItsBytes) {
  HandleTable table;
  int object;
  std::set<Handle*> seen;
  const std::size_t n = HandleTable::kHandlesPerChunk * 2 + 5;
  for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(seen.insert(table.allocate(&object, fakeClass())).second);
  EXPECT_EQ(table.chunkCount(), 3u);
  EXPECT_EQ(table.capacity(), 3 * HandleTable::kHandlesPerChunk);
  EXPECT_EQ(table.bytesReserved(), 3 * HandleTable::kHandlesPerChunk * sizeof(Handle));
  EXPECT_EQ(table.liveCount(), n);
}

TEST(HandleTable, ForEachLiveSkipsFreeHandles) {
  HandleTable table;
  int object;
  std::vector<Handle*> handles;
  for (int i = 0; i < 10; ++i) handles.push_back(table.allocate(&object, fakeClass()));
  for (int i = 0; i < 10; i += 2) table.release(handles[i]);
  std::set<Handle*> live;
  table.forEachLive([&](Handle* h) { live.insert(h); });
  EXPECT_EQ(live.size(), 5u);
  for (int i = 1; i < 10; i += 2) EXPECT_TRUE(live.count(handles[i]));
  // Recycling after release does not add chunks.
  for (int i = 0; i < 5; ++i) table.allocate(&object, fakeClass());
  EXPECT_EQ(table.chunkCount(), 1u);
}

}  // namespace
}  // namespace kith::vm
