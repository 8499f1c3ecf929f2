// `kith replay`: feeds a recorded allocation trace (heap/trace/trace.h) to any heap
// policy, without the interpreter, and reports the same `heap` statistics block as
// `kith run`.
//
// The path of one event: TraceReader::next (decode + consistency check) -> one
// virtual call through heap::Heap (StatsHeap<policy>) -> the block's address in a
// flat table indexed by the object's dense index (ids are 0, 1, 2, ... in every
// trace Kith records). Nothing else runs per event.
//
// What replay does with each event:
//   alloc   malloc(size). If it fails, the VM's allocation gate with no
//           collector: one plain retry, then, if the policy can move blocks
//           (knuth, estranged), one with the relocator installed; the table
//           follows every move (the replayer keeps each block's index in its
//           first word, since nothing else reads replayed blocks). So every
//           failed call counts in the heap's `satisfied.failed`, as in a run. A
//           request that still fails is counted (failedAllocations), and its
//           object's later free skipped; with stopOnFailure the replay stops there.
//   free    free() of the object's block (skipped if its allocation failed here).
//   resize, move
//           a realloc, whichever the recording policy did: in place if this
//           policy's block holds the new size (getSize), otherwise an allocation
//           as for alloc, then the old block's free. One this policy cannot meet
//           leaves the object in its old block (as realloc's NULL does), is counted
//           (failedResizes) and, with stopOnFailure, stops the replay. Skipped for
//           an object whose allocation failed here.
//   failed  (the recording heap's failure) skipped and counted: the trace does
//           not say what the program did next, only what it allocated.
//
// Measuring a policy's cost: every allocation goes through
// kith::cli::TraceReplayer::allocateOne(unsigned long) (plus, when that fails,
// kith::cli::TraceReplayer::retryAllocation(unsigned long), the gate's retries) and
// every free through kith::cli::TraceReplayer::freeOne(void*) (a realloc's too:
// TraceReplayer::resizeOne calls them when it moves a block; beyond them it asks
// the policy getSize), all never inlined,
// so their inclusive cost under `valgrind --tool=callgrind --cache-sim=yes kith
// replay ...` divided by allocateOne's or freeOne's call count is the cost per
// request (instructions, simulated cache misses). The same replay on
// `--heap=nothing` (heap/layers/nothing_heap.h) costs the call, the virtual dispatch and
// StatsHeap's counting without any policy work; subtracted, the rest is the
// policy's own (study/alloc_cost.py does both).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/block_table.h"
#include "cli/option_parser.h"
#include "heap/heap.h"
#include "heap/trace/trace.h"

namespace kith::cli {

struct ReplayResult {
  std::uint64_t events = 0;             // events read and replayed
  std::uint64_t allocations = 0;        // alloc events
  std::uint64_t frees = 0;              // free events
  std::uint64_t recordedFailures = 0;   // failed events (skipped)
  std::uint64_t failedAllocations = 0;  // alloc events this policy could not satisfy
  std::uint64_t skippedFrees = 0;       // frees of objects whose allocation failed here
  std::uint64_t resizes = 0;            // resize and move events (reallocs)
  std::uint64_t resizedInPlace = 0;     // ... this policy's block held the new size
  std::uint64_t resizedMoved = 0;       // ... moved to a new block here
  std::uint64_t failedResizes = 0;      // ... this policy could not meet (the object kept its block)
  std::uint64_t skippedResizes = 0;     // ... of objects whose allocation failed here
  std::uint64_t liveAtEnd = 0;          // blocks still allocated after the last event
  bool stoppedOnFailure = false;
  bool stoppedOnResize = false;  // ... at a resize, not an alloc
  std::string stopPosition;  // where it stopped: "offset N" / "line N"
  std::uint64_t stopSize = 0;  // the request it stopped at, in bytes
  std::string error;         // a malformed trace: "offset N: ..." / "line N: ..."
  double seconds = 0;        // wall time of the replay loop
};

// Replays a trace on one heap. Blocks still allocated at the end stay allocated
// (so that the heap's statistics describe the trace's end) until release() or the
// replayer's destruction; the heap must outlive the replayer.
class TraceReplayer {
 public:
  explicit TraceReplayer(heap::Heap& heap, bool stopOnFailure = false);
  TraceReplayer(const TraceReplayer&) = delete;
  TraceReplayer& operator=(const TraceReplayer&) = delete;
  ~TraceReplayer() { release(); }

  ReplayResult run(heap::TraceReader& reader);
  // Room for `objects` blocks up front, so the table is not remapped as it grows (a
  // bound on the count, e.g. the trace's size in bytes: only the pages used are
  // touched, unless `populate` maps them all now, before the timed loop).
  void reserve(std::size_t objects, bool populate = false);
  // Frees every block still allocated (not counted in ReplayResult); on a policy
  // with an arena, only forgets them (the arena goes back whole with the heap).
  void release();

 private:
  // The only calls into the heap per event, each kept out of line under a stable
  // name so that a profiler's inclusive cost of one is the cost of one request
  // (see "Measuring a policy's cost" above). A direct call and a tail jump each,
  // about 5 instructions an event: below what a wall-clock replay can resolve.
  [[gnu::noinline]] void* allocateOne(std::size_t size);
  [[gnu::noinline]] void freeOne(void* p);
  [[gnu::noinline]] void* retryAllocation(std::size_t size);
  [[gnu::noinline]] void* resizeOne(std::uint64_t index, std::size_t size);
  void* allocateObject(std::uint64_t index, std::size_t size);
  static void stop(ReplayResult& r, const heap::TraceReader& reader, std::uint64_t size, bool resize);
  static void relocated(void* self, void* from, void* to, std::size_t size);

  heap::Heap& heap_;
  bool stopOnFailure_;
  bool canRelocate_;
  BlockTable blocks_;  // by object index; nullptr: freed, or failed here
};

// `kith replay [OPTIONS] TRACE`; args are the words after "replay".
int replayCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
