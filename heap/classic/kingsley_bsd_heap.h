// KingsleyBsdHeap: the Kingsley allocator (BSD 4.2 malloc) written by hand, as one
// class with no layers — the original the `kingsley` composition is measured
// against (paper §6.1, which compared KingsleyHeap with the BSD code; heap_bench's
// composition/ benchmarks; the `kingsley-bsd` reference of heap.h's referenceList,
// which makeHeap builds for explicit frees: kith replay, the preloaded malloc).
//
// Same algorithm and the same memory as KingsleyPolicy, so the difference is the
// cost of composition: power-of-two buckets from 16 bytes, one LIFO free list per
// bucket, a 16-byte header in front of each block (here the bucket index, as BSD's
// ov_index, and SizeClassHeap's), fresh blocks bumped from one fixed region; never
// split, never coalesced. The region is a FixedArena taken whole at construction,
// so it is reserved and only touched pages become resident — populated up front only
// under ArenaPretouch (fixed_arena.h), as heap_bench builds it, so that its numbers measure the
// allocator and not first-touch faults.
//
// The hot path is the original's: nothing is counted (no outcome, no steps: the
// statistics StatsHeap keeps over it are its counts, sizes and times); what the
// tools ask for besides — checkInvariants, the free-space census — walks the
// structure when asked. Bounds: malloc looks at its bucket and, on a miss, bumps
// the region once; free pushes: O(1) both, as `kingsley`'s.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "heap/layers/fixed_arena.h"

namespace kith::heap {

class KingsleyBsdHeap {
 public:
  static constexpr int kBucketCount = 60;  // 16 B to 2^63 B

  explicit KingsleyBsdHeap(std::size_t bytes) : arena_(bytes) {
    size_ = arena_.remaining();
    base_ = static_cast<char*>(arena_.malloc(size_));  // nullptr for an empty region
    if (base_ == nullptr) size_ = 0;
  }
  KingsleyBsdHeap(const KingsleyBsdHeap&) = delete;
  KingsleyBsdHeap& operator=(const KingsleyBsdHeap&) = delete;

  void* malloc(std::size_t n) {
    if (n > (std::size_t{1} << 62)) return nullptr;
    unsigned bucket = n <= 16 ? 0 : static_cast<unsigned>(std::bit_width(n - 1)) - 4;
    Free* f = buckets_[bucket];
    if (f != nullptr) {
      buckets_[bucket] = f->next;
      return f;
    }
    std::size_t need = kHeader + (std::size_t{16} << bucket);
    if (need > size_ - used_) return nullptr;
    char* block = base_ + used_;
    used_ += need;
    *reinterpret_cast<std::size_t*>(block) = bucket;
    return block + kHeader;
  }

  void free(void* p) {
    if (p == nullptr) return;
    std::size_t bucket = bucketOf(p);
    buckets_[bucket] = ::new (p) Free{buckets_[bucket]};
  }

  std::size_t getSize(void* p) const { return std::size_t{16} << bucketOf(p); }

  std::byte* arenaBase() const { return arena_.arenaBase(); }
  std::size_t arenaSize() const { return arena_.arenaSize(); }
  // Bytes never yet bumped: the high-water mark of the region is arenaSize() - remaining().
  std::size_t remaining() const { return size_ - used_; }

  // fn(bytes, count): the untouched rest as one block, then each bucket's free
  // blocks at the bucket's size (free_space.h), as `kingsley` reports them.
  template <class Fn>
  void forEachFreeSize(Fn&& fn) const {
    fn(remaining(), std::size_t{1});
    for (int b = 0; b < kBucketCount; ++b) {
      std::size_t count = 0;
      for (const Free* f = buckets_[b]; f != nullptr && count <= used_ / kSmallestBlock; f = f->next) ++count;
      if (count) fn(std::size_t{16} << b, count);
    }
  }
  std::size_t freeBytes() const {
    std::size_t bytes = 0;
    forEachFreeSize([&](std::size_t size, std::size_t count) { bytes += size * count; });
    return bytes;
  }
  std::size_t largestFreeBlock() const {
    std::size_t largest = 0;
    forEachFreeSize([&](std::size_t size, std::size_t) { largest = std::max(largest, size); });
    return largest;
  }

  // Walks the bumped part of the region block by block (each header names a bucket,
  // and the blocks tile it exactly), then every bucket's list: each block on it is
  // a block of the walk (inside the region, at a block's start), of that bucket,
  // and on no list twice (so no list loops). "" when all hold.
  std::string checkInvariants() const {
    if (used_ > size_ || used_ % kHeader != 0) return "KingsleyBsdHeap: bumped " + std::to_string(used_) + " bytes of " + std::to_string(size_);
    std::vector<const char*> blocks;  // payloads, in address order
    for (std::size_t at = 0; at < used_;) {
      const std::size_t bucket = *reinterpret_cast<const std::size_t*>(base_ + at);
      if (bucket >= kBucketCount || (std::size_t{16} << bucket) > used_ - at - kHeader)
        return "KingsleyBsdHeap: the block at offset " + std::to_string(at) + " has bucket " + std::to_string(bucket) +
               ", which does not fit the " + std::to_string(used_) + " bytes bumped";
      blocks.push_back(base_ + at + kHeader);
      at += kHeader + (std::size_t{16} << bucket);
    }
    std::vector<bool> listed(blocks.size());
    for (int b = 0; b < kBucketCount; ++b) {
      for (const Free* f = buckets_[b]; f != nullptr; f = f->next) {
        const auto* p = reinterpret_cast<const char*>(f);
        auto it = std::lower_bound(blocks.begin(), blocks.end(), p);
        const std::string where = "KingsleyBsdHeap bucket " + std::to_string(b) + " (" + std::to_string(std::size_t{16} << b) + " B): ";
        if (it == blocks.end() || *it != p) return where + "holds an address that is no block of the region";
        if (bucketOf(f) != static_cast<std::size_t>(b)) return where + "holds a block of bucket " + std::to_string(bucketOf(f));
        if (listed[it - blocks.begin()]) return where + "a block is listed twice (freed twice?)";
        listed[it - blocks.begin()] = true;
      }
    }
    return "";
  }

 private:
  static constexpr std::size_t kHeader = 16;          // one alignment unit: the bucket index, then padding
  static constexpr std::size_t kSmallestBlock = 32;   // header + 16 bytes
  struct Free {
    Free* next;
  };
  static std::size_t bucketOf(const void* p) {
    return *reinterpret_cast<const std::size_t*>(static_cast<const char*>(p) - kHeader);
  }

  Free* buckets_[kBucketCount] = {};  // first, as in the original: a bucket is this + 8 * index
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t used_ = 0;
  FixedArena arena_;  // the mapping; base_ and size_ are the whole of it
};

}  // namespace kith::heap
