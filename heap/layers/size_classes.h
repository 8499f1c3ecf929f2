// Size-class maps for the segregated-fits layers (StrictSegHeap, SegHeap).
// A map is a pair of functions: sizeClass(n) is the smallest class whose largest
// size is >= n, and classMaxSize(c) is that largest size, strictly increasing in c.
#pragma once

#include <bit>
#include <cstddef>

#include "heap/layer.h"

namespace kith::heap {

// Power-of-two classes, as in the Kingsley (BSD 4.2) allocator: class c holds
// blocks of 16 << c bytes. Constant time: one bit_width, no loop.
inline constexpr int kMinBlockLog2 = std::countr_zero(kMinBlock);
// Classes 0..59: 16 B up to 2^63 B, every power of two a size_t can hold.
inline constexpr int kPow2ClassCount = 64 - kMinBlockLog2;

constexpr int pow2SizeClass(std::size_t size) {
  return size <= kMinBlock ? 0 : static_cast<int>(ceilLog2(size)) - kMinBlockLog2;
}

constexpr std::size_t pow2ClassMaxSize(int sizeClass) { return kMinBlock << sizeClass; }

}  // namespace kith::heap
