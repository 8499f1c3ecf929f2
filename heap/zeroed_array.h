// ZeroedArray: a zero-filled array of metadata outside the arena (the buddy side
// table) that costs nothing to create. std::make_unique<T[]>(n) writes n zeros, so a
// 64 MiB heap's 4 MiB side table touched every page at start-up; calloc takes fresh
// pages from the kernel for large sizes, already zero, and touches them only as used
// (glibc skips the memset for a freshly mapped chunk).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

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
  return ZeroedArray<T>(static_cast<T*>(p));
}

}  // namespace kith::heap
