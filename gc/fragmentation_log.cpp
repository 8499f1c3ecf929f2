#include "gc/fragmentation_log.h"

#include <bit>
#include <optional>

namespace kith::gc {

FragmentationLog::FragmentationLog(std::FILE* file, const heap::Heap& heap, std::size_t heapBytes) : file_(file) {
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
  std::fputs(head.c_str(), file_);  // a failed write is the file's error, reported where it is closed
}

void FragmentationLog::sample(std::uint64_t cycle, const heap::Heap& heap) {
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
  std::fputs(line.c_str(), file_);
}

}  // namespace kith::gc
