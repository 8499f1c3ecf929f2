// What `kith run` builds from its options before a script runs — the heap, the
// collector, the VM — and how it reports a compile error or an uncaught exception.
// Shared with `kith repl` (cli/repl.h), which builds them once for a session.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/run_options.h"
#include "gc/fragmentation_log.h"
#include "gc/pause_recorder.h"
#include "heap/heap.h"
#include "vm/collector.h"
#include "vm/vm.h"

namespace kith::cli {

// A line printed when the run ends, so a script's error stays the first line on stderr.
struct NoteAtExit {
  std::string text;
  ~NoteAtExit() {
    if (!text.empty()) std::fprintf(stderr, "%s\n", text.c_str());
  }
};

// The collector and its pause recorder (null for none and for a heap's own).
struct CollectorParts {
  std::unique_ptr<vm::Collector> collector;
  gc::PauseRecorder* pauses = nullptr;
};

// The heap --heap names, its arena reserved (and with --pretouch populated); null
// after the message when the system will not map it. `mode`: what its statistics keep.
std::unique_ptr<heap::Heap> buildHeap(const RunOptions& options, heap::StatisticsMode mode);

// --gc's collector with its options, or the heap's own when the heap collects garbage
// itself (then `ignoredOptionsNote` says so if collector options were given).
CollectorParts buildCollector(const RunOptions& options, heap::Heap& heap, std::chrono::steady_clock::time_point start,
                              gc::FragmentationLog* fragmentation, NoteAtExit& ignoredOptionsNote);

// Null after the message when the VM stack for --max-depth cannot be reserved.
// `importRefusal`: VMOptions::importRefusal (run's outputs are no modules).
std::unique_ptr<vm::VM> buildVm(const RunOptions& options, heap::Heap& heap, vm::Collector& collector,
                                std::function<std::string(const std::string& path)> importRefusal = {});

// The pending exception's message and stack trace on stderr (stdout flushed first).
void reportUncaught(vm::VM& vm);

void reportCompileErrors(const std::vector<std::string>& errors);

}  // namespace kith::cli
