// FreeSpace: a census of a heap's free memory at one moment — free bytes, the
// largest free block, and the free bytes by power-of-two block size class — for
// fragmentation over time (`kith run --frag-file`, gc/fragmentation_log.h).
//
// A policy that can enumerate its free blocks offers
//   template <class Fn> void forEachFreeSize(Fn&& fn) const;   // fn(bytes, count)
// calling fn once per free block (count 1) or once per group of equal blocks (the
// buddy systems: a level's block size and its free count). Sizes are usable bytes,
// as the policy's freeBytes() counts them, so the classes add up to freeBytes().
// Heap::freeSpace (heap.h) surfaces it; policies without it report nothing.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace kith::heap {

struct FreeSpace {
  static constexpr unsigned kSmallestClass = 4;  // 16 bytes: smaller blocks count here
  static constexpr unsigned kClassCount = 64;

  std::uint64_t freeBytes = 0;
  std::uint64_t freeBlocks = 0;
  std::uint64_t largestFreeBlock = 0;
  // True when bytesByClass is filled: the policy enumerated its free blocks.
  bool byClass = false;
  // [k]: free bytes in blocks of 2^k .. 2^(k+1)-1 bytes (k >= kSmallestClass).
  std::array<std::uint64_t, kClassCount> bytesByClass{};

  static unsigned classOf(std::size_t bytes) {
    unsigned k = bytes == 0 ? 0 : static_cast<unsigned>(std::bit_width(bytes)) - 1;
    return k < kSmallestClass ? kSmallestClass : k;
  }

  // `count` free blocks of `bytes` each.
  void add(std::size_t bytes, std::size_t count) {
    if (count == 0 || bytes == 0) return;
    freeBytes += std::uint64_t{bytes} * count;
    freeBlocks += count;
    bytesByClass[classOf(bytes)] += std::uint64_t{bytes} * count;
    if (bytes > largestFreeBlock) largestFreeBlock = bytes;
  }
};

}  // namespace kith::heap
