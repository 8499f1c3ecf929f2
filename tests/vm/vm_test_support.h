// A VM over a chosen heap policy with the built-ins installed, and a helper that
// compiles and runs a snippet, capturing what it prints and how it ended.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "heap/heap.h"
#include "stdlib/builtins.h"
#include "vm/compiler.h"
#include "vm/handle_table_space.h"
#include "vm/vm.h"

namespace kith::vm::testing {

// The VM's object space over a policy heap: a handle table.
inline HandleTableSpace& spaceOf(VM& vm) { return dynamic_cast<HandleTableSpace&>(vm.space()); }

struct RunOutcome {
  std::string out;          // stdout
  std::string error;        // the uncaught exception's message, "" if none
  std::vector<std::string> compileErrors;
  std::vector<std::string> trace;  // the uncaught exception's "  at ..." lines
};

class TestVM {
 public:
  explicit TestVM(std::string_view policy = "estranged", std::size_t heapBytes = 4u << 20, VMOptions options = {})
      : heap_(heap::makeHeap(policy, heapBytes, heap::StatisticsMode::counts)), vm_(std::make_unique<VM>(*heap_, collector_, std::move(options))) {
    stdlib::installBuiltins(*vm_);
  }
  VM& vm() { return *vm_; }
  heap::Heap& heap() { return *heap_; }

  RunOutcome run(std::string_view source) {
    RunOutcome outcome;
    CompileResult compiled = compile(*vm_, source, "test.kith");
    outcome.compileErrors = compiled.errors;
    if (!compiled.script) return outcome;
    ::testing::internal::CaptureStdout();
    try {
      vm_->runScript(compiled.script);
    } catch (const KithThrow&) {
      outcome.trace = vm_->exceptionTrace();
      outcome.error = vm_->exceptionMessage(vm_->pendingException());
      vm_->clearException();
    }
    std::fflush(stdout);
    outcome.out = ::testing::internal::GetCapturedStdout();
    return outcome;
  }

 private:
  std::unique_ptr<heap::Heap> heap_;
  NoCollector collector_;
  std::unique_ptr<VM> vm_;
};

}  // namespace kith::vm::testing
