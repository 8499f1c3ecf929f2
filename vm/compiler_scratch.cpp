// The four scratch heaps behind vm/compiler_scratch.h.
#include "vm/compiler_scratch.h"

#include <cstdlib>

#include "heap/adapters/malloc_heap.h"
#include "heap/layers/reap.h"
#include "heap/layers/zone_heap.h"
#include "heap/policies.h"

namespace kith::vm {

ScratchStats CompilerScratch::stats() const {
  return ScratchStats{requests_, frees_, peak_, requests_ ? sum_ / static_cast<double>(requests_) : 0.0,
                      chunkBytes()};
}

namespace {

// The system allocator, counting the bytes a region or reap takes (its chunks).
class CountingMallocHeap : public heap::MallocHeap {
 public:
  void* malloc(std::size_t size) {
    bytes_ += size;
    return heap::MallocHeap::malloc(size);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

constexpr std::size_t kChunkBytes = 16 * 1024;

// A region: a free does nothing; the destructor returns every chunk.
class ZoneScratch final : public CompilerScratch {
  void* take(std::size_t bytes) override { return zone_.malloc(bytes); }
  bool give(void*) override { return false; }
  std::size_t chunkBytes() const override { return zone_.bytes(); }
  heap::ZoneHeap<CountingMallocHeap, kChunkBytes> zone_;
};

class ReapScratch final : public CompilerScratch {
  void* take(std::size_t bytes) override { return reap_.malloc(bytes); }
  bool give(void* p) override {
    reap_.free(p);
    return true;
  }
  std::size_t chunkBytes() const override { return reap_.bytes(); }
  heap::Reap<CountingMallocHeap, kChunkBytes> reap_;
};

// Lea over an arena reserved (not touched) for the largest compilation.
class LeaScratch final : public CompilerScratch {
  void* take(std::size_t bytes) override { return lea_.malloc(bytes); }
  bool give(void* p) override {
    lea_.free(p);
    return true;
  }
  heap::LeaPolicy lea_{std::size_t{1} << 30};
};

// The C library's malloc itself (its blocks are aligned for every scratch type).
class MallocScratch final : public CompilerScratch {
  void* take(std::size_t bytes) override { return std::malloc(bytes); }
  bool give(void* p) override {
    std::free(p);
    return true;
  }
};

}  // namespace

std::unique_ptr<CompilerScratch> makeCompilerScratch(CompilerHeap heap) {
  switch (heap) {
    case CompilerHeap::reap: return std::make_unique<ReapScratch>();
    case CompilerHeap::lea: return std::make_unique<LeaScratch>();
    case CompilerHeap::malloc: return std::make_unique<MallocScratch>();
    case CompilerHeap::zone: break;
  }
  return std::make_unique<ZoneScratch>();
}

}  // namespace kith::vm
