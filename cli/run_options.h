// `kith run`'s options (CLI.md), parsed once from the command line into types: the
// collector and its pacing as enums, sizes and counts as numbers. What runs the
// script (cli/run_command.h) reads them and checks no name again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_parser.h"
#include "cli/option_table.h"
#include "cli/statistics_request.h"
#include "gc/continuous_collector.h"
#include "heap/trace/trace_event.h"
#include "vm/compiler_heap.h"
#include "vm/vm_options.h"

namespace kith::cli {

// --gc: the VM's collector (a heap that collects garbage itself overrides it).
enum class CollectorChoice { occasional, continuous, none };

std::optional<CollectorChoice> collectorNamed(std::string_view name);
std::string_view collectorName(CollectorChoice collector);
std::string_view pacingName(gc::GcPacing pacing);

// The smallest --heap-size run, repl and replay take.
inline constexpr std::size_t kMinimumHeapSize = std::size_t{16} << 10;

struct RunOptions {
  std::string heapPolicy = "estranged";  // a policy heap::isPolicy names, never a replay baseline
  std::size_t heapSize = std::size_t{64} << 20;
  CollectorChoice collector = CollectorChoice::occasional;
  // --gc-threshold: the heap occupancy (fraction, (0, 1]) that triggers a cycle
  // (occasional) or starts one (continuous); 0: the collector's default.
  double gcThreshold = 0;
  // --gc-step: the continuous collector's work per slice, in units of an object
  // marked, a block freed or 8 handle slots swept; 0: its default.
  std::size_t gcStep = 0;
  // --gc-pacing: when the continuous collector's slices run. time: by allocation,
  // with the mutator-utilization governor; work: by allocation volume alone, so
  // every count in the statistics is identical run to run.
  gc::GcPacing gcPacing = gc::GcPacing::time;
  // --gc-pauses-file: every GC pause (start and duration, ns since the run's start;
  // gc/pause_recorder.h, writePauseList).
  std::string gcPausesFile;
  // --host-probe-ms: ms of a bare clock loop before and after the script, whose
  // longest gap the statistics report (cli/host_probe.h); 0: none.
  std::size_t hostProbeMs = 0;
  std::string fragFile;  // --frag-file: the heap's free space after every collection (gc/fragmentation_log.h)
  bool gcLog = false;     // one line per cycle on stderr
  bool gcStress = false;  // a full collection (continuous: a slice) before every allocation
  bool moveObjects = false;       // --gc-stress=move (VMOptions::moveObjects)
  double gcOverheadLimit = vm::GcOverheadLimit::kDefaultLimit;  // --gc-overhead-limit (VMOptions; 0: off)
  bool pretouch = false;    // --pretouch: populate the heap's arena at start (heap/layers/fixed_arena.h)
  bool checkFreed = false;  // --check-freed (VMOptions::checkFreedObjects; implied by --gc-stress)
  std::uint64_t failAllocation = 0;       // --fail-alloc=N
  std::uint64_t failAllocationEvery = 0;  // --fail-alloc-every=N
  std::size_t maxDepth = vm::kDefaultMaxDepth;
  vm::CompilerHeap compilerHeap = vm::CompilerHeap::zone;  // --compiler-heap (an experiment knob)
  bool compileOnly = false;     // --compile-only: stop after compiling the script
  bool compilerStats = false;   // --compiler-stats: the scratch heap's bytes, one JSON line on stderr
  StatisticsRequest statistics;
  std::string tracePath;  // record every allocation and free here
  heap::TraceFormat traceFormat = heap::TraceFormat::binary;
  std::string script;
  std::vector<std::string> args;  // System.args

  bool operator==(const RunOptions&) const = default;

  // Whether any option of the VM's collector was given (a heap that collects
  // garbage itself then says it ignored them).
  bool collectorOptionsGiven() const;
};

// The hint line for a misspelled --heap ("did you mean 'knuth'?"), among the
// policies (and with `withReplayBaselines`, replay's `nothing`); empty if none is near.
std::string policySuggestion(std::string_view word, bool withReplayBaselines = false);
// The same for a misspelled --gc.
std::string collectorSuggestion(std::string_view word);

// The usage error (exit 64) for an unknown --compiler-heap NAME.
int compilerHeapError(std::string_view name);

// The options `kith run` takes (and `kith FILE` with the run implied), one row each
// (option_table.h), in the order of its --help; `kith repl` reads the same.
OptionTable<RunOptions> runOptionTable();
// What the command-line parser needs of them.
const std::vector<OptionSpec>& runOptionSpecs();
// "options of run:" and an entry for each, as `kith run --help` shows them.
std::string runOptionsHelp();

// `kith disasm`'s one option, run's --compiler-heap (its help is disasm's usage line
// in `kith --help`), and what the command-line parser needs of it.
OptionTable<RunOptions> disasmOptionTable();
const std::vector<OptionSpec>& disasmOptionSpecs();

// What `kith repl`, which reads run's options but runs no script, passes last in
// place of the script's name (cli/repl.cpp): always the script, never an option's value.
inline constexpr std::string_view kNoScriptStandIn = "<repl>";

// Reads `run`'s options up to the script name (`-`: standard input); the words
// after it are the script's. nullopt when `options` is complete, else the usage error's exit code.
// `command` names who reads them in messages (`repl` reads run's options too).
std::optional<int> parseRunOptions(const std::vector<std::string_view>& args, RunOptions& options,
                                   std::string_view command = "run");

}  // namespace kith::cli
