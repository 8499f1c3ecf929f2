#include "cli/replay.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "cli/byte_size.h"
#include "cli/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/output_conflicts.h"
#include "cli/output_file.h"
#include "cli/statistics_request.h"
#include "cli/trace_command.h"
#include "cli/replay_options.h"
#include "cli/run_options.h"
#include "cli/usage_error.h"
#include "heap/layers/fixed_arena.h"
#include "heap/statistics/statistics_report.h"

namespace kith::cli {

using heap::heapStatisticsJson;
using heap::heapStatisticsTable;

// --- the replay loop ---------------------------------------------------------------

TraceReplayer::TraceReplayer(heap::Heap& heap, bool stopOnFailure)
    : heap_(heap), stopOnFailure_(stopOnFailure), canRelocate_(heap.setRelocator(&relocated, this)) {
  // Installed only for a retry, as the VM does: a moving heap defragments only
  // when a request would otherwise fail.
  if (canRelocate_) heap_.setRelocator(nullptr, nullptr);
}

ReplayResult TraceReplayer::run(heap::TraceReader& reader) {
  ReplayResult r;
  auto start = std::chrono::steady_clock::now();
  heap::TraceEvent e;
  while (reader.next(e)) {
    switch (e.kind) {
      case heap::TraceEventKind::alloc: {
        // The reader numbers objects densely in allocation order: this one is
        // blocks_.size().
        void* p = allocateObject(blocks_.size(), e.size);
        blocks_.push_back(p);
        ++r.allocations;
        if (!p) {
          ++r.failedAllocations;
          if (stopOnFailure_) stop(r, reader, e.size, false);
        }
        break;
      }
      case heap::TraceEventKind::free: {
        void*& p = blocks_[reader.objectIndex()];
        if (p) {
          freeOne(p);
          p = nullptr;
        } else {
          ++r.skippedFrees;
        }
        ++r.frees;
        break;
      }
      case heap::TraceEventKind::resize:
      case heap::TraceEventKind::move: {
        std::uint64_t index = reader.objectIndex();
        ++r.resizes;
        if (!blocks_[index]) {
          ++r.skippedResizes;
        } else if (void* p = resizeOne(index, e.size)) {
          ++(p == blocks_[index] ? r.resizedInPlace : r.resizedMoved);
          blocks_[index] = p;
        } else {
          ++r.failedResizes;
          if (stopOnFailure_) stop(r, reader, e.size, true);
        }
        break;
      }
      case heap::TraceEventKind::failed:
        ++r.recordedFailures;
        break;
    }
    ++r.events;
    if (r.stoppedOnFailure) break;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.error = reader.error();
  for (void* p : blocks_) r.liveAtEnd += p != nullptr;
  return r;
}

void TraceReplayer::reserve(std::size_t objects, bool populate) {
  try {
    blocks_.reserve(objects, populate);
  } catch (const std::exception&) {
    // a hint only: the table grows as it must
  }
}

// One allocation or free: the heap's call and nothing else (replay.h, "Measuring a
// policy's cost"); each compiles to a tail jump through the vtable.
void* TraceReplayer::allocateOne(std::size_t size) { return heap_.malloc(size); }

void TraceReplayer::freeOne(void* p) { heap_.free(p); }

// A block for object `index` through the allocation gate, the index in its first
// word when blocks can move (relocated() reads it there); nullptr if the gate fails.
void* TraceReplayer::allocateObject(std::uint64_t index, std::size_t size) {
  void* p = allocateOne(size);
  if (!p) p = retryAllocation(size);  // may move blocks
  if (p && canRelocate_) *static_cast<std::uint64_t*>(p) = index;
  return p;
}

// --stop-on-failure: the replay ends at this request, which is said where and what.
void TraceReplayer::stop(ReplayResult& r, const heap::TraceReader& reader, std::uint64_t size, bool resize) {
  r.stoppedOnFailure = true;
  r.stoppedOnResize = resize;
  r.stopPosition = reader.position();
  r.stopSize = size;
}

// A realloc, as libkith_malloc.so does one: in place when the block holds the new
// size, otherwise a new block (through the allocation gate, as an alloc event) and
// the old one freed. Nothing is copied: a replay never reads its blocks' contents
// (but for the index in a movable block's first word). Returns the object's block
// (its old one: in place), or nullptr with the old block still the object's.
void* TraceReplayer::resizeOne(std::uint64_t index, std::size_t size) {
  if (size <= heap_.getSize(blocks_[index])) return blocks_[index];
  void* q = allocateObject(index, size);  // may move this object's block too
  if (!q) return nullptr;
  freeOne(blocks_[index]);
  return q;
}

// The VM's allocation gate with no collector (vm.cpp, allocateObject): a plain
// retry (where a collection would have run; lea consolidates its quick lists on a
// failure, so the retry can succeed), then, on a moving heap, one more with the
// relocator installed. So a replay on the recording policy makes the same calls,
// and counts the same `satisfied` outcomes, as a --gc=none run.
void* TraceReplayer::retryAllocation(std::size_t size) {
  void* p = heap_.malloc(size);
  if (!p && canRelocate_) {
    heap_.setRelocator(&relocated, this);
    p = heap_.malloc(size);
    heap_.setRelocator(nullptr, nullptr);
  }
  return p;
}

// The heap has copied the block to `to`; its first word names the object.
void TraceReplayer::relocated(void* self, void* /*from*/, void* to, std::size_t) {
  auto* replayer = static_cast<TraceReplayer*>(self);
  replayer->blocks_[*static_cast<std::uint64_t*>(to)] = to;
}

void TraceReplayer::release() {
  if (heap_.arenaBase()) {  // the arena goes back whole with the heap
    blocks_.clear();
    return;
  }
  for (void*& p : blocks_)
    if (p) {
      heap_.free(p);
      p = nullptr;
    }
}

// --- the command -------------------------------------------------------------------

namespace {

double eventsPerSecond(const ReplayResult& r) { return r.seconds > 0 ? static_cast<double>(r.events) / r.seconds : 0; }

std::string replayJson(const ReplayOptions& o, const heap::HeapStatistics& h, const ReplayResult& r,
                       heap::TraceFormat format) {
  JsonWriter w;
  w.beginObject().key("policy").string(o.policy).key("heap_size").number(std::uint64_t{o.heapSize});
  w.key("trace").string(o.trace).lineBreak(1);
  // --bare counted nothing: no heap block rather than one of zeros that would read as measured.
  if (o.bare)
    w.key("bare").boolean(true);
  else
    w.key("heap").json(heapStatisticsJson(h));
  w.lineBreak(1).key("replay").beginObject().key("format").string(heap::traceFormatName(format));
  w.key("events").number(r.events).key("allocations").number(r.allocations).key("frees").number(r.frees);
  w.key("recorded_failures").number(r.recordedFailures).key("failed_allocations").number(r.failedAllocations);
  w.key("skipped_frees").number(r.skippedFrees).key("resizes").number(r.resizes);
  w.key("resized_in_place").number(r.resizedInPlace).key("resized_moved").number(r.resizedMoved);
  w.key("failed_resizes").number(r.failedResizes).key("skipped_resizes").number(r.skippedResizes);
  w.key("live_at_end").number(r.liveAtEnd);
  w.key("stopped_on_failure").boolean(r.stoppedOnFailure).key("wall_s").number(r.seconds);
  w.key("events_per_s").number(eventsPerSecond(r)).endObject().endObject();
  return w.text() + "\n";
}

std::string replayTable(const ReplayOptions& o, const heap::HeapStatistics& h, const ReplayResult& r,
                        heap::TraceFormat format) {
  auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  char line[1024];
  std::snprintf(line, sizeof line,
                "--- kith replay statistics ---\npolicy              %s (heap %zu bytes), trace %s (%s)\n",
                o.policy.c_str(), o.heapSize, o.trace.c_str(), std::string(heap::traceFormatName(format)).c_str());
  std::string out = line;
  out += o.bare ? std::string("heap                --bare: nothing counted\n") : heapStatisticsTable(h);
  std::snprintf(line, sizeof line, "%llu in %.3f s (%.1fM events/s)", u(r.events), r.seconds,
                eventsPerSecond(r) / 1e6);
  out += "replay\n" + heap::statisticsTableLine("events", line);
  std::snprintf(line, sizeof line, "%llu recorded failures, %llu frees of allocations that failed here",
                u(r.recordedFailures), u(r.skippedFrees));
  out += heap::statisticsTableLine("skipped", line);
  if (r.resizes > 0) {
    std::snprintf(line, sizeof line, "%llu: %llu in place, %llu moved, %llu failed here, %llu skipped", u(r.resizes),
                  u(r.resizedInPlace), u(r.resizedMoved), u(r.failedResizes), u(r.skippedResizes));
    out += heap::statisticsTableLine("resizes", line);
  }
  return out + heap::statisticsTableLine("live at end", std::to_string(r.liveAtEnd) + " blocks");
}

}  // namespace

int replayCommand(const std::vector<std::string_view>& args) {
  ReplayOptions o;
  if (auto exit = parseReplayOptions(args, o)) return *exit;
  if (auto exit = refuseSharedOutputs({{"--stats-file", o.statistics.file}}, {{"the trace", o.trace}})) return *exit;

  std::string openError;
  TraceFile file = openTrace(o.trace, openError);
  if (!file) {
    std::fprintf(stderr, "kith: %s\n", openError.c_str());
    return kExitNoInput;
  }
  // Readied before the replay, so a wrong path costs no replay; put in place only
  // when written whole (a malformed trace leaves an earlier file as it was).
  OutputFile statisticsFile;
  if (!openStatisticsFile(o.statistics, statisticsFile)) return kExitCantCreate;

  std::unique_ptr<heap::Heap> heap;
  try {
    heap::ArenaPretouch pretouch(o.pretouch);  // for this heap's arena and side tables
    heap = heap::makeHeap(o.policy, o.heapSize,
                          o.bare ? heap::StatisticsMode::none : o.statistics.heapMode(/*countsRead=*/false));
  } catch (const std::bad_alloc&) {
    // As run: the size parsed, the system would not map it (a usage matter).
    std::fprintf(stderr,
                 "kith: --heap-size: cannot reserve a heap of %zu bytes: the system refused the mapping; try a "
                 "smaller --heap-size\n",
                 o.heapSize);
    return kExitUsage;
  }
  configureHeap(o.statistics, *heap);

  heap::TraceReader reader(file.get());
  TraceReplayer replayer(*heap, o.stopOnFailure);
  // Every event takes at least one byte in either encoding, so a regular file's size
  // bounds its object count; capped, as the reservation is virtual memory.
  struct stat st {};
  if (::fstat(::fileno(file.get()), &st) == 0 && S_ISREG(st.st_mode))
    replayer.reserve(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), std::size_t{1} << 28),
                     o.pretouch);  // the block table's pages too
  ReplayResult r = replayer.run(reader);
  if (!r.error.empty()) {
    std::fprintf(stderr, "kith: %s: %s\n", o.trace.c_str(), r.error.c_str());
    return kExitDataError;
  }
  heap::HeapStatistics statistics = heap->statistics();  // before release() frees what is left
  replayer.release();

  std::printf("replayed %llu events on %s in %.3f s (%.1fM events/s): %llu allocations (%llu failed here), %llu frees\n",
              static_cast<unsigned long long>(r.events), o.policy.c_str(), r.seconds, eventsPerSecond(r) / 1e6,
              static_cast<unsigned long long>(r.allocations), static_cast<unsigned long long>(r.failedAllocations),
              static_cast<unsigned long long>(r.frees));
  if (r.resizes > 0)
    std::printf("  and %llu resizes: %llu in place, %llu moved, %llu failed here\n",
                static_cast<unsigned long long>(r.resizes), static_cast<unsigned long long>(r.resizedInPlace),
                static_cast<unsigned long long>(r.resizedMoved), static_cast<unsigned long long>(r.failedResizes));
  std::fflush(stdout);
  int exitCode = kExitOk;
  if (r.stoppedOnFailure) {
    std::fprintf(stderr,
                 "kith: %s: %s: --heap=%s could not satisfy the %s %llu bytes; replay stopped "
                 "(--stop-on-failure)\n",
                 o.trace.c_str(), r.stopPosition.c_str(), o.policy.c_str(),
                 r.stoppedOnResize ? "resize to" : "allocation of", static_cast<unsigned long long>(r.stopSize));
    exitCode = kExitSoftware;
  }
  if (o.statistics.wanted() &&
      !writeStatistics(o.statistics, statisticsFile, replayJson(o, statistics, r, reader.format()),
                       replayTable(o, statistics, r, reader.format())) &&
      exitCode == kExitOk)
    exitCode = kExitCantCreate;
  return exitCode;
}

}  // namespace kith::cli
