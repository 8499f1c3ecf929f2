// TraceIdMap: block address -> object id, for a recorder (the VM, TraceHeap) that
// must name each freed block by the id its allocation got. Open addressing with
// linear probing and backward-shift deletion (no tombstones), at most half full,
// no allocation per entry, and a hash that keeps address neighbours in the same
// cache lines (home()): in a replay of binary_trees 16's 29M events it added
// 0.85 s where std::unordered_map (a node malloc/free per object) added 1.8 s.
// The subset of std::unordered_map's interface recorders
// use: m[p] = id, find(p) != end(), it->second, erase(it), size().
// Keys are non-null addresses; memory lives in the system heap, outside any arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kith::heap {

class TraceIdMap {
 public:
  struct Slot {
    const void* first = nullptr;  // nullptr: empty
    std::uint64_t second = 0;
  };
  using iterator = Slot*;

  TraceIdMap() = default;
  TraceIdMap(const TraceIdMap&) = delete;
  TraceIdMap& operator=(const TraceIdMap&) = delete;

  iterator end() { return nullptr; }
  std::size_t size() const { return size_; }

  iterator find(const void* key) {
    if (size_ == 0) return end();
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].first == key) return &slots_[i];
      if (!slots_[i].first) return end();
    }
  }

  // The id of `key`, inserting it (with id 0) when absent.
  std::uint64_t& operator[](const void* key) {
    if ((size_ + 1) * 2 > capacity_) grow();
    std::size_t i = home(key);
    for (; slots_[i].first; i = (i + 1) & mask_)
      if (slots_[i].first == key) return slots_[i].second;
    slots_[i] = {key, 0};
    ++size_;
    return slots_[i].second;
  }

  void erase(iterator it) {
    // Backward shift: pull later entries of the probe run into the hole, so that a
    // lookup never stops early at it.
    std::size_t hole = static_cast<std::size_t>(it - slots_.get());
    for (std::size_t i = (hole + 1) & mask_; slots_[i].first; i = (i + 1) & mask_) {
      std::size_t want = home(slots_[i].first);
      // Movable when its home is not in (hole, i] (cyclically).
      if (((i - want) & mask_) >= ((i - hole) & mask_)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

 private:
  // A window of 256 slots per 4 KiB of addresses, windows scattered by Fibonacci
  // hashing, 16-byte granules in address order inside a window. Recorders insert
  // and erase in nearly address order (bump-like allocation, sweeps), so this
  // keeps neighbours in the same cache lines; a hash that scatters every key
  // (measured: 4.5x slower recording binary_trees) or none at all (address ranges
  // aliasing into one long probe run) are both far worse.
  static constexpr unsigned kWindowBits = 8;
  std::size_t home(const void* key) const {
    auto granule = reinterpret_cast<std::uintptr_t>(key) >> 4;  // blocks are 16-byte aligned
    std::uint64_t window = ((granule >> kWindowBits) * 0x9E3779B97F4A7C15ull) >> shift_;
    return static_cast<std::size_t>((window << kWindowBits) ^ (granule & ((1u << kWindowBits) - 1))) & mask_;
  }

  void grow();

  std::unique_ptr<Slot[]> slots_;
  std::size_t capacity_ = 0, mask_ = 0, size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace kith::heap
