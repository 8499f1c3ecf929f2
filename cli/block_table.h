// BlockTable: the replay's table of block addresses, indexed by object (cli/replay.h).
// A large trace makes it hundreds of megabytes (binary_trees 16: 15M objects, 120 MB),
// so it lives on its own anonymous mapping: reserved from the trace's size, touched
// only as used, grown by mremap (which moves page tables, not bytes), and populated
// up front under `--pretouch`, so that its first-touch page faults leave the timed
// loop as the arena's do. Transparent huge pages were tried for it and not kept: on
// this project's VM a 2 MiB fault cost more than the 512 small ones it replaced when
// the host was busy (binary_trees 16: 4.8-14.3 s against 4.0-5.9 s without).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace kith::cli {

class BlockTable {
 public:
  BlockTable() = default;
  BlockTable(const BlockTable&) = delete;
  BlockTable& operator=(const BlockTable&) = delete;
  ~BlockTable() {
    if (data_) ::munmap(data_, capacity_ * sizeof(void*));
  }

  std::size_t size() const { return size_; }
  void*& operator[](std::size_t i) { return data_[i]; }
  void** begin() { return data_; }
  void** end() { return data_ + size_; }
  void clear() { size_ = 0; }

  void push_back(void* p) {
    if (size_ == capacity_) grow(capacity_ ? capacity_ * 2 : kMinCapacity);
    data_[size_++] = p;
  }

  // Room for `count` entries; only the pages used are ever touched, unless
  // `populate` (`--pretouch`) maps them all now. Throws std::bad_alloc if the system
  // refuses the mapping.
  void reserve(std::size_t count, bool populate = false) {
    if (count > capacity_) grow(count);
    if (populate) ::madvise(data_, capacity_ * sizeof(void*), MADV_POPULATE_WRITE);
  }

 private:
  static constexpr std::size_t kMinCapacity = std::size_t{1} << 16;

  void grow(std::size_t capacity) {
    const std::size_t bytes = capacity * sizeof(void*);
    void* p = data_ ? ::mremap(data_, capacity_ * sizeof(void*), bytes, MREMAP_MAYMOVE)
                    : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<void**>(p);
    capacity_ = capacity;
  }

  void** data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace kith::cli
