// Argument checks for natives: each returns the argument as the type it must be, or
// throws a Kith error naming `what` and the type it got.
#pragma once

#include <cstdint>

#include "vm/vm.h"

namespace kith::stdlib {

std::int64_t intArgument(vm::VM& vm, vm::Value v, const char* what);
double numberArgument(vm::VM& vm, vm::Value v, const char* what);
vm::Handle* stringArgument(vm::VM& vm, vm::Value v, const char* what);

}  // namespace kith::stdlib
