// How a VM is set up: its depth limit and arguments, and the options of its object
// space (vm/object_space.h) — the heap budget, the testing aids, the overhead limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vm/gc_overhead_limit.h"

namespace kith::vm {

// The call-depth limit when none is given (`kith run --max-depth`, whose --help
// and default read it from here); past it, the catchable error "stack overflow".
inline constexpr std::size_t kDefaultMaxDepth = 10000;

struct VMOptions {
  std::size_t maxDepth = kDefaultMaxDepth;
  std::vector<std::string> args;  // System.args
  // For a heap without a fixed arena (`malloc`): the most block bytes in use at
  // once, so every policy runs in the same --heap-size. 0: no limit.
  std::size_t unboundedHeapLimit = 0;
  // Testing aids (docs/RELIABILITY.md). Freed objects poisoned and handles
  // quarantined: always in debug and sanitizer builds; here for --gc-stress.
  bool checkFreedObjects = false;
  // --gc-stress=move: before every allocation, move a rotating share of the live
  // objects to new blocks (every policy), so a raw object address held across an
  // allocation reads a poisoned block.
  bool moveObjects = false;
  // --fail-alloc=N / --fail-alloc-every=N: the N-th allocation request (once), or
  // every N-th, fails as if the heap were exhausted. 0: off.
  std::uint64_t failAllocation = 0;
  std::uint64_t failAllocationEvery = 0;
  // --gc-overhead-limit (vm/gc_overhead_limit.h); 0: off. Off under --gc-stress.
  double gcOverheadLimit = GcOverheadLimit::kDefaultLimit;
  // For fuzzing only (tests/fuzz/run_fuzzer.cpp), not on the command line: once
  // more than this many instructions have run, the next loop back-edge, return or
  // caught exception throws StepLimitReached. Every endless run passes one of
  // these without end (a program is finite and call depth is bounded), so a
  // fuzzed `while (true) {}` ends instead of hanging the fuzzer. Each allocation
  // counts as 50 instructions against it (ObjectSpace::kStepsPerAllocation), each
  // frame of a captured stack trace as one (VM::spendSteps). 0: no limit.
  std::uint64_t stepLimit = 0;
  // Asked with an imported file's path before the file is read: why it must not be
  // imported, or empty to import it. `kith run` refuses a module that is one of the
  // run's own output files, which would replace it when the run ends. Unset: none refused.
  std::function<std::string(const std::string& path)> importRefusal = {};
};

}  // namespace kith::vm
