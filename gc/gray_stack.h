// GrayStack: the continuous collector's stack of gray handles, grown without copying.
//
// A std::vector that outgrows itself inside a slice copies every entry and frees the
// old block (unmapping its populated pages): for a large gray set that costs more
// than a whole slice's budget, in one slice. This stack lives in its own mapping
// and grows with mremap, which moves page-table entries and copies nothing; clear()
// keeps the pages, so a later cycle reuses them unfaulted.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace kith::vm {
struct Handle;
}

namespace kith::gc {

class GrayStack {
 public:
  GrayStack() = default;
  GrayStack(const GrayStack&) = delete;
  GrayStack& operator=(const GrayStack&) = delete;
  ~GrayStack() {
    if (data_) munmap(data_, capacity_ * sizeof(vm::Handle*));
  }

  void push(vm::Handle* h) {
    if (size_ == capacity_) grow();
    data_[size_++] = h;
  }
  vm::Handle* pop() { return data_[--size_]; }  // not empty()
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  void clear() { size_ = 0; }
  // Room for `entries` without growing, its pages written once now (populated): a
  // first write to a fresh page inside a slice is a page fault, on this microVM up
  // to ~100 µs each when the host backs the page then (`--pretouch`).
  void reserveTouched(std::size_t entries) {
    while (capacity_ < entries) grow();
    const std::size_t perPage = 4096 / sizeof(vm::Handle*);
    for (std::size_t i = 0; i < capacity_; i += perPage) data_[i] = nullptr;
  }

 private:
  static constexpr std::size_t kInitialEntries = 4096;  // 32 KiB: 8 pages

  // Doubles the mapping (throws std::bad_alloc when the system refuses, as vector does).
  void grow() {
    std::size_t entries = capacity_ ? 2 * capacity_ : kInitialEntries;
    void* p = data_ ? mremap(data_, capacity_ * sizeof(vm::Handle*), entries * sizeof(vm::Handle*), MREMAP_MAYMOVE)
                    : mmap(nullptr, entries * sizeof(vm::Handle*), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<vm::Handle**>(p);
    capacity_ = entries;
  }

  vm::Handle** data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace kith::gc
