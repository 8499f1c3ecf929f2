#include "heap/buddy/buddy_live_summary.h"

#include <gtest/gtest.h>

#include <vector>

#include "heap/buddy/buddy_block_table.h"
#include "heap/buddy/estranged_buddy_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/buddy/knuth_buddy_heap.h"
#include "heap/workload.h"

namespace kith::heap {
namespace {

TEST(BuddyLiveSummary, CountsTheLiveBlocksBelowLevel8OfEachRegion) {
  BuddyLiveSummary s(4096);  // 64 KiB: 16 regions of 256 granules, and one for a tail
  EXPECT_EQ(s.regions(), 17u);
  EXPECT_EQ(s.bytes(), 17u * 2);
  s.addLive(17, 0);  // a 16-byte block at granule 17
  EXPECT_EQ(s.count(0), 1u);
  EXPECT_EQ(s.count(255), 1u);  // any granule of the region
  EXPECT_EQ(s.count(256), 0u);
  s.addLive(256 + 128, 7);  // the largest block counted: half a region
  EXPECT_EQ(s.count(256), 128u);
  s.addLive(512, 8);  // a block of level 8 is a whole region: it counts nowhere
  s.addLive(1024, 10);
  EXPECT_EQ(s.count(512), 0u);
  EXPECT_EQ(s.count(1024), 0u);
  for (std::size_t g = 256; g < 384; ++g) s.addLive(g, 0);  // a full region: 256
  EXPECT_EQ(s.count(256), 256u);
  EXPECT_NE(s.check([](std::size_t) { return std::size_t{0}; }), "");
  for (std::size_t g = 256; g < 384; ++g) s.removeLive(g, 0);
  s.removeLive(17, 0);
  s.removeLive(256 + 128, 7);
  s.removeLive(512, 8);
  s.removeLive(1024, 10);
  EXPECT_EQ(s.check([](std::size_t) { return std::size_t{0}; }), "");
}

// The live granules of every region of every level, from the side table alone.
std::size_t liveByWalking(const BuddyBlockTable& t, std::size_t region, unsigned level) {
  std::size_t live = 0;
  t.forEachBlock([&](std::size_t off, unsigned l, BuddyState s) {
    const std::size_t end = region + BuddyBlockTable::blockBytes(level);
    const std::size_t blockEnd = off + BuddyBlockTable::blockBytes(l);
    if (s != BuddyState::busy || blockEnd <= region || off >= end) return;
    live += (std::min(end, blockEnd) - std::max(region, off)) / 16;
  });
  return live;
}

// Random malloc/free on a heap whose arena is not a power of two (maximal blocks
// 64 KiB | 32 KiB | 16 KiB | ... ): after each operation the table's invariant
// (which includes the summary against the busy blocks) holds, and every so often
// liveGranules answers for every region of every level what walking says.
template <class Heap>
void randomRunAgreesWithTheSideTable() {
  Heap h(112 * 1024 + 48);
  BuddyBlockTable& t = h.blockTable();
  SeededRandom rng(7);
  std::vector<void*> live;
  for (int op = 0; op < 4000; ++op) {
    if (!live.empty() && rng.chance(45)) {
      const std::size_t i = rng.below(live.size());
      h.free(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else if (void* p = h.malloc(std::size_t{16} << (rng.chance(80) ? rng.below(3) : rng.below(11)))) {
      live.push_back(p);
    }
    ASSERT_EQ(h.checkInvariants(), "") << "op " << op;
    if (op % 250 != 0) continue;
    for (unsigned level = 0; level <= t.topLevel(); ++level)
      for (std::size_t i = 0; i < t.regionCount(level); ++i) {
        const std::size_t region = i * BuddyBlockTable::blockBytes(level);
        if (t.stateAt(region) == BuddyState::none) continue;  // inside a larger block: not asked
        std::size_t reads = 0;
        ASSERT_EQ(t.liveGranules(region, level, reads), liveByWalking(t, region, level))
            << "op " << op << ", region " << region << " of level " << level;
        ASSERT_LE(reads, BuddyBlockTable::regionReadBound(level));
      }
  }
}

TEST(BuddyLiveSummary, KnuthKeepsItExact) { randomRunAgreesWithTheSideTable<KnuthBuddyHeap<FixedArena>>(); }
TEST(BuddyLiveSummary, EstrangedKeepsItExact) { randomRunAgreesWithTheSideTable<EstrangedBuddyHeap<FixedArena>>(); }

TEST(BuddyLiveSummary, TheCheckerSeesABlockMarkedBusyBehindItsBack) {
  KnuthBuddyHeap<FixedArena> h(64 * 1024);
  void* p = h.malloc(16);
  ASSERT_EQ(h.checkInvariants(), "");
  BuddyBlockTable& t = h.blockTable();
  t.removeLive(t.offsetOf(p), 0);  // the summary forgets a live block
  EXPECT_NE(h.checkInvariants().find("live summary"), std::string::npos) << h.checkInvariants();
  t.addLive(t.offsetOf(p), 0);
  EXPECT_EQ(h.checkInvariants(), "");
  t.setHeld(t.offsetOf(p), 0);  // a held block outside a defragmentation
  EXPECT_NE(h.checkInvariants().find("held"), std::string::npos) << h.checkInvariants();
  t.setBusy(t.offsetOf(p), 0);
  h.free(p);
  EXPECT_EQ(h.checkInvariants(), "");
}

}  // namespace
}  // namespace kith::heap
