// RequestedBytes: the bytes a process's live blocks were asked for, and their peak —
// what the program itself needs at its most, whatever the policy rounds a request up
// to. Memory consumption over this peak is the policy's whole fragmentation, internal
// and external (the heap block's peak_bytes_in_use counts the policy's block sizes,
// and so hides its rounding: a power-of-two policy's doubled blocks are "in use").
// Kept with the statistics only (kith exec --stats, --stats-file): an address -> size
// table, one probe per request, in the library's own heap. Not thread-safe: the heap's
// lock guards it. A block it never saw (a parent's, after fork, before it started)
// counts from its first resize; its free is ignored.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/trace/trace_id_map.h"

namespace kith::preload {

class RequestedBytes {
 public:
  void allocated(void* p, std::size_t size) {
    if (!p) return;
    sizes_[p] = size;
    grow(size);
  }

  void freed(void* p) {
    if (auto it = sizes_.find(p); it != sizes_.end()) {
      live_ -= it->second;
      sizes_.erase(it);
    }
  }

  // Block `from`, now `size` bytes at `to` (== from: in place).
  void resized(void* from, void* to, std::size_t size) {
    auto it = sizes_.find(from);
    if (it == sizes_.end()) return allocated(to, size);
    live_ -= it->second;
    if (to != from) {
      sizes_.erase(it);
      sizes_[to] = size;
    } else {
      it->second = size;
    }
    grow(size);
  }

  std::uint64_t peak() const { return peak_; }

 private:
  void grow(std::size_t size) {
    live_ += size;
    if (live_ > peak_) peak_ = live_;
  }

  heap::TraceIdMap sizes_;  // block -> the size asked for
  std::uint64_t live_ = 0, peak_ = 0;
};

}  // namespace kith::preload
