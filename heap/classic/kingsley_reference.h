// KingsleyReference: the Kingsley allocator (BSD 4.2 malloc) written by hand, as
// one class with no layers — the "original" the `kingsley` composition is measured
// against (heap_bench's composition/ benchmarks; paper §6.1, which compared
// KingsleyHeap with the BSD code). Not a policy of the registry (kith run and the
// study do not take it): heap_bench measures it, and `kith exec
// --heap=kingsley_reference` runs programs on it (preload/reference_heap.h).
//
// Same algorithm and the same memory as KingsleyPolicy, so the difference is the
// cost of composition: power-of-two buckets from 16 bytes, one LIFO free list per
// bucket, a 16-byte header in front of each block (here the bucket index, as BSD's
// ov_index, and SizeClassHeap's), fresh blocks bumped from one mapping of a fixed
// size (populated at start under arenaPretouch(), as heap_bench sets it; else
// reserved and touched as used, as FixedArena's); never split, never coalesced.
#pragma once

#include <sys/mman.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>

#include "heap/layers/fixed_arena.h"

namespace kith::heap {

class KingsleyReference {
 public:
  explicit KingsleyReference(std::size_t bytes) : size_(bytes & ~std::size_t{15}) {
    const int populate = arenaPretouch().load(std::memory_order_relaxed) ? MAP_POPULATE : MAP_NORESERVE;
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<char*>(p);
  }
  ~KingsleyReference() { ::munmap(base_, size_); }
  KingsleyReference(const KingsleyReference&) = delete;
  KingsleyReference& operator=(const KingsleyReference&) = delete;

  void* malloc(std::size_t n) {
    if (n > (std::size_t{1} << 62)) return nullptr;
    unsigned bucket = n <= 16 ? 0 : static_cast<unsigned>(std::bit_width(n - 1)) - 4;
    Free* f = buckets_[bucket];
    if (f != nullptr) {
      buckets_[bucket] = f->next;
      return f;
    }
    std::size_t need = 16 + (std::size_t{16} << bucket);
    if (need > size_ - used_) return nullptr;
    char* block = base_ + used_;
    used_ += need;
    *reinterpret_cast<std::size_t*>(block) = bucket;
    return block + 16;
  }

  void free(void* p) {
    if (p == nullptr) return;
    std::size_t bucket = *reinterpret_cast<std::size_t*>(static_cast<char*>(p) - 16);
    buckets_[bucket] = ::new (p) Free{buckets_[bucket]};
  }

  // The block's bytes: its bucket's size, from the header.
  std::size_t getSize(void* p) const {
    return std::size_t{16} << *reinterpret_cast<std::size_t*>(static_cast<char*>(p) - 16);
  }
  std::byte* arenaBase() const { return reinterpret_cast<std::byte*>(base_); }
  std::size_t arenaSize() const { return size_; }

 private:
  struct Free {
    Free* next;
  };
  Free* buckets_[60] = {};
  char* base_ = nullptr;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace kith::heap
