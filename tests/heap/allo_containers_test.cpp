// Allotheque containers: the element lists (allo_chunk_list.h), the list of
// classes (allo_list_partition.h), the hash table with and without its sparse
// layer and the ordered map (allo_hash_partition.h, allo_ordered_partition.h),
// alone and nested, against a simple model, with each one's check().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "heap/allotheque/allo_chunk_list.h"
#include "heap/allotheque/allo_hash_partition.h"
#include "heap/allotheque/allo_list_partition.h"
#include "heap/allotheque/allo_ordered_partition.h"

namespace kith::heap::allotheque {
namespace {

// A 256 KiB arena; page p is carved into chunks of size 16 * (1 + p % 4).
struct Arena {
  std::vector<std::byte> bytes = std::vector<std::byte>((1 << 18) + 4096);
  std::byte* base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(bytes.data()) + 4095) & ~std::uintptr_t{4095});
  Context ctx{base, 1 << 18};
  Arena() {
    for (std::size_t p = 0; p < ctx.pages(); ++p) ctx.setPageSize(p, 16 * (1 + p % 4));
  }
  std::vector<void*> chunks() {
    std::vector<void*> all;
    for (std::size_t p = 0; p < ctx.pages(); ++p) {
      std::size_t s = ctx.sizeOf(base + p * 4096);
      for (std::size_t o = 0; o + s <= 4096; o += s) all.push_back(base + p * 4096 + o);
    }
    return all;
  }
};

TEST(AlloChunkList, LastInFirstOut) {
  Arena a;
  ChunkList l;
  Request r{16, nullptr};
  EXPECT_EQ(l.allocate(r, a.ctx), nullptr);
  l.deallocate(a.base, r, a.ctx);
  l.deallocate(a.base + 16, r, a.ctx);
  EXPECT_EQ(l.count(), 2u);
  EXPECT_EQ(l.check(a.ctx), "");
  EXPECT_EQ(l.allocate(r, a.ctx), a.base + 16);
  EXPECT_EQ(l.allocate(r, a.ctx), a.base);
  EXPECT_TRUE(l.empty());
}

TEST(AlloChunkDList, RemovesAnyChunkInConstantTime) {
  Arena a;
  ChunkDList l;
  Request r{16, nullptr};
  for (int i = 0; i < 4; ++i) l.deallocate(a.base + 16 * i, r, a.ctx);
  l.remove(a.base + 32);  // middle
  l.remove(a.base + 48);  // head
  l.remove(a.base);       // tail
  EXPECT_EQ(l.check(a.ctx), "");
  EXPECT_EQ(l.count(), 1u);
  EXPECT_EQ(l.allocate(r, a.ctx), a.base + 16);
  EXPECT_TRUE(l.empty());
  EXPECT_EQ(l.check(a.ctx), "");
}

TEST(AlloListPartition, ChunksOfASizeComeFromTheirClassOnly) {
  Arena a;
  ListPartition<Size, Match> sizes;
  sizes.deallocate(a.base, {16, a.base}, a.ctx);                  // page 0: 16
  sizes.deallocate(a.base + 4096, {32, nullptr}, a.ctx);           // page 1: 32
  sizes.deallocate(a.base + 16, {16, nullptr}, a.ctx);
  EXPECT_EQ(sizes.check(a.ctx), "");
  EXPECT_EQ(sizes.count(), 3u);
  EXPECT_EQ(sizes.allocate({48, nullptr}, a.ctx), nullptr);  // no such class
  EXPECT_EQ(sizes.allocate({32, nullptr}, a.ctx), a.base + 4096);
  EXPECT_EQ(sizes.allocate({32, nullptr}, a.ctx), nullptr);  // emptied and unlinked
  void* x = sizes.allocate({16, nullptr}, a.ctx);
  void* y = sizes.allocate({16, nullptr}, a.ctx);
  EXPECT_EQ(std::set<void*>({x, y}), std::set<void*>({a.base, a.base + 16}));
  EXPECT_TRUE(sizes.empty());
  EXPECT_EQ(sizes.check(a.ctx), "");
}

// A nested partition under random traffic: every chunk given out satisfies the
// request's attributes, nothing is lost or duplicated, check() holds throughout.
template <class P, class Ok>
void randomTraffic(Arena& a, P& p, Ok&& ok, std::uint32_t seed) {
  std::vector<void*> all = a.chunks(), out;
  std::mt19937 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  for (void* c : all) p.deallocate(c, {a.ctx.sizeOf(c), c}, a.ctx);
  ASSERT_EQ(p.check(a.ctx), "");
  ASSERT_EQ(p.count(), all.size());
  std::set<void*> held(all.begin(), all.end());
  for (int i = 0; i < 20000; ++i) {
    if (out.empty() || rng() % 2) {
      std::size_t size = 16 * (1 + rng() % 4);
      const void* hint = a.base + rng() % (1 << 18);
      void* c = p.allocate({size, hint}, a.ctx);
      if (!c) continue;
      ASSERT_TRUE(held.erase(c)) << "a chunk not held, or held twice";
      ok(c, size, hint);
      out.push_back(c);
    } else {
      std::size_t i2 = rng() % out.size();
      void* c = out[i2];
      out[i2] = out.back();
      out.pop_back();
      p.deallocate(c, {a.ctx.sizeOf(c), c}, a.ctx);
      held.insert(c);
    }
    if (i % 1000 == 0) {
      ASSERT_EQ(p.check(a.ctx), "") << i;
    }
  }
  ASSERT_EQ(p.count(), held.size());
}

TEST(AlloHashPartition, VeloxShapeGivesTheHintsKClassWhenItHasTheSize) {
  Arena a;
  using Velox = HashPartition<KBit<14>, ListPartition<Size, Match>, MatchLastFirst, true>;
  Velox p(a.ctx);
  randomTraffic(a, p, [&](void* c, std::size_t size, const void* hint) {
    EXPECT_EQ(a.ctx.sizeOf(c), size);
    (void)hint;
  }, 1);
}

TEST(AlloHashPartition, DenseAndSparseAgree) {
  Arena a, b;
  HashPartition<SKBit<12, 3>, ListPartition<Size, Match>, MatchFirst, false> dense(a.ctx);
  HashPartition<SKBit<12, 3>, ListPartition<Size, Match>, MatchFirst, true> sparse(b.ctx);
  std::vector<std::ptrdiff_t> fromDense, fromSparse;
  randomTraffic(a, dense, [&](void* c, std::size_t, const void*) { fromDense.push_back(static_cast<std::byte*>(c) - a.base); }, 7);
  randomTraffic(b, sparse, [&](void* c, std::size_t, const void*) { fromSparse.push_back(static_cast<std::byte*>(c) - b.base); }, 7);
  EXPECT_EQ(fromDense, fromSparse);  // same offsets chosen: the sparse layer only skips faster
}

TEST(AlloOrderedPartition, DeferoShapeHandsOutTheRightClass) {
  Arena a;
  using Defero = HashPartition<SegregatedSize, OrderedPartition<Page, ChunkList, MatchNext>, Match>;
  Defero p(a.ctx);
  randomTraffic(a, p, [&](void* c, std::size_t size, const void*) { EXPECT_EQ(a.ctx.sizeOf(c), size); }, 3);
}

TEST(AlloOrderedPartition, NavigatesInKeyOrder) {
  Arena a;
  OrderedPartition<Page, ChunkList, First> p(a.ctx);
  for (std::size_t page : {40u, 3u, 17u}) p.deallocate(a.base + page * 4096, {16, nullptr}, a.ctx);
  EXPECT_EQ(p.first(), 3u);
  EXPECT_EQ(p.next(3), 17u);
  EXPECT_EQ(p.next(17), 40u);
  EXPECT_EQ(p.next(40), p.none());
  EXPECT_EQ(p.find(17, a.ctx), 17u);
  EXPECT_EQ(p.find(18, a.ctx), p.none());
  EXPECT_EQ(p.allocate({16, nullptr}, a.ctx), a.base + 3 * 4096);  // First: lowest address
}

}  // namespace
}  // namespace kith::heap::allotheque
