#include "gc/fragmentation_log.h"

#include <bit>
#include <optional>

namespace kith::gc {

FragmentationLog::FragmentationLog(const std::string& path, const heap::Heap& heap, std::size_t heapBytes)
    : file_(std::fopen(path.c_str(), "w")) {
  if (!file_) {
    ok_ = false;
    return;
  }
  std::optional<heap::FreeSpace> census = heap.freeSpace();
  byClass_ = census && census->byClass;
  topClass_ = heapBytes ? static_cast<unsigned>(std::bit_width(heapBytes)) - 1 : 0;
  if (topClass_ < heap::FreeSpace::kSmallestClass) topClass_ = heap::FreeSpace::kSmallestClass;
  if (topClass_ >= heap::FreeSpace::kClassCount) topClass_ = heap::FreeSpace::kClassCount - 1;
  std::string head = "# kith-frag 1\n# policy " + std::string(heap.name()) + "\n# heap_bytes " +
                     std::to_string(heapBytes) + "\n# by_class " + (byClass_ ? "yes" : "no") +
                     "\ncycle\tbytes_allocated\tin_use\tfree\tlargest_free";
  if (byClass_)
    for (unsigned k = heap::FreeSpace::kSmallestClass; k <= topClass_; ++k)
      head += "\tfree_" + std::to_string(std::uint64_t{1} << k);
  head += "\n";
  if (std::fputs(head.c_str(), file_) < 0) ok_ = false;
}

FragmentationLog::~FragmentationLog() { close(); }

void FragmentationLog::sample(std::uint64_t cycle, const heap::Heap& heap) {
  if (!file_) return;
  heap::HeapStatistics stats = heap.statistics();
  std::optional<heap::FreeSpace> census = heap.freeSpace();
  std::string line = std::to_string(cycle) + "\t" + std::to_string(stats.bytes_allocated) + "\t" +
                     std::to_string(stats.bytes_in_use) + "\t";
  line += census ? std::to_string(census->freeBytes) + "\t" + std::to_string(census->largestFreeBlock)
                 : std::string("NA\tNA");
  if (byClass_) {
    // Classes above the heap's size cannot hold a block; fold any into the last column.
    std::uint64_t above = 0;
    for (unsigned k = topClass_ + 1; k < heap::FreeSpace::kClassCount; ++k) above += census->bytesByClass[k];
    for (unsigned k = heap::FreeSpace::kSmallestClass; k <= topClass_; ++k)
      line += "\t" + std::to_string(census->bytesByClass[k] + (k == topClass_ ? above : 0));
  }
  line += "\n";
  if (std::fputs(line.c_str(), file_) < 0) ok_ = false;
}

bool FragmentationLog::close() {
  if (!file_) return ok_;
  bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  ok_ = ok_ && closed;
  return ok_;
}

}  // namespace kith::gc
