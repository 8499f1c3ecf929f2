// AllothequeHeap<Partition, Rounding, Super>: an Allotheque allocator over a heap
// that hands out pages (the fixed arena): the TR's Kingsley loop (TR07-003 Fig. 3).
//   malloc(n, near): round n (Rounding), ask the partition for a chunk with the
//     request {size, hint = near}; if none, take memory from Super — one 4 KiB
//     page carved into chunks of that size, or a large chunk of whole pages —
//     deallocate its chunks into the partition and ask again.
//   free(p): deallocate p into the partition, with its size from the page table.
// Chunks are never split or coalesced (the TR's Velox/Medius/Defero do neither), so
// a page keeps the size it was carved for. malloc(n) is malloc(n, nullptr).
//
// Invariants (checkInvariants): every free chunk lies in a page handed out, starts
// at a multiple of its size from its page (small) or on a page boundary (large),
// is held once, and sits in the class of every level that its attributes name
// (each level's check); the free-byte count matches the chunks held.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>

#include "heap/allotheque/allo_request.h"
#include "heap/layer.h"

namespace kith::heap::allotheque {

// Rounding rules. Sizes up to half a page are carved from pages; larger ones take
// whole pages. Exact: multiples of 16 (Velox, Medius: "exact sizes").
struct ExactSizes {
  static constexpr std::size_t kLargest = kPageBytes / 2;
  static std::size_t round(std::size_t n) {
    if (n <= kLargest) return alignUp(n < kMinBlock ? kMinBlock : n);
    return alignUp(n, kPageBytes);
  }
};
// Segregated classes (attribute SegregatedSize): 16..128 step 16, then powers of two.
struct SegregatedSizes {
  static std::size_t round(std::size_t n) {
    if (n <= 128) return alignUp(n < kMinBlock ? kMinBlock : n);
    return std::size_t{1} << ceilLog2(n);
  }
};

template <class Partition, class Rounding, class Super>
class AllothequeHeap : public Super {
 public:
  explicit AllothequeHeap(std::size_t bytes)
      : Super(bytes & ~(kPageBytes - 1)),
        ctx_(Super::arenaBase(), Super::arenaSize() & ~(kPageBytes - 1)),
        partition_(ctx_) {}

  void* malloc(std::size_t n) { return malloc(n, nullptr); }
  void* malloc(std::size_t n, const void* near) {
    if (n > ctx_.bytes()) return nullptr;  // also keeps the rounding from overflowing
    const std::size_t size = Rounding::round(n);
    const Request r{size, near};
    void* p = partition_.allocate(r, ctx_);
    if (!p) {
      if (!refill(size)) return nullptr;
      p = partition_.allocate(r, ctx_);
    }
    if (p) freeBytes_ -= size;
    return p;
  }
  void free(void* p) {
    if (!p) return;
    const std::size_t size = ctx_.sizeOf(p);
    partition_.deallocate(p, Request{size, p}, ctx_);
    freeBytes_ += size;
  }
  std::size_t getSize(void* p) const { return ctx_.sizeOf(p); }

  // Free bytes in chunks plus pages not handed out yet.
  std::size_t freeBytes() const { return freeBytes_ + Super::remaining(); }
  // The tails of carved pages too short for a chunk (4096 mod size each): with
  // every chunk free, freeBytes() + tailBytes() is the arena.
  std::size_t tailBytes() const { return tailBytes_; }
  const Context& context() const { return ctx_; }
  const Partition& partition() const { return partition_; }

  std::string checkInvariants() const {
    std::string bad;
    std::unordered_set<const void*> seen;
    std::size_t bytes = 0;
    partition_.forEachChunk([&](void* p) {
      if (!bad.empty()) return;
      if (!ctx_.contains(p)) { bad = "allotheque: a free chunk outside the arena"; return; }
      const std::size_t size = ctx_.sizeOf(p);
      const std::size_t inPage = ctx_.offset(p) & (kPageBytes - 1);
      if (size == 0) bad = "allotheque: a free chunk in a page never handed out";
      else if (size <= kPageBytes / 2 ? inPage % size != 0 || inPage + size > kPageBytes : inPage != 0)
        bad = "allotheque: a free chunk off its page's grid";
      else if (!seen.insert(p).second) bad = "allotheque: a chunk held twice";
      bytes += size;
    });
    if (!bad.empty()) return bad;
    if (bytes != freeBytes_) return "allotheque: free bytes disagree with the chunks held";
    return partition_.check(ctx_);
  }

 private:
  // Takes a page (or the pages of one large chunk) from Super and files its chunks.
  bool refill(std::size_t size) {
    if (size <= kPageBytes / 2) {
      void* page = Super::malloc(kPageBytes);
      if (!page) return false;
      ctx_.setPageSize(ctx_.pageOf(page), size);
      tailBytes_ += kPageBytes % size;
      auto* base = static_cast<std::byte*>(page);
      // Highest address first: the LIFO lists then hand out ascending addresses.
      for (std::size_t i = kPageBytes / size; i-- > 0;) fileNew(base + i * size, size);
      return true;
    }
    void* chunk = Super::malloc(size);
    if (!chunk) return false;
    ctx_.setPageSize(ctx_.pageOf(chunk), size);
    fileNew(chunk, size);
    return true;
  }
  void fileNew(void* chunk, std::size_t size) {
    partition_.deallocate(chunk, Request{size, chunk}, ctx_);
    freeBytes_ += size;
  }

  Context ctx_;
  Partition partition_;
  std::size_t freeBytes_ = 0;
  std::size_t tailBytes_ = 0;
};

}  // namespace kith::heap::allotheque
