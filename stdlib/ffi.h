// The `ffi` global: calls into C libraries through libffi (LANGUAGE.md's table).
//
//   let libm = ffi.open("libm.so.6");              // dlopen; ffi.open(nil): the process itself
//   let cos = libm.fn("cos", "double", ["double"]); // dlsym + ffi_prep_cif, once
//   print(cos(0.0));                                // 1.0
//
// Types: "void" (return only) "int32" "int64" "double" "pointer" "string".
//
// Copy, not pin: no address of a heap object is ever handed to native code. A
// `string` argument is copied (NUL-terminated, outside the heap) for the duration
// of the call; a returned char* is copied into a new Kith string. Objects may move
// (knuth, estranged defragment; collectors run) at any allocation, so pinning an
// object for native code would tie the studied heap to foreign lifetimes; copying
// keeps native memory out of the heap and heap memory out of native code.
//
// Method area: libraries (dlopen handles) and prepared calls (ffi_cif, argument
// type lists, the NativeFunction a callable is) live outside the studied heap, in a
// per-VM record, and are released by releaseFfi (or at process exit). The only heap
// objects are the small `library` and `pointer` wrappers (see ffi.cpp).
#pragma once

#include "vm/vm.h"

namespace kith::stdlib {

// Defines the `ffi` global in `vm`. Called by installBuiltins.
void installFfi(vm::VM& vm);

// Releases `vm`'s libraries and prepared calls (dlclose, frees the cifs). Call when
// the VM ends, after its last script; calling it for a VM without ffi state does
// nothing. State still held at process exit is released then.
void releaseFfi(vm::VM& vm);

}  // namespace kith::stdlib
