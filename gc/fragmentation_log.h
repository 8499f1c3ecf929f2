// FragmentationLog: the heap's free space sampled at the end of every collection,
// for `kith run --frag-file=PATH` — fragmentation over time. Both collectors call
// sample() where a cycle ends (after the sweep, before the next allocation).
//
// The file is tab-separated text:
//   # kith-frag 1
//   # policy estranged
//   # heap_bytes 67108864
//   # by_class yes
//   cycle  bytes_allocated  in_use  free  largest_free  free_16  free_32 ... free_<2^K>
//   0      1048576          524288  ...
// cycle counts collections from 0; bytes_allocated is the heap statistics' block
// bytes handed out so far, in_use its block bytes live now; free and largest_free
// the policy's free (usable) bytes and largest free block (heap/free_space.h);
// free_<S> the free bytes in blocks of S .. 2S-1 bytes (free_16 also holds smaller
// blocks), up to the heap's size. A policy that cannot enumerate its free blocks
// writes "by_class no" and no free_<S> columns; one that cannot tell its free
// bytes at all writes NA for free and largest_free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "heap/heap.h"

namespace kith::gc {

class FragmentationLog {
 public:
  // Writes the header for `heap` (its policy, size and what its census offers) to
  // `file`, which the caller opened and closes (and checks for a failed write).
  FragmentationLog(std::FILE* file, const heap::Heap& heap, std::size_t heapBytes);
  FragmentationLog(const FragmentationLog&) = delete;
  FragmentationLog& operator=(const FragmentationLog&) = delete;

  // One line: the census of `heap` after collection number `cycle`.
  void sample(std::uint64_t cycle, const heap::Heap& heap);

 private:
  std::FILE* file_;
  bool byClass_ = false;
  unsigned topClass_ = 0;  // the largest class column: floor(log2(heap bytes))
};

}  // namespace kith::gc
