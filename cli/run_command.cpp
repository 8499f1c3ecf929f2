#include "cli/run_command.h"

#include <sys/sysinfo.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>

#include "cli/exit_codes.h"
#include "cli/heap_own_collector.h"
#include "cli/host_probe.h"
#include "cli/output_conflicts.h"
#include "cli/output_file.h"
#include "cli/run_assembly.h"
#include "cli/run_report.h"
#include "cli/script_source.h"
#include "cli/statistics_request.h"
#include "cli/usage_error.h"
#include "gc/continuous_collector.h"
#include "gc/fragmentation_log.h"
#include "gc/occasional_collector.h"
#include "gc/pause_stamp.h"
#include "heap/heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/trace/trace.h"
#include "stdlib/builtins.h"
#include "vm/collector.h"
#include "vm/compiler.h"
#include "vm/disassembler.h"
#include "vm/native_stack.h"
#include "vm/vm.h"

namespace kith::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// An output that failed turns a clean exit into 73; an earlier failure's code stays.
void noteOutputWritten(bool ok, int& exitCode) {
  if (!ok && exitCode == kExitOk) exitCode = kExitCantCreate;
}

std::optional<std::string> readScript(const std::string& path) {
  std::string readError;
  std::optional<std::string> source = readScriptSource(path, readError);
  if (!source) std::fprintf(stderr, "kith: cannot read '%s': %s\n", scriptName(path).c_str(), readError.c_str());
  return source;
}

}  // namespace

std::unique_ptr<heap::Heap> buildHeap(const RunOptions& options, heap::StatisticsMode mode) {
  std::unique_ptr<heap::Heap> heap;
  try {
    heap::ArenaPretouch pretouch(options.pretouch);  // for this heap's arena and side tables
    heap = heap::makeHeap(options.heapPolicy, options.heapSize, mode);
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
                 "machine has %.1f GiB of memory and %.1f GiB of swap; the heap is reserved whole at start and "
                 "populated as it is used, or at start with --pretouch); try a smaller --heap-size\n",
                 options.heapSize, memory / 1073741824.0, swap / 1073741824.0);
    return nullptr;
  }
  if (!heap)
    std::fprintf(stderr, "kith: unknown heap policy '%s'; valid: %s\n", options.heapPolicy.c_str(),
                 heap::policyNames().c_str());
  return heap;
}

namespace {

// One of gc/'s collectors with what both take from the command line.
template <class GcCollector, class GcOptions>
CollectorParts startCollector(GcOptions o, const RunOptions& options, Clock::time_point start,
                              gc::FragmentationLog* fragmentation) {
  o.heapBytes = options.heapSize;
  o.stress = options.gcStress;
  o.log = options.gcLog ? stderr : nullptr;
  o.fragmentation = fragmentation;
  o.pretouch = options.pretouch;  // the collector's own memory too (the continuous collector's gray stack)
  o.measureLocality = options.statistics.wanted();  // the locality block is only written with the statistics
  // Pauses by the thread's CPU time too where something reports them (a clock read costs ~0.4 µs).
  o.measureCpuTime = options.statistics.wanted() || !options.gcPausesFile.empty() || options.gcLog;
  auto collector = std::make_unique<GcCollector>(o);
  collector->setStartTime(start);
  gc::PauseRecorder* pauses = &collector->pauseRecorder();
  if (!options.gcPausesFile.empty()) pauses->keepAll();
  return {std::move(collector), pauses};
}

}  // namespace

CollectorParts buildCollector(const RunOptions& options, heap::Heap& heap, Clock::time_point start,
                              gc::FragmentationLog* fragmentation, NoteAtExit& ignoredOptionsNote) {
  if (heap.collectsGarbage()) {
    // Only when a collector option was given: the default run's stderr stays clean.
    if (options.collectorOptionsGiven())
      ignoredOptionsNote.text =
          "kith: note: --heap=" + options.heapPolicy + " collects garbage itself; --gc and its options were ignored";
    return {std::make_unique<HeapOwnCollector>(heap), nullptr};
  }
  switch (options.collector) {
    case CollectorChoice::occasional: {
      gc::OccasionalCollectorOptions o;
      if (options.gcThreshold > 0) o.occupancyThreshold = options.gcThreshold;
      return startCollector<gc::OccasionalCollector>(o, options, start, fragmentation);
    }
    case CollectorChoice::continuous: {
      gc::ContinuousCollectorOptions o;
      if (options.gcThreshold > 0) o.startOccupancy = options.gcThreshold;
      if (options.gcStep > 0) o.workPerSlice = options.gcStep;
      o.pacing = options.gcPacing;
      return startCollector<gc::ContinuousCollector>(o, options, start, fragmentation);
    }
    case CollectorChoice::none: break;
  }
  return {std::make_unique<vm::NoCollector>("none"), nullptr};
}

std::unique_ptr<vm::VM> buildVm(const RunOptions& options, heap::Heap& heap, vm::Collector& collector,
                                std::function<std::string(const std::string& path)> importRefusal) {
  vm::VMOptions vmOptions{options.maxDepth, options.args, options.heapSize};
  vmOptions.importRefusal = std::move(importRefusal);
  vmOptions.checkFreedObjects = options.checkFreed || options.gcStress;
  vmOptions.moveObjects = options.moveObjects;
  vmOptions.gcOverheadLimit = options.gcStress ? 0 : options.gcOverheadLimit;
  vmOptions.failAllocation = options.failAllocation;
  vmOptions.failAllocationEvery = options.failAllocationEvery;
  try {
    return std::make_unique<vm::VM>(heap, collector, vmOptions);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kith: cannot reserve the VM stack for --max-depth=%zu\n", options.maxDepth);
    return nullptr;
  }
}

namespace {

// The files the options name: checked against each other and the script, then
// readied before the run (CLI.md), so a path that cannot be written costs no run;
// "-" is standard output. Nothing reaches a PATH before its output is closed
// (cli/output_file.h), and an output whose file the script tries to import is
// never written (it would replace the module).
class RunOutputs {
 public:
  OutputFile statistics, pauses, fragmentation, trace;

  explicit RunOutputs(const RunOptions& options)
      : named_{{"--stats-file", options.statistics.file},
               {"--gc-pauses-file", options.gcPausesFile},
               {"--frag-file", options.fragFile},
               {"--trace", options.tracePath}} {}

  // The usage error's exit code when two outputs are one file or one is the script.
  std::optional<int> refuseShared(const std::string& script) const {
    return refuseSharedOutputs(named_, {{"the script", script}});
  }

  // False after the message at the first that cannot be written.
  bool open() {
    for (std::size_t i = 0; i < named_.size(); ++i)
      if (!named_[i].path.empty() && !files_[i]->open(named_[i].path)) return false;
    return true;
  }

  // VMOptions::importRefusal: a module that is one of these files is not imported,
  // and that output is not written.
  std::string refuseImport(const std::string& path) {
    const NamedOutput* output = outputThatIs(path, named_);
    if (!output) return "";
    withheld_[output - named_.data()] = true;
    return "it is the output file of " + std::string(output->option);
  }

  // After the run, before the outputs are closed: each output refused as a module is
  // discarded with the message `kith: PATH: not written: ...`; false if there was one.
  bool discardImported() {
    bool none = true;
    for (std::size_t i = 0; i < named_.size(); ++i) {
      if (!withheld_[i]) continue;
      files_[i]->discard();
      std::fprintf(stderr, "kith: %s: not written: the script imports it as a module\n", named_[i].path.c_str());
      none = false;
    }
    return none;
  }

  // A run refused before its script ran (a compile error): no output is written.
  void discard() {
    for (OutputFile* file : files_) file->discard();
  }

 private:
  std::vector<NamedOutput> named_;
  OutputFile* files_[4] = {&statistics, &pauses, &fragmentation, &trace};  // named_'s order
  bool withheld_[4] = {};
};

// --trace: every allocation and free the VM makes, recorded to its output.
class TraceRecording {
 public:
  void start(OutputFile& file, heap::TraceFormat format, vm::VM& vm) {
    if (!file.isOpen()) return;
    writer_ = std::make_unique<heap::TraceWriter>(file.stream(), format);
    vm.space().setTraceWriter(writer_.get());
  }

  // The binary end marker, written to the output's stream (closed after).
  void finish(vm::VM& vm) {
    if (!writer_) return;
    vm.space().setTraceWriter(nullptr);
    writer_->finish();
    writer_.reset();
  }

 private:
  std::unique_ptr<heap::TraceWriter> writer_;
};

}  // namespace

void reportUncaught(vm::VM& vm) {
  std::fflush(stdout);
  vm::Value thrown = vm.pendingException();
  std::vector<std::string> trace = vm.exceptionTrace();  // before str() may run code
  // An Error subclass is named on a line of its own: LANGUAGE.md fixes the first line
  // as `error: MESSAGE`, and the class often says more than the message.
  std::string subclass;
  if (vm.isKind(thrown, vm::ObjectKind::instance)) {
    const vm::ClassInfo* klass = thrown.asHandle()->klass;
    if (klass->isErrorClass && klass != vm.errorClass()) subclass = klass->name;
  }
  std::string message = vm.exceptionMessage(thrown);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  if (!subclass.empty()) std::fprintf(stderr, "  thrown as %s\n", subclass.c_str());
  for (const std::string& line : trace) std::fprintf(stderr, "%s\n", line.c_str());
}

void reportCompileErrors(const std::vector<std::string>& errors) {
  for (const std::string& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
}

namespace {

// --compiler-stats: one JSON line on stderr (the compiler-heap experiment's sample).
void reportCompilerScratch(vm::CompilerHeap heap, const vm::ScratchStats& s, double compileSeconds) {
  std::fprintf(stderr,
               "{\"compiler_heap\": \"%s\", \"compile_s\": %.6f, \"requests\": %zu, \"frees\": %zu, "
               "\"peak_bytes\": %zu, \"mean_bytes\": %.1f, \"chunk_bytes\": %zu}\n",
               std::string(vm::compilerHeapName(heap)).c_str(), compileSeconds, s.requests, s.frees, s.peakBytes,
               s.meanBytes, s.chunkBytes);
}

// Compile errors: 65, the source's fault; the heap too small for the program's
// constants is running out of memory, 70, as at run time (CLI.md).
int compileErrorExit(bool outOfMemory) { return outOfMemory ? kExitSoftware : kExitDataError; }

// Installs the built-ins, compiles and runs the script: LANGUAGE.md's exit code for
// how it ended. `programStart` is set when set-up is done (vm.wall_s starts there);
// `refused` when the script did not compile, so nothing of it ran.
int runProgram(vm::VM& vm, const std::string& source, const std::string& path, const RunOptions& options,
               std::optional<Clock::time_point>& programStart, bool& refused) {
  try {
    stdlib::installBuiltins(vm);
    programStart = Clock::now();
    vm::CompileResult compiled = vm::compile(vm, source, path, options.compilerHeap);
    if (options.compilerStats)
      reportCompilerScratch(options.compilerHeap, compiled.scratch, secondsBetween(*programStart, Clock::now()));
    if (!compiled.script) {
      reportCompileErrors(compiled.reportLines());
      refused = !compiled.outOfMemory;
      return compileErrorExit(compiled.outOfMemory);
    }
    if (options.compileOnly) return kExitOk;
    try {
      vm.runScript(compiled.script);
    } catch (const vm::KithThrow&) {
      reportUncaught(vm);
      return kExitSoftware;
    } catch (const vm::ImportCompileError& e) {
      std::fflush(stdout);
      reportCompileErrors(e.report);
      return compileErrorExit(e.outOfMemory);
    }
  } catch (const vm::KithThrow&) {
    // Only the built-ins' setup can get here: the heap cannot hold the prelude.
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", vm.exceptionMessage(vm.pendingException()).c_str());
    return kExitSoftware;
  } catch (const vm::ExitRequest& exit) {
    return exit.code;
  }
  return kExitOk;
}

// --gc-pauses-file: every pause, for distributions and MMU over any window (kith
// study). Without a collector of the VM's own (none, boehm) the list is empty.
bool writePauseFile(OutputFile& out, const gc::PauseRecorder* pauses, std::string_view collector,
                    const gc::PauseStamp& start) {
  if (!out.isOpen()) return true;
  const gc::PauseStamp end = gc::PauseStamp::now();
  if (pauses) {
    pauses->writePauseList(out.stream(), collector, end);
  } else {
    auto runNs = std::chrono::duration_cast<std::chrono::nanoseconds>(end.wall - start.wall);
    gc::PauseRecorder::writePauseListHeader(out.stream(), collector, static_cast<std::uint64_t>(runNs.count()),
                                            end.cpuNs - start.cpuNs);
  }
  return out.close();
}

// --host-probe-ms: the bare clock loop, or nothing when not asked for.
std::optional<HostProbe> probeHost(const RunOptions& options) {
  if (options.hostProbeMs == 0) return std::nullopt;
  return HostProbe::run(std::chrono::milliseconds(options.hostProbeMs));
}

}  // namespace

int runCommand(const std::vector<std::string_view>& args) {
  RunOptions options;
  if (auto exit = parseRunOptions(args, options)) return *exit;
  return runScript(options);
}

int runScript(const RunOptions& options) {
  if (options.hostProbeMs > 0 && !options.statistics.wanted())
    return usageError("--host-probe-ms reports in the statistics: give --stats, --stats=json or --stats-file too");
  // Before the run's clocks start: the probe's time is no part of the run.
  const std::optional<HostProbe> probeBefore = probeHost(options);
  const gc::PauseStamp startStamp = gc::PauseStamp::now();
  const auto start = startStamp.wall;
  vm::reserveNativeStack();
  RunOutputs outputs(options);
  if (auto refused = outputs.refuseShared(options.script)) return *refused;
  std::optional<std::string> source = readScript(options.script);
  if (!source) return kExitNoInput;
  if (!outputs.open()) return kExitCantCreate;
  // The arena's reservation and pretouch are timed apart from the program (vm.arena_s).
  const auto arenaStart = Clock::now();
  // --frag-file samples bytes_allocated after every collection.
  bool countsRead = !options.fragFile.empty() || scriptMayReadHeapStatistics(*source);
  std::unique_ptr<heap::Heap> heap = buildHeap(options, options.statistics.heapMode(countsRead));
  if (!heap) return kExitUsage;
  configureHeap(options.statistics, *heap);
  const double arenaSeconds = secondsBetween(arenaStart, Clock::now());
  NoteAtExit ignoredOptionsNote;
  // Before the collector that samples into it, so it outlives the collector.
  std::unique_ptr<gc::FragmentationLog> fragmentation;
  if (outputs.fragmentation.isOpen())
    fragmentation = std::make_unique<gc::FragmentationLog>(outputs.fragmentation.stream(), *heap, options.heapSize);
  CollectorParts gc = buildCollector(options, *heap, start, fragmentation.get(), ignoredOptionsNote);
  vm::Collector& collector = *gc.collector;
  std::unique_ptr<vm::VM> vm =
      buildVm(options, *heap, collector, [&outputs](const std::string& path) { return outputs.refuseImport(path); });
  if (!vm) return kExitSoftware;
  TraceRecording trace;
  trace.start(outputs.trace, options.traceFormat, *vm);

  std::optional<Clock::time_point> programStart;
  bool refused = false;
  int exitCode = runProgram(*vm, *source, scriptName(options.script), options, programStart, refused);
  std::fflush(stdout);
  const auto programEnd = Clock::now();
  if (!programStart) programStart = programEnd;  // the built-ins' set-up failed

  trace.finish(*vm);
  // A compile error: as for a run refused before it started, no file is written
  // (what goes to stderr still does).
  if (refused) outputs.discard();
  noteOutputWritten(outputs.discardImported(), exitCode);
  noteOutputWritten(outputs.trace.close(), exitCode);
  noteOutputWritten(outputs.fragmentation.close(), exitCode);
  noteOutputWritten(writePauseFile(outputs.pauses, gc.pauses, collector.name(), startStamp), exitCode);
  // Read before the second probe, which is no part of the run either.
  const vm::CollectorStatistics gcStatistics =
      options.statistics.wanted() ? collector.statistics() : vm::CollectorStatistics{};
  const std::optional<HostProbe> probeAfter = probeHost(options);
  if (options.statistics.wanted()) {
    RunReport report;
    report.options = &options;
    report.collector = collector.name();
    if (!heap->collectsGarbage()) report.vmCollector = options.collector;
    report.heap = heap->statistics();
    report.gc = gcStatistics;
    if (probeBefore && probeAfter) report.hostProbe = HostProbeReport{options.hostProbeMs, *probeBefore, *probeAfter};
    report.instructions = vm->instructionsExecuted();
    report.objectsCreated = vm->space().objectsCreated();
    report.handlesLive = vm->space().handles().liveCount();
    report.handleChunks = vm->space().handles().chunkCount();
    report.handleBytes = vm->space().handles().bytesReserved();
    report.wallSeconds = secondsBetween(*programStart, programEnd);
    report.arenaSeconds = arenaSeconds;
    report.startupSeconds = secondsBetween(start, *programStart) - arenaSeconds;
    noteOutputWritten(writeStatistics(options.statistics, outputs.statistics, runStatisticsJson(report),
                                      runStatisticsTable(report)),
                      exitCode);
  }
  return exitCode;
}

int disassembleScript(const std::string& path, vm::CompilerHeap compilerHeap) {
  vm::reserveNativeStack();  // the compiler recurses as deep as the source nests, as in run
  std::optional<std::string> source = readScript(path);
  if (!source) return kExitNoInput;
  auto heap = heap::makeHeap("malloc", std::size_t{64} << 20, heap::StatisticsMode::bytesInUse);
  vm::NoCollector collector;
  vm::VM vm(*heap, collector);
  try {
    stdlib::installBuiltins(vm);
  } catch (const vm::KithThrow&) {
    std::fprintf(stderr, "kith: cannot set up the built-ins\n");
    return kExitSoftware;
  }
  vm::CompileResult compiled = vm::compile(vm, *source, scriptName(path), compilerHeap);
  if (!compiled.script) {
    reportCompileErrors(compiled.reportLines());
    return kExitDataError;
  }
  std::fputs(vm::disassemble(vm, *compiled.script).c_str(), stdout);
  return kExitOk;
}

}  // namespace kith::cli
