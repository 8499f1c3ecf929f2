// StatisticsMode: how much StatsHeap (stats_heap.h) records per malloc and free.
// Each mode keeps what the one before it keeps, and costs more per request.
#pragma once

namespace kith::heap {

enum class StatisticsMode {
  // Nothing: statistics() reports zeros and bytesInUse() 0. For measuring a policy's own
  // cost (kith replay --bare); no collector can run over it.
  none,
  // Only bytes in use (one getSize and an add or subtract a request): what the VM's
  // collectors read. Every other count in statistics() stays zero.
  bytesInUse,
  // Every count and histogram of HeapStatistics, without per-request clock reads.
  counts,
  // The counts, and two clock reads a request for alloc_ns and free_ns.
  countsAndTimes,
};

}  // namespace kith::heap
