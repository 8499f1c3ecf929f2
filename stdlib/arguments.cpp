// Argument checks for natives (arguments.h).
#include "stdlib/arguments.h"

#include <string>

namespace kith::stdlib {

using vm::Handle;
using vm::ObjectKind;
using vm::Value;
using vm::VM;

std::int64_t intArgument(VM& vm, Value v, const char* what) {
  if (!v.isInt()) vm.throwError(std::string(what) + " must be an int, not " + vm.typeName(v));
  return v.asInt();
}

double numberArgument(VM& vm, Value v, const char* what) {
  if (!v.isNumber()) vm.throwError(std::string(what) + " must be a number, not " + vm.typeName(v));
  return v.toDouble();
}

Handle* stringArgument(VM& vm, Value v, const char* what) {
  if (!vm.isKind(v, ObjectKind::string)) vm.throwError(std::string(what) + " must be a string, not " + vm.typeName(v));
  return v.asHandle();
}

}  // namespace kith::stdlib
