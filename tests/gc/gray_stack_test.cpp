#include "gc/gray_stack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kith::gc {
namespace {

vm::Handle* fake(std::uintptr_t i) { return reinterpret_cast<vm::Handle*>(i * 8 + 8); }

// Last in, first out, across growth from one mapping size to the next (mremap may move
// the entries: every one must come back).
TEST(GrayStack, PopsInReverseOrderAcrossGrowth) {
  GrayStack stack;
  EXPECT_TRUE(stack.empty());
  constexpr std::uintptr_t kCount = 300'000;  // grows from 4,096 entries seven times
  for (std::uintptr_t i = 0; i < kCount; ++i) stack.push(fake(i));
  EXPECT_EQ(stack.size(), kCount);
  EXPECT_GE(stack.capacity(), kCount);
  for (std::uintptr_t i = kCount; i-- > 0;) ASSERT_EQ(stack.pop(), fake(i)) << i;
  EXPECT_TRUE(stack.empty());
}

// clear() keeps the mapping: a second cycle of the same width does not grow it.
TEST(GrayStack, ClearKeepsTheCapacity) {
  GrayStack stack;
  for (std::uintptr_t i = 0; i < 10'000; ++i) stack.push(fake(i));
  std::size_t capacity = stack.capacity();
  stack.clear();
  EXPECT_TRUE(stack.empty());
  for (std::uintptr_t i = 0; i < 10'000; ++i) stack.push(fake(i));
  EXPECT_EQ(stack.capacity(), capacity);
  EXPECT_EQ(stack.pop(), fake(9'999));
}

// reserveTouched: room for the entries without growing (its pages written once, so a
// slice later never faults one in); pushes up to that keep the capacity.
TEST(GrayStack, ReservedRoomIsUsedWithoutGrowing) {
  GrayStack stack;
  stack.reserveTouched(100'000);
  const std::size_t capacity = stack.capacity();
  EXPECT_GE(capacity, 100'000u);
  for (std::uintptr_t i = 0; i < 100'000; ++i) stack.push(fake(i));
  EXPECT_EQ(stack.capacity(), capacity);
  for (std::uintptr_t i = 100'000; i-- > 0;) ASSERT_EQ(stack.pop(), fake(i)) << i;
  stack.reserveTouched(10);  // less than it has: nothing changes
  EXPECT_EQ(stack.capacity(), capacity);
}

}  // namespace
}  // namespace kith::gc
