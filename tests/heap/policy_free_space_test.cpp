// Heap::freeSpace (heap/free_space.h): the census of free memory behind
// `kith run --frag-file`. The policies that keep free lists enumerate their free
// blocks, and the census adds up to what each policy itself says is free.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "heap/free_space.h"
#include "heap/heap.h"
#include "heap/policies.h"

namespace kith::heap {
namespace {

constexpr std::size_t kArenaBytes = 4u << 20;

TEST(FreeSpaceClass, PowerOfTwoClassesFromSixteen) {
  EXPECT_EQ(FreeSpace::classOf(1), 4u);
  EXPECT_EQ(FreeSpace::classOf(16), 4u);
  EXPECT_EQ(FreeSpace::classOf(31), 4u);
  EXPECT_EQ(FreeSpace::classOf(32), 5u);
  EXPECT_EQ(FreeSpace::classOf(4096), 12u);
  EXPECT_EQ(FreeSpace::classOf(8191), 12u);
  FreeSpace s;
  s.add(48, 3);
  s.add(4096, 1);
  s.add(0, 5);  // nothing
  EXPECT_EQ(s.freeBytes, 144u + 4096u);
  EXPECT_EQ(s.freeBlocks, 4u);
  EXPECT_EQ(s.largestFreeBlock, 4096u);
  EXPECT_EQ(s.bytesByClass[5], 144u);
  EXPECT_EQ(s.bytesByClass[12], 4096u);
}

// A fresh buddy heap is one free block; one small request splits it into one free
// block of every size from the request's block up to half the heap.
TEST(FreeSpaceBuddy, OneRequestLeavesOneFreeBlockPerLevel) {
  auto heap = makeHeap("knuth", std::size_t{1} << 20, StatisticsMode::counts);
  std::optional<FreeSpace> fresh = heap->freeSpace();
  ASSERT_TRUE(fresh && fresh->byClass);
  EXPECT_EQ(fresh->freeBytes, std::uint64_t{1} << 20);
  EXPECT_EQ(fresh->largestFreeBlock, std::uint64_t{1} << 20);
  EXPECT_EQ(fresh->bytesByClass[20], std::uint64_t{1} << 20);

  void* p = heap->malloc(100);
  ASSERT_NE(p, nullptr);
  std::size_t block = heap->getSize(p);
  unsigned k = FreeSpace::classOf(block);
  ASSERT_EQ(std::size_t{1} << k, block);
  FreeSpace s = *heap->freeSpace();
  EXPECT_EQ(s.freeBytes, (std::uint64_t{1} << 20) - block);
  EXPECT_EQ(s.largestFreeBlock, std::uint64_t{1} << 19);
  EXPECT_EQ(s.freeBlocks, 20u - k);
  for (unsigned c = k; c < 20; ++c) EXPECT_EQ(s.bytesByClass[c], std::uint64_t{1} << c) << "class " << c;
  EXPECT_EQ(s.bytesByClass[20], 0u);
}

// The census's free bytes are the policy's own freeBytes(), at every step of a
// random mix of mallocs and frees.
template <class Policy>
void expectCensusMatchesFreeBytes(const char* name) {
  Policy heap(kArenaBytes);
  std::mt19937_64 rng(7);
  std::vector<void*> live;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 5 < 3) {
      std::size_t size = 8 + rng() % (rng() % 8 == 0 ? 8000 : 200);
      if (void* p = heap.malloc(size)) live.push_back(p);
    } else {
      std::size_t i = rng() % live.size();
      heap.free(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
    if (step % 997 == 0) {
      FreeSpace s;
      heap.forEachFreeSize([&](std::size_t bytes, std::size_t count) { s.add(bytes, count); });
      ASSERT_EQ(s.freeBytes, heap.freeBytes()) << name << " at step " << step;
      std::uint64_t sum = 0;
      for (std::uint64_t b : s.bytesByClass) sum += b;
      ASSERT_EQ(sum, s.freeBytes) << name;
      ASSERT_LE(s.freeBytes, kArenaBytes) << name;
    }
  }
}

TEST(FreeSpacePolicies, CensusEqualsFreeBytes) {
  expectCensusMatchesFreeBytes<KnuthPolicy>("knuth");
  expectCensusMatchesFreeBytes<EstrangedPolicy>("estranged");
  expectCensusMatchesFreeBytes<ListPolicy>("list");
  expectCensusMatchesFreeBytes<TlsfPolicy>("tlsf");
  expectCensusMatchesFreeBytes<LeaPolicy>("lea");
  expectCensusMatchesFreeBytes<KingsleyPolicy>("kingsley");
  expectCensusMatchesFreeBytes<KingsleyCoalescingPolicy>("kingsley-coalescing");
  expectCensusMatchesFreeBytes<KingsleyBsdPolicy>("kingsley-bsd");
}

// Through the type-erased Heap, the references too: the free-list policies enumerate; every census
// keeps free + in use within the heap and the largest block within the free bytes.
TEST(FreeSpacePolicies, InvariantsThroughHeap) {
  std::vector<PolicyInfo> policies = policyList();
  policies.insert(policies.end(), referenceList().begin(), referenceList().end());
  for (const PolicyInfo& info : policies) {
    std::string name(info.name);
    auto heap = makeHeap(name, kArenaBytes, StatisticsMode::counts);
    ASSERT_NE(heap, nullptr);
    std::mt19937_64 rng(11);
    std::vector<void*> live;
    for (int step = 0; step < 5000; ++step) {
      if (live.empty() || rng() % 3 != 0) {
        if (void* p = heap->malloc(16 + rng() % 1000)) live.push_back(p);
      } else {
        std::size_t i = rng() % live.size();
        heap->free(live[i]);
        live[i] = live.back();
        live.pop_back();
      }
    }
    std::optional<FreeSpace> s = heap->freeSpace();
    bool keepsFreeLists = name == "list" || name == "knuth" || name == "estranged" || name == "tlsf" ||
                          name == "lea" || name == "kingsley" || name == "kingsley-coalescing" ||
                          name == "kingsley-bsd";
    if (keepsFreeLists) {
      ASSERT_TRUE(s && s->byClass) << name;
    }
    if (!s) {  // the system allocators: no census, and no arena that goes back whole
      for (void* p : live) heap->free(p);
      continue;
    }
    std::uint64_t inUse = heap->statistics().bytes_in_use;
    EXPECT_GT(s->freeBytes, 0u) << name;
    EXPECT_LE(s->largestFreeBlock, s->freeBytes) << name;
    if (heap->arenaSize() != 0) {
      EXPECT_LE(s->freeBytes + inUse, heap->arenaSize()) << name;
    }
    if (s->byClass) {
      std::uint64_t sum = 0;
      for (std::uint64_t b : s->bytesByClass) sum += b;
      EXPECT_EQ(sum, s->freeBytes) << name;
      EXPECT_GT(s->freeBlocks, 0u) << name;
    }
    for (void* p : live) heap->free(p);
  }
}

}  // namespace
}  // namespace kith::heap
