// CountingHeap: a top heap for tests that shows what a layer asks of its Super.
// Each block comes from the C library (aligned_alloc) and is recorded; the log
// (owned by the test, so it outlives the heap) counts mallocs, frees and live
// blocks, notes frees of pointers it never handed out, and can refuse requests
// past a byte limit to simulate running out of memory. Blocks still live when the
// heap is destroyed are released then (and counted), so layers that drop their
// caches on destruction do not leak under AddressSanitizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "heap/layer.h"

namespace kith::heap::testing {

struct CountingLog {
  std::size_t limitBytes = SIZE_MAX;  // live bytes beyond this are refused
  std::size_t mallocs = 0, frees = 0, refused = 0, badFrees = 0;
  std::size_t liveBytes = 0, liveAtDestruction = 0;
  std::map<void*, std::size_t> live;  // block -> requested size
};

class CountingHeap {
 public:
  explicit CountingHeap(CountingLog& log) : log_(&log) {}
  CountingHeap(const CountingHeap&) = delete;
  CountingHeap& operator=(const CountingHeap&) = delete;
  ~CountingHeap() {
    log_->liveAtDestruction = log_->live.size();
    for (auto& [p, size] : log_->live) std::free(p);
    log_->live.clear();
    log_->liveBytes = 0;
  }

  void* malloc(std::size_t size) {
    std::size_t rounded = alignUp(size < kMinBlock ? kMinBlock : size);
    if (rounded < size || log_->liveBytes > log_->limitBytes ||
        size > log_->limitBytes - log_->liveBytes) {
      ++log_->refused;
      return nullptr;
    }
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) return nullptr;
    ++log_->mallocs;
    log_->liveBytes += size;
    log_->live.emplace(p, size);
    return p;
  }

  void free(void* p) {
    auto it = log_->live.find(p);
    if (it == log_->live.end()) {
      ++log_->badFrees;
      return;
    }
    ++log_->frees;
    log_->liveBytes -= it->second;
    log_->live.erase(it);
    std::free(p);
  }

 private:
  CountingLog* log_;
};

}  // namespace kith::heap::testing
