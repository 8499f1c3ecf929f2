// Heap::freeFootprint (heap/free_footprint.h): what a free touches outside its block,
// which a collector's sweep prefetches ahead of the free (gc/sweep_prefetch.h). For
// the buddies it is the side table: the byte it names for a block must be the one the
// heap keeps for that block, or the sweep would prefetch the wrong line.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "heap/free_footprint.h"
#include "heap/heap.h"

namespace kith::heap {
namespace {

constexpr std::size_t kArenaBytes = std::size_t{1} << 20;

class BuddyFootprint : public testing::TestWithParam<std::string> {};

// The byte the footprint names for each live block holds that block's level (its low
// 5 bits); the next granule's byte, inside a block of more than 16 bytes, is 0.
TEST_P(BuddyFootprint, NamesEachBlocksOwnSideTableByte) {
  auto heap = makeHeap(GetParam(), kArenaBytes, StatisticsMode::counts);
  const FreeFootprint f = heap->freeFootprint();
  ASSERT_NE(f.sideTable, nullptr);
  EXPECT_EQ(f.arenaBase, heap->arenaBase());
  EXPECT_EQ(f.granuleShift, 4u);
  std::vector<void*> blocks;
  for (std::size_t size : {16, 24, 100, 1000, 5000, 40, 16})
    blocks.push_back(heap->malloc(size));
  for (void* p : blocks) {
    ASSERT_NE(p, nullptr);
    const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(p) - f.arenaBase);
    const unsigned byte = f.sideTable[offset >> f.granuleShift];
    EXPECT_EQ(std::size_t{16} << (byte & 0x1Fu), heap->getSize(p)) << offset;
    if (heap->getSize(p) > 16) EXPECT_EQ(f.sideTable[(offset >> f.granuleShift) + 1], 0u) << offset;
  }
  for (void* p : blocks) heap->free(p);
  EXPECT_EQ(heap->checkInvariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Buddies, BuddyFootprint, testing::Values("knuth", "estranged"));

// Policies whose free touches only the block and its neighbours' tags name no table.
TEST(FreeFootprint, OtherPoliciesNameNoSideTable) {
  for (const char* name : {"list", "tlsf", "lea", "kingsley", "kingsley-coalescing", "kingsley-bsd"}) {
    auto heap = makeHeap(name, kArenaBytes, StatisticsMode::counts);
    EXPECT_EQ(heap->freeFootprint().sideTable, nullptr) << name;
  }
}

}  // namespace
}  // namespace kith::heap
