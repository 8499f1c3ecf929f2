// The hand-written references (heap.h's referenceList, policies.h's
// forEachReference): makeHeap builds them by name for explicit frees, apart from the
// studied policies.
#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <type_traits>

#include "heap/heap.h"
#include "heap/policies.h"

namespace kith::heap {
namespace {

// A reference, not a studied policy: makeHeap builds it and isPolicy accepts it,
// but the loops over policyList (the collector tests, the script suite) do not see it.
TEST(PolicyReferences, KingsleyBsdIsAReferenceNotAStudiedPolicy) {
  bool referenced = false;
  forEachReference([&]<class P>(std::string_view name, std::string_view) {
    referenced |= name == "kingsley-bsd" && std::is_same_v<P, KingsleyBsdHeap>;
    return false;
  });
  EXPECT_TRUE(referenced);
  for (const PolicyInfo& p : policyList()) EXPECT_NE(p.name, "kingsley-bsd");
  ASSERT_EQ(referenceList().size(), 1u);
  EXPECT_EQ(referenceList()[0].name, "kingsley-bsd");
  EXPECT_TRUE(isPolicy("kingsley-bsd"));
  EXPECT_NE(policyNames().find("kingsley-bsd"), std::string::npos);

  auto heap = makeHeap("kingsley-bsd", 1 << 20);
  ASSERT_NE(heap, nullptr);
  EXPECT_EQ(heap->name(), "kingsley-bsd");
  EXPECT_NE(heap->arenaBase(), nullptr);
  EXPECT_EQ(heap->arenaSize(), 1u << 20);
  void* p = heap->malloc(100);
  EXPECT_EQ(heap->getSize(p), 128u);
  heap->free(nullptr);
  HeapStatistics s = heap->statistics();
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.bytes_in_use, 128u);
  EXPECT_EQ(s.frees, 0u);  // free(nullptr) is not counted
  heap->free(p);
  EXPECT_EQ(heap->statistics().bytes_in_use, 0u);
  EXPECT_EQ(heap->checkInvariants(), "");
  std::optional<FreeSpace> census = heap->freeSpace();
  ASSERT_TRUE(census && census->byClass);
  EXPECT_EQ(census->freeBytes, (1u << 20) - 16);  // the header stays taken
}

}  // namespace
}  // namespace kith::heap
