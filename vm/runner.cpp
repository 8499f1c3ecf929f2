#include "vm/runner.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

#include <sys/sysinfo.h>

#include "gc/continuous_collector.h"
#include "gc/fragmentation_log.h"
#include "gc/occasional_collector.h"
#include "heap/layers/fixed_arena.h"
#include "heap/heap.h"
#include "heap/statistics/statistics_report.h"
#include "heap/trace/trace.h"
#include "stdlib/builtins.h"
#include "vm/collector.h"
#include "vm/compiler.h"
#include "vm/disassembler.h"
#include "vm/native_stack.h"
#include "vm/source_file.h"
#include "vm/vm.h"

namespace kith::vm {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitCompileError = 65;
constexpr int kExitNoInput = 66;
constexpr int kExitSoftware = 70;
constexpr int kExitCantCreate = 73;

using heap::jsonNumber;
using heap::jsonString;

struct RunReport {
  const RunOptions* options;
  std::string_view collector;  // what actually collected: --gc's choice, or boehm itself
  heap::HeapStatistics heap;
  CollectorStatistics gc;
  std::uint64_t instructions = 0, objectsCreated = 0;
  double wallSeconds = 0;     // compiling and running the script, after set-up
  double startupSeconds = 0;  // set-up of the process, collector, VM and built-ins, arena excluded
  double arenaSeconds = 0;    // reserving (and with --pretouch populating) the heap
  std::size_t handlesLive = 0, handleChunks = 0, handleBytes = 0;
};

std::string statsJson(const RunReport& r) {
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  std::string out = "{\"policy\": " + jsonString(r.options->heapPolicy) + ", \"collector\": " +
                    jsonString(r.collector) + ", \"heap_size\": " + n(r.options->heapSize) + ",\n";
  out += heap::heapStatisticsJson(r.heap);
  out += " \"gc\": {\"cycles\": " + n(r.gc.cycles) + ", \"objects_freed\": " + n(r.gc.objectsFreed) +
         ", \"bytes_freed\": " + n(r.gc.bytesFreed) + ", \"pause_ms\": {\"total\": " + jsonNumber(r.gc.pauseTotalMs) +
         ", \"mean\": " + jsonNumber(r.gc.pauseMeanMs) + ", \"p99\": " + jsonNumber(r.gc.pauseP99Ms) +
         ", \"max\": " + jsonNumber(r.gc.pauseMaxMs) + "}";
  if (r.gc.mmu1ms >= 0)
    out += ",\n  \"mmu\": {\"1ms\": " + jsonNumber(r.gc.mmu1ms) + ", \"10ms\": " + jsonNumber(r.gc.mmu10ms) +
           ", \"100ms\": " + jsonNumber(r.gc.mmu100ms) + "}";
  if (r.gc.forcedCompletions >= 0)
    out += ", \"forced_completions\": " + n(static_cast<std::uint64_t>(r.gc.forcedCompletions));
  if (r.gc.slices >= 0) out += ", \"slices\": " + n(static_cast<std::uint64_t>(r.gc.slices));
  if (r.gc.deferredSlices >= 0) out += ", \"deferred_slices\": " + n(static_cast<std::uint64_t>(r.gc.deferredSlices));
  if (r.gc.peakLiveBytes >= 0) out += ", \"peak_live_bytes\": " + n(static_cast<std::uint64_t>(r.gc.peakLiveBytes));
  if (r.collector == "continuous") out += ", \"pacing\": " + jsonString(r.options->gcPacing);
  // The collector's parameters beside its counts: a count means little without the
  // schedule that produced it (the study records them next to every number).
  if (r.collector == "continuous") {
    const gc::ContinuousCollectorOptions defaults;
    const double start = r.options->gcThreshold > 0 ? r.options->gcThreshold : defaults.startOccupancy;
    const std::size_t step = r.options->gcStep > 0 ? r.options->gcStep : defaults.workPerSlice;
    out += ",\n  \"parameters\": {\"work_per_slice\": " + n(step) + ", \"start_occupancy\": " + jsonNumber(start) +
           ", \"pacing\": " + jsonString(r.options->gcPacing) + ", \"pacing_fraction\": " +
           jsonNumber(static_cast<double>(gc::ContinuousCollector::kPacingNumerator) /
                      static_cast<double>(gc::ContinuousCollector::kPacingDivisor)) +
           ", \"min_slice_bytes\": " + n(gc::ContinuousCollector::kMinSliceBytes) + "}";
  } else if (r.collector == "occasional") {
    const double threshold =
        r.options->gcThreshold > 0 ? r.options->gcThreshold : gc::OccasionalCollectorOptions::kDefaultThreshold;
    out += ",\n  \"parameters\": {\"occupancy_threshold\": " + jsonNumber(threshold) + "}";
  }
  out += "},\n";
  const LocalityStatistics& loc = r.gc.locality;
  out += " \"locality\": {\"cycles\": " + n(loc.cycles) + ", \"references\": " + n(loc.references) +
         ", \"same_line\": " + n(loc.sameLine) + ", \"same_page\": " + n(loc.samePage) +
         ", \"k_close\": " + n(loc.kClose) + ", \"far\": " + n(loc.far) +
         ", \"pages_touched_mean\": " +
         jsonNumber(loc.cycles ? static_cast<double>(loc.pagesTouchedTotal) / static_cast<double>(loc.cycles) : 0.0) +
         ", \"pages_touched_max\": " + n(loc.pagesTouchedMax) + "},\n";
  out += " \"handle_table\": {\"bytes\": " + n(r.handleBytes) + ", \"chunks\": " + n(r.handleChunks) +
         ", \"live\": " + n(r.handlesLive) + "},\n";
  out += " \"vm\": {\"instructions\": " + n(r.instructions) + ", \"objects_created\": " + n(r.objectsCreated) +
         ", \"wall_s\": " + jsonNumber(r.wallSeconds) + ", \"startup_s\": " + jsonNumber(r.startupSeconds) +
         ", \"arena_s\": " + jsonNumber(r.arenaSeconds) + "}}\n";
  return out;
}

std::string statsTable(const RunReport& r) {
  char head[512], tail[2048];
  std::snprintf(head, sizeof head, "--- kith statistics ---\npolicy              %s (heap %zu bytes), collector %s\n",
                r.options->heapPolicy.c_str(), r.options->heapSize, std::string(r.collector).c_str());
  std::snprintf(tail, sizeof tail,
                "gc cycles           %llu (%llu objects, %llu bytes freed)\n"
                "gc pauses ms        total %.3f, mean %.4f, p99 %.4f, max %.4f\n"
                "handle table        %zu bytes in %zu chunks, %zu live (outside the heap)\n"
                "instructions        %llu\n"
                "objects created     %llu\n"
                "wall time           %.3f s (set-up %.3f s, arena %.3f s, not included)\n",
                (unsigned long long)r.gc.cycles, (unsigned long long)r.gc.objectsFreed,
                (unsigned long long)r.gc.bytesFreed, r.gc.pauseTotalMs, r.gc.pauseMeanMs, r.gc.pauseP99Ms,
                r.gc.pauseMaxMs, r.handleBytes, r.handleChunks, r.handlesLive, (unsigned long long)r.instructions,
                (unsigned long long)r.objectsCreated, r.wallSeconds, r.startupSeconds, r.arenaSeconds);
  return head + heap::heapStatisticsTable(r.heap) + tail;
}

void reportUncaught(VM& vm) {
  std::fflush(stdout);
  Value thrown = vm.pendingException();
  std::vector<std::string> trace = vm.exceptionTrace();  // before str() may run code
  std::string message = vm.exceptionMessage(thrown);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  for (const std::string& line : trace) std::fprintf(stderr, "%s\n", line.c_str());
}

// Under a heap that collects garbage itself (boehm) the VM's collectors stay off:
// System.gc() and the statistics' cycles go to the heap's own collector.
class HeapOwnCollector final : public Collector {
 public:
  explicit HeapOwnCollector(heap::Heap& heap) : heap_(heap), cyclesAtStart_(heap.collections()) {}
  void collect(VM&, GcCause) override { heap_.collect(); }
  std::string_view name() const override { return heap_.name(); }
  CollectorStatistics statistics() const override {
    CollectorStatistics s;
    s.cycles = heap_.collections() - cyclesAtStart_;
    return s;
  }

 private:
  heap::Heap& heap_;
  std::uint64_t cyclesAtStart_;
};

// The collector --gc names, with its options (vm/runner.h, RunOptions). `pauses` is
// set to its pause recorder (none for `none`).
std::unique_ptr<Collector> makeCollector(const RunOptions& options, std::chrono::steady_clock::time_point start,
                                         gc::PauseRecorder*& pauses, gc::FragmentationLog* fragmentation) {
  pauses = nullptr;
  std::FILE* log = options.gcLog ? stderr : nullptr;
  // The locality block is only written with the statistics, so only then measured.
  const bool wantStats = options.stats != StatsFormat::none || !options.statsFile.empty();
  if (options.collector == "occasional") {
    gc::OccasionalCollectorOptions o;
    if (options.gcThreshold > 0) o.occupancyThreshold = options.gcThreshold;
    o.heapBytes = options.heapSize;
    o.stress = options.gcStress;
    o.log = log;
    o.fragmentation = fragmentation;
    o.measureLocality = wantStats;
    auto collector = std::make_unique<gc::OccasionalCollector>(o);
    collector->setStartTime(start);
    pauses = &collector->pauseRecorder();
    return collector;
  }
  if (options.collector == "continuous") {
    gc::ContinuousCollectorOptions o;
    if (options.gcThreshold > 0) o.startOccupancy = options.gcThreshold;
    if (options.gcStep > 0) o.workPerSlice = options.gcStep;
    o.heapBytes = options.heapSize;
    o.stress = options.gcStress;
    o.pacing = options.gcPacing == "work" ? gc::GcPacing::work : gc::GcPacing::time;
    o.log = log;
    o.fragmentation = fragmentation;
    o.measureLocality = wantStats;
    auto collector = std::make_unique<gc::ContinuousCollector>(o);
    collector->setStartTime(start);
    pauses = &collector->pauseRecorder();
    return collector;
  }
  return std::make_unique<NoCollector>("none");
}

}  // namespace

const std::vector<std::string>& collectorNames() {
  static const std::vector<std::string> names = {"occasional", "continuous", "none"};
  return names;
}

int runScriptFile(const RunOptions& options) {
  auto start = std::chrono::steady_clock::now();
  reserveNativeStack();
  bool knownCollector = false;
  for (const std::string& name : collectorNames()) knownCollector |= name == options.collector;
  if (!knownCollector) {
    std::fprintf(stderr, "kith: unknown collector '%s'; valid: occasional, continuous, none\n", options.collector.c_str());
    return 64;
  }
  std::string readError;
  std::optional<std::string> source = readSourceFile(options.script, readError);
  if (!source) {
    std::fprintf(stderr, "kith: cannot read '%s': %s\n", options.script.c_str(), readError.c_str());
    return kExitNoInput;
  }
  if (heap::isReplayBaseline(options.heapPolicy)) {  // its blocks have no memory to hold objects
    std::fprintf(stderr, "kith: --heap=%s is a replay baseline: only 'kith replay' takes it\n",
                 options.heapPolicy.c_str());
    return 64;
  }
  std::unique_ptr<heap::Heap> heap;
  heap::arenaPretouch() = options.pretouch;
  // The arena's reservation and pretouch are timed apart from the program (vm.arena_s).
  const auto arenaStart = std::chrono::steady_clock::now();
  try {
    // Per-operation timers only when statistics are wanted and --stats-timers is on.
    const bool timeOperations = options.statsTimers && (options.stats != StatsFormat::none || !options.statsFile.empty());
    heap = heap::makeHeap(options.heapPolicy, options.heapSize, timeOperations);
  } catch (const std::bad_alloc&) {
    // The size parsed; the system would not map it. Say why, with what the machine has.
    struct sysinfo info {};
    unsigned long long memory = 0, swap = 0;
    if (sysinfo(&info) == 0) {
      memory = static_cast<unsigned long long>(info.totalram) * info.mem_unit;
      swap = static_cast<unsigned long long>(info.totalswap) * info.mem_unit;
    }
    std::fprintf(stderr,
                 "kith: --heap-size: cannot reserve a heap of %zu bytes: the system refused the mapping (this "
                 "machine has %.1f GiB of memory and %.1f GiB of swap, and the heap is mapped and populated "
                 "up front); try a smaller --heap-size\n",
                 options.heapSize, memory / 1073741824.0, swap / 1073741824.0);
    return 64;
  }
  if (!heap) {
    std::fprintf(stderr, "kith: unknown heap policy '%s'; valid: %s\n", options.heapPolicy.c_str(),
                 heap::policyNames().c_str());
    return 64;
  }
  const auto arenaSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - arenaStart).count();
  // Printed when the run ends, so a script's error stays the first line on stderr.
  struct NoteAtExit {
    std::string text;
    ~NoteAtExit() {
      if (!text.empty()) std::fprintf(stderr, "%s\n", text.c_str());
    }
  } ignoredGcNote;
  // Before the collector that samples into it, so it outlives the collector.
  std::unique_ptr<gc::FragmentationLog> fragmentation;
  if (!options.fragFile.empty()) {
    fragmentation = std::make_unique<gc::FragmentationLog>(options.fragFile, *heap, options.heapSize);
    if (!fragmentation->ok()) {
      std::fprintf(stderr, "kith: cannot write fragmentation samples to '%s': %s\n", options.fragFile.c_str(),
                   std::strerror(errno));
      return kExitCantCreate;
    }
  }
  std::unique_ptr<Collector> collectorOwner;
  gc::PauseRecorder* pauses = nullptr;  // the VM's collectors' (not boehm's, not none's)
  if (heap->collectsGarbage()) {
    // Only when a collector option was given: the default run's stderr stays clean.
    if (options.collector != "occasional" || options.gcStress || options.gcLog || options.gcThreshold > 0 ||
        options.gcStep > 0 || options.gcPacing != "time")
      ignoredGcNote.text = "kith: note: --heap=" + options.heapPolicy +
                           " collects garbage itself; --gc and its options were ignored";
    collectorOwner = std::make_unique<HeapOwnCollector>(*heap);
  } else {
    collectorOwner = makeCollector(options, start, pauses, fragmentation.get());
    if (pauses && !options.gcPausesFile.empty()) pauses->keepAll();
  }
  Collector& collector = *collectorOwner;
  std::unique_ptr<VM> vm;
  try {
    VMOptions vmOptions{options.maxDepth, options.args, options.heapSize};
    vmOptions.checkFreedObjects = options.checkFreed || options.gcStress;
    vmOptions.moveObjects = options.moveObjects;
    vmOptions.gcOverheadLimit = options.gcStress ? 0 : options.gcOverheadLimit;
    vmOptions.failAllocation = options.failAllocation;
    vmOptions.failAllocationEvery = options.failAllocationEvery;
    vm = std::make_unique<VM>(*heap, collector, vmOptions);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kith: cannot reserve the VM stack for --max-depth=%zu\n", options.maxDepth);
    return kExitSoftware;
  }
  std::FILE* traceFile = nullptr;
  std::unique_ptr<heap::TraceWriter> trace;
  if (!options.tracePath.empty()) {
    traceFile = std::fopen(options.tracePath.c_str(), "wb");
    if (!traceFile) {
      std::fprintf(stderr, "kith: cannot write trace '%s': %s\n", options.tracePath.c_str(), std::strerror(errno));
      return kExitCantCreate;
    }
    trace = std::make_unique<heap::TraceWriter>(traceFile, options.traceFormat);
    vm->setTraceWriter(trace.get());
  }

  int exitCode = kExitOk;
  std::optional<std::chrono::steady_clock::time_point> programStart;  // set-up done: vm.wall_s starts
  try {
    stdlib::installBuiltins(*vm);
    programStart = std::chrono::steady_clock::now();
    CompileResult compiled = compile(*vm, *source, options.script);
    if (!compiled.script) {
      for (const std::string& e : compiled.reportLines()) std::fprintf(stderr, "%s\n", e.c_str());
      exitCode = kExitCompileError;
    } else {
      try {
        vm->runScript(compiled.script);
      } catch (const KithThrow&) {
        reportUncaught(*vm);
        exitCode = kExitSoftware;
      } catch (const ImportCompileError& e) {
        std::fflush(stdout);
        for (const std::string& line : e.report) std::fprintf(stderr, "%s\n", line.c_str());
        exitCode = kExitCompileError;
      }
    }
  } catch (const KithThrow&) {
    // Only the built-ins' setup can get here: the heap cannot hold the prelude.
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", vm->exceptionMessage(vm->pendingException()).c_str());
    exitCode = kExitSoftware;
  } catch (const ExitRequest& exit) {
    exitCode = exit.code;
  }
  std::fflush(stdout);
  const auto programEnd = std::chrono::steady_clock::now();
  if (!programStart) programStart = programEnd;  // the built-ins' set-up failed

  if (trace) {
    vm->setTraceWriter(nullptr);
    trace->finish();  // the binary end marker, then everything to the file
    bool ok = trace->ok();
    trace.reset();
    if (std::fclose(traceFile) != 0 || !ok) {
      std::fprintf(stderr, "kith: writing trace '%s' failed\n", options.tracePath.c_str());
      if (exitCode == kExitOk) exitCode = kExitCantCreate;
    }
  }
  if (fragmentation && !fragmentation->close()) {
    std::fprintf(stderr, "kith: writing fragmentation samples to '%s' failed\n", options.fragFile.c_str());
    if (exitCode == kExitOk) exitCode = kExitCantCreate;
  }
  if (!options.gcPausesFile.empty()) {
    // Every pause, for distributions and MMU over any window (kith study). Without
    // a collector of the VM's own (none, boehm) the list is empty.
    std::FILE* out = std::fopen(options.gcPausesFile.c_str(), "w");
    bool ok = out != nullptr;
    if (out) {
      if (pauses) {
        ok = pauses->writePauseList(out, collector.name(), std::chrono::steady_clock::now());
      } else {
        auto runNs = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
        ok = std::fprintf(out, "# kith-gc-pauses 1\n# collector %s\n# run_ns %lld\n# start_ns duration_ns\n",
                          std::string(collector.name()).c_str(), static_cast<long long>(runNs.count())) > 0;
      }
      ok = std::fclose(out) == 0 && ok;
    }
    if (!ok) {
      std::fprintf(stderr, "kith: cannot write GC pauses to '%s'\n", options.gcPausesFile.c_str());
      if (exitCode == kExitOk) exitCode = kExitCantCreate;
    }
  }
  if (options.stats != StatsFormat::none || !options.statsFile.empty()) {
    RunReport report;
    report.options = &options;
    report.collector = collector.name();
    report.heap = heap->statistics();
    report.gc = collector.statistics();
    report.instructions = vm->instructionsExecuted();
    report.objectsCreated = vm->objectsCreated();
    report.handlesLive = vm->handles().liveCount();
    report.handleChunks = vm->handles().chunkCount();
    report.handleBytes = vm->handles().bytesReserved();
    report.wallSeconds = std::chrono::duration<double>(programEnd - *programStart).count();
    report.arenaSeconds = arenaSeconds;
    report.startupSeconds = std::chrono::duration<double>(*programStart - start).count() - arenaSeconds;
    std::string json = statsJson(report);
    if (options.stats == StatsFormat::json) std::fputs(json.c_str(), stderr);
    if (options.stats == StatsFormat::table) std::fputs(statsTable(report).c_str(), stderr);
    if (!options.statsFile.empty()) {
      std::ofstream out(options.statsFile);
      out << json;
      if (!out) {
        std::fprintf(stderr, "kith: cannot write statistics to '%s'\n", options.statsFile.c_str());
        if (exitCode == kExitOk) exitCode = kExitCantCreate;
      }
    }
  }
  return exitCode;
}

int disassembleFile(const std::string& path) {
  std::string readError;
  std::optional<std::string> source = readSourceFile(path, readError);
  if (!source) {
    std::fprintf(stderr, "kith: cannot read '%s': %s\n", path.c_str(), readError.c_str());
    return kExitNoInput;
  }
  auto heap = heap::makeHeap("malloc", std::size_t{64} << 20, false);
  NoCollector collector;
  VM vm(*heap, collector);
  try {
    stdlib::installBuiltins(vm);
  } catch (const KithThrow&) {
    std::fprintf(stderr, "kith: cannot set up the built-ins\n");
    return kExitSoftware;
  }
  CompileResult compiled = compile(vm, *source, path);
  if (!compiled.script) {
    for (const std::string& e : compiled.reportLines()) std::fprintf(stderr, "%s\n", e.c_str());
    return kExitCompileError;
  }
  std::fputs(disassemble(vm, *compiled.script).c_str(), stdout);
  return kExitOk;
}

}  // namespace kith::vm
