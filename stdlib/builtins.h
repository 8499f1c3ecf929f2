// The built-in library (LANGUAGE.md's table, except ffi): global functions, the
// Math and System namespaces, the Array/List/Map/StringBuilder classes, string
// methods, and Error (defined in Kith itself, by the prelude).
#pragma once

#include <string>

#include "vm/vm.h"

namespace kith::stdlib {

// Defines every built-in in `vm` and runs the prelude. Call once, before compiling
// the script. Throws vm::KithThrow if the heap cannot even hold the prelude.
void installBuiltins(vm::VM& vm);

// The parts installBuiltins (builtins.cpp) is made of, one per source file.
void installCore(vm::VM& vm);           // print str int float typeOf chr clock, Array
void installMath(vm::VM& vm);           // Math
void installSystem(vm::VM& vm);         // System
void installStringMethods(vm::VM& vm);  // "s".byteAt ... (length is a property in the VM)
void installContainers(vm::VM& vm);     // List, Map, StringBuilder

// Map operations, shared with System.heapStats().
vm::Value mapGet(vm::VM& vm, vm::Value map, vm::Value key, bool* found);
void mapPut(vm::VM& vm, vm::Value map, vm::Value key, vm::Value value);

}  // namespace kith::stdlib
