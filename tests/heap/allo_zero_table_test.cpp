// ZeroTable (allo_zero_table.h): entries start empty and keep what is written; its
// memory is resident only where written, so the Allotheque side tables of a 16 GiB
// arena -- Defero's per-page buckets of every size class, the page size table --
// cost what a program uses, not the arena's size (once 2.2 GiB at start-up).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <utility>

#include "heap/allotheque/allo_chunk_list.h"
#include "heap/allotheque/allo_hash_partition.h"
#include "heap/allotheque/allo_list_partition.h"
#include "heap/allotheque/allo_ordered_partition.h"
#include "heap/allotheque/allo_zero_table.h"
#include "heap/layers/fixed_arena.h"

namespace kith::heap::allotheque {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kSixteenGiB = std::size_t{16} << 30;

// This process's resident bytes now (/proc/self/statm's second field, in pages).
std::size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(AlloZeroTable, StartsEmptyAndKeepsWrites) {
  ZeroTable<ChunkList> lists(1000);
  ZeroTable<std::uint32_t> sizes(5000);
  EXPECT_EQ(lists.size(), 1000u);
  for (const ChunkList& l : lists) EXPECT_TRUE(l.empty());
  for (std::uint32_t s : sizes) EXPECT_EQ(s, 0u);
  sizes[4321] = 77;
  ZeroTable<std::uint32_t> moved = std::move(sizes);
  EXPECT_EQ(moved[4321], 77u);
  EXPECT_EQ(moved.size(), 5000u);
  EXPECT_EQ(sizes.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from table is empty
  EXPECT_EQ(ZeroTable<std::uint64_t>(0).size(), 0u);
}

TEST(AlloZeroTable, CostsOnlyThePagesWritten) {
  const std::size_t before = residentBytes();
  ZeroTable<std::uint64_t> table(std::size_t{1} << 30);  // 8 GiB reserved
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < table.size(); i += table.size() / 64) sum += table[i];  // reads: the zero page
  for (std::size_t i = 0; i < 16; ++i) table[i * 4096] = i;  // 16 pages written
  EXPECT_EQ(sum, 0u);
  EXPECT_LT(residentBytes() - before, 4 * kMiB);
}

// Velox's and Defero's partitions over a 16 GiB arena: built, a page carved and a
// chunk handed out, still a few MiB resident.
TEST(AlloZeroTable, AllothequeTablesOfAHugeArenaCostWhatIsUsed) {
  FixedArena arena(kSixteenGiB);
  const std::size_t before = residentBytes();
  Context ctx(arena.arenaBase(), arena.arenaSize());
  using Velox = HashPartition<KBit<16>, ListPartition<Size, Match>, MatchLastFirst, true>;
  using Defero = HashPartition<SegregatedSize, OrderedPartition<Page, ChunkList, MatchNext>, Match>;
  Velox velox(ctx);
  Defero defero(ctx);
  std::byte* page = static_cast<std::byte*>(arena.malloc(kPageBytes));
  ctx.setPageSize(ctx.pageOf(page), 16);
  for (std::size_t i = 0; i < kPageBytes / 16; ++i) defero.deallocate(page + i * 16, {16, page + i * 16}, ctx);
  EXPECT_NE(defero.allocate({16, nullptr}, ctx), nullptr);
  EXPECT_EQ(defero.count(), kPageBytes / 16 - 1);
  EXPECT_TRUE(velox.empty());
  EXPECT_LT(residentBytes() - before, 8 * kMiB);
}

}  // namespace
}  // namespace kith::heap::allotheque
