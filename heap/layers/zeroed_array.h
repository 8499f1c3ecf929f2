// ZeroedArray: a zero-filled array of metadata outside the arena (the buddy side
// table) that costs nothing to create. std::make_unique<T[]>(n) writes n zeros, so a
// 64 MiB heap's 4 MiB side table touched every page at start-up; calloc takes fresh
// pages from the kernel for large sizes, already zero, and touches them only as used
// (glibc skips the memset for a freshly mapped chunk). Under ArenaPretouch
// (`--pretouch`, fixed_arena.h) the table is populated with the arena, one write a page, so that
// no request of a latency measurement pays a first-touch fault in the side table.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#include "heap/layers/fixed_arena.h"

namespace kith::heap {

struct CallocDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <typename T>
using ZeroedArray = std::unique_ptr<T[], CallocDeleter>;

template <typename T>
ZeroedArray<T> makeZeroedArray(std::size_t count) {
  static_assert(std::is_trivial_v<T>, "calloc's zero bytes must be a valid T");
  void* p = std::calloc(count ? count : 1, sizeof(T));
  if (!p) throw std::bad_alloc();
  if (ArenaPretouch::now()) {
    // volatile: the compiler knows calloc's bytes are zero and would drop plain stores
    auto* bytes = static_cast<volatile unsigned char*>(p);
    const std::size_t size = (count ? count : 1) * sizeof(T);
    constexpr std::size_t kPage = 4096;
    for (std::size_t i = 0; i < size; i += kPage) bytes[i] = 0;
    bytes[size - 1] = 0;
  }
  return ZeroedArray<T>(static_cast<T*>(p));
}

}  // namespace kith::heap
