#include "heap/layers/locked_heap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "heap/layers/fixed_arena.h"

namespace kith::heap {
namespace {

// A Super that notices two threads inside it at once. Its counters lose updates
// when calls overlap (a separate load and store, atomic only so the test has no
// undefined behaviour), so an unlocked heap shows up in the counts as well.
class OverlapDetectingHeap {
 public:
  explicit OverlapDetectingHeap(std::size_t) {}

  void* malloc(std::size_t) { return enter(mallocs_) ? block_ : nullptr; }
  void free(void*) { enter(frees_); }
  std::size_t getSize(void*) {
    enter(sizes_);
    return 16;
  }

  // The first call waits (up to a few seconds) for a second thread to come in,
  // so an unlocked heap is caught even on a loaded machine.
  bool rendezvousFirst = false;
  std::atomic<bool> overlapped{false};
  std::uint64_t mallocs() const { return mallocs_.load(); }
  std::uint64_t frees() const { return frees_.load(); }
  std::uint64_t sizes() const { return sizes_.load(); }

 private:
  bool enter(std::atomic<std::uint64_t>& counter) {
    if (inside_.fetch_add(1) != 0) overlapped = true;
    if (rendezvousFirst && !waited_.exchange(true)) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!overlapped && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    }
    std::uint64_t seen = counter.load(std::memory_order_relaxed);
    for (int spin = 0; spin < 20; ++spin) std::atomic_signal_fence(std::memory_order_seq_cst);
    counter.store(seen + 1, std::memory_order_relaxed);
    inside_.fetch_sub(1);
    return true;
  }

  alignas(16) std::byte block_[16];
  std::atomic<int> inside_{0};
  std::atomic<bool> waited_{false};
  std::atomic<std::uint64_t> mallocs_{0}, frees_{0}, sizes_{0};
};

template <class H>
void hammer(H& heap, int perThread) {
  auto work = [&] {
    for (int i = 0; i < perThread; ++i) {
      void* p = heap.malloc(16);
      heap.getSize(p);
      heap.free(p);
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
}

TEST(LockedHeap, TwoThreadsNeverOverlapInsideSuper) {
  LockedHeap<OverlapDetectingHeap> heap(0);
  constexpr int kPerThread = 100000;
  hammer(heap, kPerThread);
  EXPECT_FALSE(heap.overlapped);
  EXPECT_EQ(heap.mallocs(), 2u * kPerThread);
  EXPECT_EQ(heap.frees(), 2u * kPerThread);
  EXPECT_EQ(heap.sizes(), 2u * kPerThread);
}

// The control: with a lock that does nothing the detector fires, so the test above can fail.
struct NoLock {
  void lock() {}
  void unlock() {}
};

TEST(LockedHeap, WithoutARealLockTheOverlapIsDetected) {
  LockedHeap<OverlapDetectingHeap, NoLock> heap(0);
  heap.rendezvousFirst = true;
  hammer(heap, 1000);
  EXPECT_TRUE(heap.overlapped);
}

// Any lock()/unlock() type works; this one counts how often it is taken, in all
// instances (LockedHeap keeps its mutex private).
struct CountingSpinLock {
  static inline std::atomic<int> taken{0};
  std::atomic_flag flag = ATOMIC_FLAG_INIT;
  void lock() {
    while (flag.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
    ++taken;
  }
  void unlock() { flag.clear(std::memory_order_release); }
};

TEST(LockedHeap, TakesTheGivenMutexForMallocFreeAndGetSize) {
  LockedHeap<OverlapDetectingHeap, CountingSpinLock> heap(0);
  CountingSpinLock::taken = 0;
  hammer(heap, 20000);
  EXPECT_FALSE(heap.overlapped);
  EXPECT_EQ(heap.mallocs(), 40000u);
  EXPECT_EQ(heap.frees(), 40000u);
  EXPECT_EQ(heap.sizes(), 40000u);
  EXPECT_EQ(CountingSpinLock::taken.load(), 3 * 40000);
}

TEST(LockedHeap, OutOfMemoryPropagatesAsNull) {
  LockedHeap<FixedArena> heap(32);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_NE(heap.malloc(32), nullptr);
  EXPECT_EQ(heap.malloc(0), nullptr);
  EXPECT_EQ(heap.arenaSize(), 32u);  // Super's other methods stay visible
}

}  // namespace
}  // namespace kith::heap
