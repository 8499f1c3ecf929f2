// CoalesceHeap over a minimal free structure written here, so these tests pin
// down the interface every structure sees (what is filed, what is pulled out, in
// which order) independently of `list` and `lea`.
#include "heap/layers/coalesce_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/adapters/malloc_heap.h"

namespace kith::heap {
namespace {

// A free structure that files blocks in a vector, takes the most recently filed
// one that fits, and logs every call as "+offset:bytes" (free), "-offset:bytes"
// (remove) or "take offset:bytes" (malloc).
template <class Super>
class RecordingStore : public Super {
 public:
  using Super::Super;
  void* malloc(std::size_t size) {
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
      if (Super::getSize(*it) >= size) {
        void* b = *it;
        blocks_.erase(std::next(it).base());
        log.push_back("take " + describe(b));
        return b;
      }
    }
    return Super::malloc(size);
  }
  void free(void* block) {
    blocks_.push_back(block);
    log.push_back("+" + describe(block));
  }
  void remove(void* block) {
    auto it = std::find(blocks_.begin(), blocks_.end(), block);
    ASSERT_NE(it, blocks_.end()) << "removed a block the store does not hold";
    blocks_.erase(it);
    log.push_back("-" + describe(block));
  }
  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    for (void* b : blocks_) fn(b);
  }
  std::string checkFreeStructure() const { return ""; }
  std::size_t freeBytes() const {
    std::size_t n = 0;
    for (void* b : blocks_) n += Super::getSize(b);
    return n;
  }
  std::string describe(void* b) const {
    std::string where;
    if constexpr (requires { this->arenaBase(); })
      where = std::to_string(static_cast<std::byte*>(b) - this->arenaBase());
    return where + ":" + std::to_string(Super::blockBytes(b));
  }

  std::vector<std::string> log;
  std::vector<void*> blocks_;  // public so tests can plant a bad state
};

using Heap = CoalesceHeap<RecordingStore<CoalesceableHeap<FixedArena>>>;
constexpr std::size_t kArena = 4096;
constexpr std::size_t kWhole = kArena - 32;  // the one block the arena starts as

std::vector<std::string> takeLog(Heap& h) {
  std::vector<std::string> log;
  std::swap(log, h.log);
  return log;
}

TEST(CoalesceHeap, StartsWithTheWholeArenaAsOneFreeBlock) {
  Heap h(kArena);
  EXPECT_EQ(takeLog(h), (std::vector<std::string>{"+32:" + std::to_string(kWhole)}));
  EXPECT_EQ(h.freeBytes(), kWhole - 8);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(CoalesceHeap, MallocSplitsTheFoundBlockAndFilesTheRest) {
  Heap h(kArena);
  takeLog(h);
  void* a = h.malloc(40);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(Heap::getSize(a), 40u);
  EXPECT_EQ(takeLog(h), (std::vector<std::string>{"take 32:" + std::to_string(kWhole),
                                                 "+80:" + std::to_string(kWhole - 48)}));
  EXPECT_FALSE(Heap::isFree(a));
  EXPECT_EQ(h.checkInvariants(), "");
}

// A structure that tells the rest of a split from a free (fileSplitRest, as
// SegregatedListHeap counts it among the malloc's steps) gets the rest that way.
template <class Super>
class RestRecordingStore : public RecordingStore<Super> {
 public:
  using RecordingStore<Super>::RecordingStore;
  void fileSplitRest(void* rest) {
    this->blocks_.push_back(rest);
    this->log.push_back("rest " + this->describe(rest));
  }
};

TEST(CoalesceHeap, TheRestOfASplitGoesToFileSplitRestWhereTheStructureHasIt) {
  CoalesceHeap<RestRecordingStore<CoalesceableHeap<FixedArena>>> h(kArena);
  h.log.clear();
  void* a = h.malloc(40);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.log, (std::vector<std::string>{"take 32:" + std::to_string(kWhole),
                                             "rest 80:" + std::to_string(kWhole - 48)}));
  h.log.clear();
  h.free(a);  // a free is still a free: merged with the rest, filed whole
  EXPECT_EQ(h.log, (std::vector<std::string>{"-80:" + std::to_string(kWhole - 48), "+32:" + std::to_string(kWhole)}));
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(CoalesceHeap, ABlockThatFitsWithoutARemainderIsImmediate) {
  Heap h(kArena);
  void* a = h.malloc(40);
  void* guard = h.malloc(16);
  h.free(a);
  takeLog(h);
  void* b = h.malloc(36);  // 48-byte block: an exact fit
  EXPECT_EQ(b, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(takeLog(h), (std::vector<std::string>{"take 32:48"}));
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(guard);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Blocks a | b | c | d | rest, each 64 bytes, all in use.
struct FourBlocks {
  Heap h{kArena};
  void* a = h.malloc(56);
  void* b = h.malloc(56);
  void* c = h.malloc(56);
  void* d = h.malloc(56);
  FourBlocks() { takeLog(h); }
};

TEST(CoalesceHeap, FreeWithNoFreeNeighbourFilesTheBlockAsItIs) {
  FourBlocks f;
  f.h.free(f.b);
  EXPECT_EQ(takeLog(f.h), (std::vector<std::string>{"+96:64"}));
  EXPECT_TRUE(Heap::isFree(f.b));
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(CoalesceHeap, FreeMergesWithAFreeLeftNeighbour) {
  FourBlocks f;
  f.h.free(f.a);
  f.h.free(f.b);
  EXPECT_EQ(takeLog(f.h), (std::vector<std::string>{"+32:64", "-32:64", "+32:128"}));
  EXPECT_EQ(Heap::blockAfter(f.a), f.c);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(CoalesceHeap, FreeMergesWithAFreeRightNeighbour) {
  FourBlocks f;
  f.h.free(f.c);
  f.h.free(f.b);
  EXPECT_EQ(takeLog(f.h), (std::vector<std::string>{"+160:64", "-160:64", "+96:128"}));
  EXPECT_EQ(Heap::blockAfter(f.b), f.d);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(CoalesceHeap, FreeMergesWithBothNeighbours) {
  FourBlocks f;
  f.h.free(f.a);
  f.h.free(f.c);
  takeLog(f.h);
  f.h.free(f.b);
  EXPECT_EQ(takeLog(f.h), (std::vector<std::string>{"-32:64", "-160:64", "+32:192"}));
  EXPECT_EQ(Heap::blockBytes(f.a), 192u);
  EXPECT_EQ(Heap::blockAfter(f.a), f.d);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(CoalesceHeap, FreeingEverythingRestoresTheOneArenaBlock) {
  FourBlocks f;
  for (void* p : {f.c, f.a, f.d, f.b}) {
    f.h.free(p);
    EXPECT_EQ(f.h.checkInvariants(), "");
  }
  ASSERT_EQ(f.h.blocks_.size(), 1u);
  EXPECT_EQ(f.h.blocks_[0], f.a);
  EXPECT_EQ(Heap::blockBytes(f.a), kWhole);
  EXPECT_EQ(Heap::blockAfter(f.a), nullptr);
  f.h.free(nullptr);  // a no-op
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(CoalesceHeap, OutOfMemoryIsNullAndFailed) {
  Heap h(kArena);
  EXPECT_EQ(h.malloc(kArena), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  void* all = h.malloc(kWhole - 8);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.malloc(0), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(all);
  EXPECT_EQ(h.freeBytes(), kWhole - 8);
  Heap none(16);  // not even the overhead fits
  EXPECT_EQ(none.malloc(1), nullptr);
  EXPECT_EQ(none.checkInvariants(), "");
}

TEST(CoalesceHeap, CheckInvariantsCatchesAStructureThatLostOrDuplicatedABlock) {
  FourBlocks f;
  f.h.free(f.b);
  ASSERT_EQ(f.h.checkInvariants(), "");
  f.h.blocks_.push_back(f.b);
  EXPECT_NE(f.h.checkInvariants().find("twice"), std::string::npos) << f.h.checkInvariants();
  f.h.blocks_.pop_back();
  f.h.blocks_.erase(std::find(f.h.blocks_.begin(), f.h.blocks_.end(), f.b));
  EXPECT_NE(f.h.checkInvariants(), "");  // a free block no one holds
  f.h.blocks_.push_back(f.c);            // an in-use block filed as free
  EXPECT_NE(f.h.checkInvariants().find("not a free block"), std::string::npos);
  f.h.blocks_.back() = f.b;
  EXPECT_EQ(f.h.checkInvariants(), "");
  Heap::markFree(f.c);  // b and c both free but not merged
  f.h.blocks_.push_back(f.c);
  EXPECT_NE(f.h.checkInvariants().find("adjacent"), std::string::npos);
}

// Over a growable top heap there is no arena to start from: the first malloc
// takes a fresh chunk, just big enough, from the structure's miss path.
TEST(CoalesceHeap, OverAGrowableHeapChunksComeFromTheMissPath) {
  CoalesceHeap<RecordingStore<CoalesceableHeap<MallocHeap>>> h;
  EXPECT_TRUE(h.log.empty());
  void* a = h.malloc(100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  void* b = h.malloc(100);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(a);
  EXPECT_EQ(h.malloc(90), a);
  h.free(a);
  h.free(b);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), 2 * (decltype(h)::blockBytesFor(100) - 8));
}

}  // namespace
}  // namespace kith::heap
