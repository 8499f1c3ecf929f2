// installBuiltins: every part of the built-in library (builtins.h), then the prelude.
#include <stdexcept>

#include "stdlib/builtins.h"
#include "stdlib/ffi.h"
#include "vm/compiler.h"

namespace kith::stdlib {
namespace {

// Error is an ordinary Kith class, so subclasses and stack traces work like any other.
constexpr const char* kPrelude = R"(
class Error {
  field message;
  init(message) { this.message = message; }
  toString() { return this.message; }
}
)";

}  // namespace

void installBuiltins(vm::VM& vm) {
  installCore(vm);
  installMath(vm);
  installSystem(vm);
  installStringMethods(vm);
  installContainers(vm);
  installFfi(vm);
  vm::CompileResult prelude = vm::compile(vm, kPrelude, "<prelude>");
  if (!prelude.script) throw std::logic_error("the prelude does not compile: " + prelude.errors.front());
  vm.runScript(prelude.script);
  vm.setErrorClass(vm.global("Error").asClass());
}

}  // namespace kith::stdlib
