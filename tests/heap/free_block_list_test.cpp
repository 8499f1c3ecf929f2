#include "heap/layers/free_block_list.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::heap {
namespace {

struct alignas(16) Block {
  std::byte bytes[32];
};

std::vector<void*> contents(const FreeBlockList& list) {
  std::vector<void*> out;
  for (FreeBlockList::Node* n = list.head(); n; n = n->next) out.push_back(n);
  return out;
}

TEST(FreeBlockList, PushesAtTheHeadAndRemovesFromAnywhere) {
  Block b[4];
  FreeBlockList list;
  EXPECT_TRUE(list.empty());
  for (Block& x : b) list.pushFront(&x);
  EXPECT_EQ(list.count(), 4u);
  EXPECT_EQ(contents(list), (std::vector<void*>{&b[3], &b[2], &b[1], &b[0]}));
  list.remove(&b[2]);  // middle
  list.remove(&b[3]);  // head
  list.remove(&b[0]);  // tail
  EXPECT_EQ(contents(list), (std::vector<void*>{&b[1]}));
  EXPECT_EQ(list.checkLinks(), "");
  list.remove(&b[1]);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.count(), 0u);
  EXPECT_EQ(list.checkLinks(), "");
}

TEST(FreeBlockList, CheckLinksCatchesBrokenBackLinksAndLoops) {
  Block b[3];
  FreeBlockList list;
  for (Block& x : b) list.pushFront(&x);
  ASSERT_EQ(list.checkLinks(), "");
  auto* middle = reinterpret_cast<FreeBlockList::Node*>(&b[1]);
  FreeBlockList::Node* savedPrev = middle->prev;
  middle->prev = nullptr;
  EXPECT_NE(list.checkLinks().find("back link"), std::string::npos);
  middle->prev = savedPrev;
  auto* tail = reinterpret_cast<FreeBlockList::Node*>(&b[0]);
  tail->next = middle;  // a loop
  EXPECT_NE(list.checkLinks(), "");
  tail->next = nullptr;
  EXPECT_EQ(list.checkLinks(), "");
}

}  // namespace
}  // namespace kith::heap
