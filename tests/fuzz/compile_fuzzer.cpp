// libFuzzer target: the lexer, parser and compiler on arbitrary bytes. Any input
// must give either bytecode or a list of FILE:LINE:COL errors — never a crash, a
// sanitizer report, or a hang. Build and run with `scripts/fuzz` (docs/TESTING.md, Fuzzing).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "heap/heap.h"
#include "vm/collector.h"
#include "vm/compiler.h"
#include "vm/native_stack.h"
#include "vm/vm.h"

// As `kith run` does: the compiler recurses as deep as the source nests (up to
// 1,000 levels before "nesting too deep"), and sanitizer frames are large.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kith::vm::reserveNativeStack();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A fresh VM per input: string constants are heap objects, and nothing collects them.
  auto heap = kith::heap::makeHeap("malloc", std::size_t{16} << 20, kith::heap::StatisticsMode::counts);
  kith::vm::NoCollector collector;
  kith::vm::VM vm(*heap, collector);
  std::string_view source(reinterpret_cast<const char*>(data), size);
  kith::vm::CompileResult result = kith::vm::compile(vm, source, "fuzz.kith");
  // Errors and a script are exclusive; an error-free compile yields a script.
  if (result.errors.empty() != (result.script != nullptr)) __builtin_trap();
  return 0;
}
