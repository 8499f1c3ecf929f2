// The GC overhead limit, after HotSpot's (-XX:+UseGCOverheadLimit): a program whose
// live data nearly fills the heap would otherwise crawl from one collection to the
// next. HotSpot calls it thrashing when collections take over 98% of the time and
// recover under 2% of the heap. Kith measures the same thing in space alone, so the
// limit fires at the same collection in every run (studies must be repeatable): the
// mutator's progress between two collections is what it allocated in between, and
// when over the last kWindow collections it allocated less than kWindow * (1 - limit)
// of the heap (then each recovered about that little too), and the last ran because
// the heap refused a request or left less than kFreeLimit of the heap free
// (HotSpot's GCHeapFreeLimit, 2% there; 10% here, because a policy's bytes in use
// leave out its headers and unusable holes — with 8-byte values a small object's
// block header is 15-30% of it, so a full heap can show more than 10% "free", and
// a refused request is the better witness that it is full), the run is thrashing:
// the VM throws the catchable "out of memory" at the next allocation. A
// live set that grows towards the heap's size is not thrashing (much is allocated
// between its collections), nor is a fragmented heap with room left (the
// allocation gate defragments); System.gc() cycles do not count, and a request
// that fails outright (a plain out-of-memory error) ends the streak.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace kith::vm {

class GcOverheadLimit {
 public:
  static constexpr double kDefaultLimit = 0.98;  // --gc-overhead-limit=98: under 2% recovered
  static constexpr int kWindow = 5;
  static constexpr double kFreeLimit = 0.10;

  // limit in (0, 1]; 0 turns it off (--gc-overhead-limit=off, --gc-stress).
  explicit GcOverheadLimit(double limit = kDefaultLimit) : limit_(limit) {}

  // A collection ended. True when it makes the run thrashing (`why` says so).
  bool collectionEnded(std::size_t bytesBefore, std::size_t bytesAfter, std::size_t heapBytes, bool heapRefused,
                       std::string* why) {
    if (limit_ <= 0 || heapBytes == 0) return false;
    std::size_t allocated = bytesBefore > lastAfter_ ? bytesBefore - lastAfter_ : 0;
    lastAfter_ = bytesAfter;
    allocated_[next_ % kWindow] = allocated;
    if (++next_ < kWindow) return false;
    std::size_t total = 0;
    for (std::size_t a : allocated_) total += a;
    if (static_cast<double>(total) >= kWindow * (1 - limit_) * static_cast<double>(heapBytes)) return false;
    std::size_t free = heapBytes > bytesAfter ? heapBytes - bytesAfter : 0;
    if (!heapRefused && static_cast<double>(free) >= kFreeLimit * static_cast<double>(heapBytes)) return false;
    reset();
    char text[256];
    std::snprintf(text, sizeof text,
                  "out of memory: the collector was thrashing (between each of its last %d collections the "
                  "program allocated and they recovered under %.0f%% of the heap, and the heap is full; "
                  "--gc-overhead-limit)",
                  kWindow, (1 - limit_) * 100);
    *why = text;
    return true;
  }
  // The streak ends (a normal out-of-memory error was thrown instead).
  void reset() { next_ = 0; }

 private:
  double limit_;
  std::size_t allocated_[kWindow] = {};
  std::size_t lastAfter_ = 0;  // bytes in use after the previous collection
  int next_ = 0;
};

}  // namespace kith::vm
