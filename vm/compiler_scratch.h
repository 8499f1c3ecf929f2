// The compiler's scratch heap: where its temporary data (scopes, locals, jump
// lists, code blocks, the top-level name set) lives, over the heap chosen by
// vm/compiler_heap.h; std containers reach it through ScratchAllocator, whose
// deallocate hands each piece back (a region ignores it and frees all at the end).
// It also keeps the bytes held over the compilation, sampled at every request and
// free, so the region's drag can be set against the heaps that free early.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "vm/compiler_heap.h"

namespace kith::vm {

// The bytes the compiler's scratch heap held, sampled after each malloc and free
// request ("time" counts requests, so every number is exact and reproducible).
struct ScratchStats {
  std::size_t requests = 0;    // mallocs and frees
  std::size_t frees = 0;       // frees the compiler asked for (a region keeps their bytes)
  std::size_t peakBytes = 0;   // the most bytes held at once
  double meanBytes = 0;        // bytes held, averaged over the requests
  std::size_t chunkBytes = 0;  // what a region or reap took from the system in chunks; 0 for the others
};

class CompilerScratch {
 public:
  virtual ~CompilerScratch() = default;

  void* malloc(std::size_t bytes) {
    void* p = take(bytes);
    if (p) sample(held_ + bytes);
    return p;
  }
  void free(void* p, std::size_t bytes) {
    ++frees_;
    sample(give(p) ? held_ - bytes : held_);
  }

  ScratchStats stats() const;

 protected:
  virtual void* take(std::size_t bytes) = 0;
  virtual bool give(void* p) = 0;  // whether the bytes went back to the heap
  virtual std::size_t chunkBytes() const { return 0; }

 private:
  void sample(std::size_t held) {
    held_ = held;
    if (held > peak_) peak_ = held;
    sum_ += static_cast<double>(held);
    ++requests_;
  }

  std::size_t held_ = 0;
  std::size_t peak_ = 0;
  double sum_ = 0;
  std::size_t requests_ = 0;
  std::size_t frees_ = 0;
};

std::unique_ptr<CompilerScratch> makeCompilerScratch(CompilerHeap heap);

// A std allocator over the scratch heap.
template <class T>
struct ScratchAllocator {
  using value_type = T;
  CompilerScratch* scratch;
  explicit ScratchAllocator(CompilerScratch* s) : scratch(s) {}
  template <class U>
  ScratchAllocator(const ScratchAllocator<U>& other) : scratch(other.scratch) {}
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    void* p = scratch->malloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) { scratch->free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const ScratchAllocator<U>& o) const { return scratch == o.scratch; }
};

template <class T>
using ScratchVector = std::vector<T, ScratchAllocator<T>>;
using ScratchString = std::basic_string<char, std::char_traits<char>, ScratchAllocator<char>>;
using ScratchNameSet = std::unordered_set<std::string_view, std::hash<std::string_view>,
                                          std::equal_to<std::string_view>, ScratchAllocator<std::string_view>>;

}  // namespace kith::vm
