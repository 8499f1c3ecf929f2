// libFuzzer target: compiles the input as a Kith program and, when it compiles,
// runs it in a small heap with --gc-stress's settings, so that every allocation
// collects (occasional) or runs a slice (continuous) and a stale object reference
// fails at once. Any input must end in output, a runtime error, or a compile
// error: never a crash, a sanitizer report, a verifier failure or a hang.
//
// The configuration is picked from a hash of the input (so a saved input
// replays the same way): one of the policies `kith policies` lists (boehm apart:
// it has its own collector) x occasional/continuous, with or without
// --gc-stress=move (objects moved before every allocation).
//
// Bounded, so that an endless loop is not a finding: a 128 KiB heap, call depth
// 1,000, and VMOptions::stepLimit (vm/vm.h), which only fuzz targets set: after
// 200,000 instructions the next back-edge, return or caught throw unwinds the run
// with StepLimitReached, which no script `catch` can stop. Not run: inputs that
// mention `import` (it reads any file by path, /dev/stdin included) or `ffi` (it
// calls any C function); no other way reaches either. Output goes to /dev/null.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "gc/continuous_collector.h"
#include "gc/occasional_collector.h"
#include "heap/heap.h"
#include "stdlib/builtins.h"
#include "vm/compiler.h"
#include "vm/module_loader.h"
#include "vm/native_stack.h"
#include "vm/vm.h"

namespace {

constexpr std::size_t kHeapBytes = std::size_t{128} << 10;
constexpr std::uint64_t kStepLimit = 200'000;
constexpr std::size_t kMaxDepth = 1000;

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kith::vm::reserveNativeStack();  // as `kith run` does: toString() re-enters the interpreter
  if (!std::freopen("/dev/null", "w", stdout)) return 1;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kith;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  bool runnable = source.find("import") == std::string_view::npos && source.find("ffi") == std::string_view::npos;

  std::uint64_t pick = fnv1a(source);
  const auto& policies = heap::policyList();
  std::string policy(policies[pick % policies.size()].name);
  pick /= policies.size();
  bool continuous = pick & 1;
  bool move = pick & 2;

  auto heap = heap::makeHeap(policy, kHeapBytes, heap::StatisticsMode::counts);
  if (!heap) __builtin_trap();
  std::unique_ptr<vm::Collector> collector;
  if (continuous) {
    gc::ContinuousCollectorOptions o;
    o.heapBytes = kHeapBytes;
    o.stress = true;
    o.pacing = gc::GcPacing::work;
    collector = std::make_unique<gc::ContinuousCollector>(o);
  } else {
    gc::OccasionalCollectorOptions o;
    o.heapBytes = kHeapBytes;
    o.stress = true;
    o.verify = true;  // the heap verifier after each cycle: aborts on a broken heap
    collector = std::make_unique<gc::OccasionalCollector>(o);
  }
  vm::VMOptions options;
  options.maxDepth = kMaxDepth;
  options.unboundedHeapLimit = kHeapBytes;
  options.checkFreedObjects = true;
  options.moveObjects = move;
  options.gcOverheadLimit = 0;  // off under --gc-stress, as in the runner
  options.stepLimit = kStepLimit;
  vm::VM vm(*heap, *collector, options);
  try {
    stdlib::installBuiltins(vm);
    vm::CompileResult compiled = vm::compile(vm, source, "fuzz.kith");
    if (compiled.errors.empty() != (compiled.script != nullptr)) __builtin_trap();
    if (!compiled.script || !runnable) return 0;
    try {
      vm.runScript(compiled.script);
    } catch (const vm::KithThrow&) {
      // Uncaught: the runner's report path, which may call toString() again.
      std::string message = vm.exceptionMessage(vm.pendingException());
      (void)message;
    }
  } catch (const vm::KithThrow&) {
  } catch (const vm::ExitRequest&) {
  } catch (const vm::StepLimitReached&) {
  } catch (const vm::ImportCompileError&) {
  }
  std::fflush(stdout);
  if (std::string problem = heap->checkInvariants(); !problem.empty()) {
    std::fprintf(stderr, "run_fuzzer: %s heap invariant broken: %s\n", policy.c_str(), problem.c_str());
    __builtin_trap();
  }
  return 0;
}
