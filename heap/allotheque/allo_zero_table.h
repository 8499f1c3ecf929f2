// ZeroTable<T>: a table of n T's, all empty at the start, whose memory is reserved
// with mmap and filled by the kernel a page at a time at its first write. Side tables
// indexed by an arena page or class (the page size table, Defero's per-page buckets of
// every size class, the sparse bitmaps) are sized from the arena, but a program uses
// few of their entries: as std::vectors they cost the arena's size at start-up (Defero
// over 16 GiB: 35 size classes x 4 Mi pages x 16 B = 2.2 GiB written before the first
// allocation). Reserved, they cost the pages written, and an entry stays an index
// away, so no allocation's bound changes. Reading an entry never written maps the
// kernel's shared zero page, which is no resident memory of ours. Under
// ArenaPretouch (`--pretouch`, fixed_arena.h) the table is populated with the arena, as the buddy
// side table is, so that no allocation of a latency run pays a first-touch fault.
//
// "Empty" is all-zero bytes, so T must say that its all-zero bytes are its empty
// state (ZeroIsEmpty: an arithmetic type, or a class with kZeroIsEmpty = true), and
// be trivially copyable, since the bytes are never constructed or destroyed.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "heap/layers/fixed_arena.h"

namespace kith::heap::allotheque {

template <class T>
concept ZeroIsEmpty = std::is_trivially_copyable_v<T> && (std::is_arithmetic_v<T> || requires {
                        requires T::kZeroIsEmpty;
                      });

template <ZeroIsEmpty T>
class ZeroTable {
 public:
  ZeroTable() = default;
  // Throws std::bad_alloc if the system refuses the reservation.
  explicit ZeroTable(std::size_t n) : size_(n) {
    if (n == 0) return;
    const int populate = ArenaPretouch::now() ? MAP_POPULATE : MAP_NORESERVE;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
  }
  ~ZeroTable() {
    if (data_) ::munmap(data_, bytes());
  }
  ZeroTable(ZeroTable&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  ZeroTable& operator=(ZeroTable&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  ZeroTable(const ZeroTable&) = delete;
  ZeroTable& operator=(const ZeroTable&) = delete;

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  std::size_t bytes() const { return size_ * sizeof(T); }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kith::heap::allotheque
