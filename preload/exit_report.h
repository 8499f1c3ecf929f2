// The statistics a process under libkith_malloc.so writes when it exits: CLI.md's
// `heap` block (heap/statistics/statistics_report.h writes it, as for kith run and
// kith replay) with what only a whole program has added to it, under the process's
// name. --stats (KITH_STATS=table|json) writes it on standard error,
// --stats-file (KITH_STATS_FILE) as JSON to PATH or PATH.PID (output_path.h).
//
// JSON, one object per process:
//   {"policy": "tlsf", "heap_size": N, "check": false,
//    "process": {"pid": N, "command": "sort", "peak_rss_bytes": N},
//    "heap": {...the heap block..., "reallocs": {"in_place": N, "moved": N},
//             "aligned_requests": N, "memory_consumption_bytes": N}}
// memory_consumption_bytes is the Heap Layers paper's memory consumption: the
// high-water mark of arena memory the policy has handed out or touched, counted as
// the arena's resident pages at exit (the arena is reserved, never returned, so its
// resident pages only grow); null for the policies without an arena (malloc,
// jemalloc, mimalloc), for which peak_rss_bytes is the measure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "heap/statistics/statistics.h"
#include "preload/preload_settings.h"

namespace kith::preload {

// What the process heap counts beside StatsHeap.
struct ProcessCounts {
  std::uint64_t reallocsInPlace = 0;
  std::uint64_t reallocsMoved = 0;
  std::uint64_t alignedRequests = 0;  // memalign and its kin, alignment above 16
  // The Heap Layers paper's memory consumption on an arena: the highest offset a block
  // handed out has reached (its start plus the request), as sbrk's break would stand.
  std::size_t arenaHighWater = 0;
};

struct ProcessReport {
  std::uint64_t peakRequested = 0;  // the peak of the bytes live blocks were asked for (requested_bytes.h)
  std::string policy;
  std::size_t heapBytes = 0;
  bool check = false;
  long pid = 0;
  std::string command;
  heap::HeapStatistics heap;
  ProcessCounts counts;
  std::optional<std::size_t> memoryConsumption;  // counts.arenaHighWater; nullopt: no arena
  std::optional<std::size_t> arenaResident;      // the arena's pages resident at exit (touched)
  std::size_t peakRss = 0;
};

std::string reportJson(const ProcessReport& r);
std::string reportTable(const ProcessReport& r);

// The bytes of [base, base + size) resident now (mincore), in pages.
std::size_t residentBytes(const void* base, std::size_t size);
// The program's peak resident set (VmHWM; getrusage where /proc is not there), in bytes.
std::size_t peakResidentBytes();

// Writes the report where `settings` ask; a file that cannot be written is one
// line on standard error.
void writeReport(const PreloadSettings& settings, const ProcessReport& report);

}  // namespace kith::preload
