// ObjectLifetimes: the age at death of every object of a trace (trace.h), for
// `kith trace lifetimes`. Time is the allocation clock — the bytes requested by
// every successful allocation so far, and what a resize (a realloc) grows an object
// by — the usual measure of object lifetime in garbage-collection studies, because
// it is what drives collection. A resized object keeps its birth, and dies with its
// last size. An object's
// age at death is the bytes allocated after it and before its free: 0 when nothing
// was allocated in between. Objects still live when the trace ends are censored:
// counted apart (their age is only known to exceed what the trace saw).
//
// The ages go into a histogram of constant size whatever the trace's length: exact
// buckets for ages 0 .. 8, then 8 buckets per power of two (each bucket's width is
// an eighth of its power of two, so the bound is within 12.5% of the age). Each
// bucket is named by its inclusive upper bound. The per-object memory is the birth
// clock and size of each object (indexed by the trace's dense object index).
#pragma once

#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include "heap/trace/trace_event.h"

namespace kith::heap {

class ObjectLifetimes {
 public:
  static constexpr unsigned kSubBucketsLog2 = 3;  // 8 buckets per power of two
  static constexpr std::uint64_t kExactUpTo = std::uint64_t{1} << kSubBucketsLog2;

  struct Bucket {
    std::uint64_t objects = 0, bytes = 0;
  };

  // The inclusive upper bound of the bucket holding `age`.
  static std::uint64_t bucketBound(std::uint64_t age) {
    if (age <= kExactUpTo) return age;
    unsigned k = static_cast<unsigned>(std::bit_width(age - 1)) - 1;  // 2^k < age <= 2^(k+1)
    std::uint64_t base = std::uint64_t{1} << k;
    std::uint64_t width = base >> kSubBucketsLog2;
    return base + (age - base + width - 1) / width * width;
  }

  // One event of a consistent trace, with the reader's objectIndex().
  void record(const TraceEvent& e, std::uint64_t index) {
    switch (e.kind) {
      case TraceEventKind::alloc:
        clock_ += e.size;
        if (index >= births_.size()) {
          births_.resize(index + 1);
          sizes_.resize(index + 1);
        }
        births_[index] = clock_;
        sizes_[index] = e.size;
        ++objects_;
        liveBytes_ += e.size;
        if (liveBytes_ > peakLiveBytes_) peakLiveBytes_ = liveBytes_;
        break;
      case TraceEventKind::free: {
        Bucket& b = histogram_[bucketBound(clock_ - births_[index])];
        ++b.objects;
        b.bytes += sizes_[index];
        ++freed_;
        freedBytes_ += sizes_[index];
        liveBytes_ -= sizes_[index];
        break;
      }
      case TraceEventKind::resize:
      case TraceEventKind::move:
        if (e.size > sizes_[index]) clock_ += e.size - sizes_[index];
        liveBytes_ += e.size;
        liveBytes_ -= sizes_[index];
        sizes_[index] = e.size;
        ++resized_;
        if (liveBytes_ > peakLiveBytes_) peakLiveBytes_ = liveBytes_;
        break;
      case TraceEventKind::failed:
        ++failed_;
        break;
    }
  }

  std::uint64_t objects() const { return objects_; }
  std::uint64_t freed() const { return freed_; }
  std::uint64_t freedBytes() const { return freedBytes_; }
  std::uint64_t liveAtEnd() const { return objects_ - freed_; }
  std::uint64_t liveBytesAtEnd() const { return liveBytes_; }
  // The peak of the bytes live objects were asked for: what the program needed at its most.
  std::uint64_t peakLiveBytes() const { return peakLiveBytes_; }
  std::uint64_t failed() const { return failed_; }  // requests the recording heap could not meet
  std::uint64_t resized() const { return resized_; }  // resize and move events
  std::uint64_t bytesAllocated() const { return clock_; }  // the allocation clock now
  // Bucket bound -> freed objects and their requested bytes, by increasing age.
  const std::map<std::uint64_t, Bucket>& histogram() const { return histogram_; }

 private:
  std::uint64_t clock_ = 0;
  std::uint64_t objects_ = 0, freed_ = 0, freedBytes_ = 0, liveBytes_ = 0, failed_ = 0, resized_ = 0;
  std::uint64_t peakLiveBytes_ = 0;
  std::vector<std::uint64_t> births_, sizes_;  // by object index
  std::map<std::uint64_t, Bucket> histogram_;
};

}  // namespace kith::heap
