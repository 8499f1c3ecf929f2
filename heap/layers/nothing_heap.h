// NothingHeap: the replay baseline (`kith replay --heap=nothing`). malloc hands out
// a distinct, non-null, never-mapped address and touches no memory; free and
// getSize do nothing. Replayed through the same type-erased Heap and StatsHeap as a
// real policy, it costs everything a replayed request costs except the policy's
// own work, so a policy's cost minus this one's is the policy's alone (the study's
// alloc_cost.csv).
//
// Its blocks must never be read or written: replay writes a block only where the
// heap can relocate (this one cannot), and release() frees them one by one as for
// `malloc` (no arena). That is also why only replay accepts it: the VM would store
// objects in its blocks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kith::heap {

class NothingHeap {
 public:
  explicit NothingHeap(std::size_t /*heapBytes*/) {}

  // 16-byte steps from a high, never-mapped address: distinct for 2^40 requests.
  void* malloc(std::size_t) {
    next_ += kStep;
    return reinterpret_cast<void*>(next_);
  }
  void free(void*) {}
  // No header to read: every block counts as 0 bytes in the statistics.
  std::size_t getSize(void*) { return 0; }
  // No steps, but counted as a policy's are, so StatsHeap does the same work.
  std::size_t lastSteps() const { return 0; }
  std::size_t lastFreeSteps() const { return 0; }

 private:
  static constexpr std::uintptr_t kStep = 16;
  std::uintptr_t next_ = std::uintptr_t{1} << 44;
};

}  // namespace kith::heap
