// The `ffi` global (see ffi.h): ffi.open, library.fn, and the call path through libffi.
//
// What lives where:
// - A `library` and a `pointer` are heap objects: instances of built-in classes with
//   no declared fields and one hidden Value slot holding an int — the LibraryRecord*
//   of a library, the address of a pointer. Scripts cannot name the slot (reading or
//   writing an undeclared field throws); the collectors see an int and move on; the
//   objects may move like any other, since nothing outside holds their address.
//   Every instance of each class has one size (header + one Value).
// - A callable is no heap object at all: a ForeignFunction is a NativeFunction (its
//   base) plus the symbol address, the prepared ffi_cif and the argument types. It
//   lives in the VM's FfiState (method area) and the script holds
//   Value::nativeValue(record), so preparing is done once, in `fn`, and a call does
//   no lookup: the record is the callee, args[-1].
// - Copy, not pin: a `string` argument is copied into a std::string (outside the
//   heap) that lives until the call returns; a returned char* is copied into a new
//   Kith string. No heap address is ever handed to native code, so a collection or
//   a defragmenting heap moving objects can never leave native code with a stale
//   pointer, and native memory enters the heap only as a copy.
// Every argument is checked and converted before native code runs, so a bad call
// throws a Kith error and leaves nothing half done.
#include "stdlib/ffi.h"

#include <dlfcn.h>
#include <ffi.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::ArrayObject;
using vm::ClassInfo;
using vm::Handle;
using vm::InstanceObject;
using vm::NativeFunction;
using vm::objectAt;
using vm::ObjectKind;
using vm::Value;
using vm::VM;

namespace {

// --- types -------------------------------------------------------------------------------

enum class ForeignType : std::uint8_t { voidType, int32, int64, float64, pointer, string };

struct ForeignTypeInfo {
  const char* name;
  ForeignType type;
  ffi_type* ffi;
};
const ForeignTypeInfo kForeignTypes[] = {
    {"void", ForeignType::voidType, &ffi_type_void},     {"int32", ForeignType::int32, &ffi_type_sint32},
    {"int64", ForeignType::int64, &ffi_type_sint64},     {"double", ForeignType::float64, &ffi_type_double},
    {"pointer", ForeignType::pointer, &ffi_type_pointer}, {"string", ForeignType::string, &ffi_type_pointer},
};

const ForeignTypeInfo& infoOf(ForeignType type) { return kForeignTypes[static_cast<std::size_t>(type)]; }

// Reads a type name ("int32", ...) from a Kith string; throws on anything else.
ForeignType parseType(VM& vm, Value name, const std::string& what, bool isReturnType) {
  if (!vm.isKind(name, ObjectKind::string)) vm.throwError("ffi: " + what + " must be a type name string, not " + vm.typeName(name));
  std::string_view text = vm.stringView(name);
  for (const ForeignTypeInfo& info : kForeignTypes) {
    if (text != info.name) continue;
    if (info.type == ForeignType::voidType && !isReturnType)
      vm.throwError("ffi: \"void\" is only a return type (" + what + ")");
    return info.type;
  }
  vm.throwError("ffi: unknown type \"" + std::string(text) + "\" (" + what +
                "; the types are void int32 int64 double pointer string)");
}

// A C string from a Kith string argument; a NUL inside would silently cut it short in C.
std::string cStringArgument(VM& vm, Value v, const std::string& what) {
  stringArgument(vm, v, what.c_str());
  std::string text(vm.stringView(v));
  if (text.find('\0') != std::string::npos) vm.throwError(what + " contains a NUL byte");
  return text;
}

// --- method-area records --------------------------------------------------------------------

Value callForeign(VM& vm, Value* args, int argc);

// One prepared foreign function: the callable a script holds (as a native Value).
struct ForeignFunction : NativeFunction {
  ForeignFunction(std::string symbol, std::string library, void* at, ForeignType ret, std::vector<ForeignType> argTypes,
                  ClassInfo* pointers)
      : symbolName(std::move(symbol)), libraryName(std::move(library)), address(at), returnType(ret),
        argumentTypes(std::move(argTypes)), pointerClass(pointers) {
    name = symbolName.c_str();  // this record never moves (held by unique_ptr)
    fn = callForeign;
    minArity = maxArity = static_cast<int>(argumentTypes.size());  // the VM checks the count
    for (ForeignType t : argumentTypes) ffiArgumentTypes.push_back(infoOf(t).ffi);
  }
  std::string symbolName;
  std::string libraryName;
  void* address;
  ForeignType returnType;
  std::vector<ForeignType> argumentTypes;
  std::vector<ffi_type*> ffiArgumentTypes;  // cif.arg_types points here
  ClassInfo* pointerClass;                  // to recognise `pointer` arguments
  mutable ffi_cif cif{};                    // ffi_call takes it non-const; it does not change it
};

struct LibraryRecord {
  explicit LibraryRecord(std::string display, void* h) : displayName(std::move(display)), handle(h) {}
  ~LibraryRecord() { dlclose(handle); }
  LibraryRecord(const LibraryRecord&) = delete;
  LibraryRecord& operator=(const LibraryRecord&) = delete;
  std::string displayName;  // the path, or "(this process)"
  void* handle;
  // Keyed by name and signature: preparing the same function twice returns the same
  // record, so a script calling `fn` in a loop does not grow the method area.
  std::unordered_map<std::string, std::unique_ptr<ForeignFunction>> functions;
};

struct FfiState {
  ClassInfo* libraryClass = nullptr;
  ClassInfo* pointerClass = nullptr;
  std::unordered_map<std::string, std::unique_ptr<LibraryRecord>> libraries;  // by path
  std::unique_ptr<LibraryRecord> process;                                     // ffi.open(nil)
};

// Every VM's state, by VM. A function-local static so it outlives any VM; what is
// left at exit is released by its destructor.
struct Registry {
  std::mutex mutex;
  std::unordered_map<const VM*, std::unique_ptr<FfiState>> states;
};
Registry& registry() {
  static Registry instance;
  return instance;
}

FfiState& stateOf(VM& vm) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.states.find(&vm);
  if (it == r.states.end()) vm.throwError("ffi: not installed in this VM");
  return *it->second;  // only installFfi/releaseFfi for this VM erase it: not while it runs
}

// --- the wrapper objects (library, pointer) --------------------------------------------------

constexpr std::size_t kWrapperBytes = sizeof(vm::ObjectHeader) + sizeof(Value);

Value newWrapper(VM& vm, ClassInfo* klass, std::int64_t payload) {
  Handle* h = vm.allocateObject(klass, kWrapperBytes);
  objectAt<InstanceObject>(h)->fields()[0] = Value::integer(payload);  // nothing allocates in between
  return Value::object(h);
}
bool isWrapper(Value v, const ClassInfo* klass) { return v.isObject() && v.asHandle()->klass == klass; }
std::int64_t wrapperPayload(Value v) { return objectAt<InstanceObject>(v)->fields()[0].asInt(); }

Value newPointer(VM& vm, ClassInfo* pointerClass, void* address) {
  if (address == nullptr) return Value::nil();  // NULL comes back as nil, and nil goes in as NULL
  return newWrapper(vm, pointerClass, static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(address)));
}

// --- the call ---------------------------------------------------------------------------------

std::string argumentLabel(const ForeignFunction& f, int i) {
  return f.symbolName + ": argument " + std::to_string(i + 1) + " (" + infoOf(f.argumentTypes[static_cast<std::size_t>(i)]).name + ")";
}

// The native behind every foreign callable: converts the arguments (throwing before
// any native code runs), calls through the prepared cif, converts the result.
Value callForeign(VM& vm, Value* args, int argc) {
  Value callee = args[-1];
  if (!callee.isNative() || callee.asNative()->fn != &callForeign) vm.throwError("ffi: a foreign function was called without its record");
  const auto& f = static_cast<const ForeignFunction&>(*callee.asNative());

  union Slot {
    std::int32_t int32;
    std::int64_t int64;
    double float64;
    void* pointer;
    const char* string;
  };
  std::vector<Slot> slots(static_cast<std::size_t>(argc));
  std::vector<void*> values(static_cast<std::size_t>(argc));
  std::vector<std::string> copies;  // string arguments: copies outside the heap, alive for the call
  copies.reserve(static_cast<std::size_t>(argc));  // no reallocation: c_str() pointers stay valid
  for (int i = 0; i < argc; ++i) {
    Value v = args[i];
    Slot& slot = slots[static_cast<std::size_t>(i)];
    switch (f.argumentTypes[static_cast<std::size_t>(i)]) {
      case ForeignType::int32:
        if (!v.isInt()) vm.throwError(argumentLabel(f, i) + " must be an int, not " + vm.typeName(v));
        if (v.asInt() < INT32_MIN || v.asInt() > INT32_MAX)
          vm.throwError(argumentLabel(f, i) + " is out of the int32 range: " + std::to_string(v.asInt()));
        slot.int32 = static_cast<std::int32_t>(v.asInt());
        break;
      case ForeignType::int64:
        if (!v.isInt()) vm.throwError(argumentLabel(f, i) + " must be an int, not " + vm.typeName(v));
        slot.int64 = v.asInt();
        break;
      case ForeignType::float64:
        if (!v.isNumber()) vm.throwError(argumentLabel(f, i) + " must be a number, not " + vm.typeName(v));
        slot.float64 = v.toDouble();
        break;
      case ForeignType::pointer:
        if (v.isNil()) slot.pointer = nullptr;
        else if (isWrapper(v, f.pointerClass)) slot.pointer = reinterpret_cast<void*>(static_cast<std::intptr_t>(wrapperPayload(v)));
        else vm.throwError(argumentLabel(f, i) + " must be a pointer or nil, not " + vm.typeName(v));
        break;
      case ForeignType::string:
        // Copy, not pin: native code gets a copy, never the address of the heap string.
        copies.push_back(cStringArgument(vm, v, argumentLabel(f, i)));
        slot.string = copies.back().c_str();
        break;
      case ForeignType::voidType:
        vm.throwError("ffi: void argument");  // parseType never lets one through
    }
    values[static_cast<std::size_t>(i)] = &slot;
  }

  // libffi widens integral results narrower than a register to ffi_arg.
  union {
    ffi_arg word;
    ffi_sarg signedWord;
    std::int64_t int64;
    double float64;
    void* pointer;
  } result{};
  ffi_call(&f.cif, FFI_FN(f.address), &result, values.data());

  // Converted while the argument copies are alive: a returned char* may point into one.
  switch (f.returnType) {
    case ForeignType::voidType: return Value::nil();
    case ForeignType::int32: return Value::integer(static_cast<std::int32_t>(result.signedWord));
    case ForeignType::int64: return Value::integer(result.int64);
    case ForeignType::float64: return Value::floating(result.float64);
    case ForeignType::pointer: return newPointer(vm, f.pointerClass, result.pointer);
    case ForeignType::string:
      // Copied into the heap; the C string is not freed (declare "pointer" to free it yourself).
      if (result.pointer == nullptr) return Value::nil();
      return vm.newString(std::string_view(static_cast<const char*>(result.pointer)));
  }
  return Value::nil();
}

// --- ffi.open, library.fn, toString ----------------------------------------------------------------

// ffi.open(path) / ffi.open(nil): one dlopen per path per VM; each call returns a new wrapper.
Value ffi_open(VM& vm, Value* args, int) {
  Value path = args[0];
  if (!path.isNil() && !vm.isKind(path, ObjectKind::string))
    vm.throwError("ffi.open's path must be a string or nil, not " + vm.typeName(path));
  FfiState& state = stateOf(vm);
  LibraryRecord* library;
  if (path.isNil()) {
    if (!state.process) {
      dlerror();
      void* handle = dlopen(nullptr, RTLD_NOW);
      if (!handle) vm.throwError(std::string("ffi.open: cannot open this process: ") + dlerror());
      state.process = std::make_unique<LibraryRecord>("(this process)", handle);
    }
    library = state.process.get();
  } else {
    std::string text = cStringArgument(vm, path, "ffi.open's path");
    auto it = state.libraries.find(text);
    if (it == state.libraries.end()) {
      dlerror();
      void* handle = dlopen(text.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char* why = dlerror();
        vm.throwError("ffi.open: cannot open '" + text + "': " + (why ? why : "unknown error"));
      }
      it = state.libraries.emplace(text, std::make_unique<LibraryRecord>(text, handle)).first;
    }
    library = it->second.get();
  }
  return newWrapper(vm, state.libraryClass, static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(library)));
}

LibraryRecord& libraryOf(VM& vm, FfiState& state, Value self) {
  if (!isWrapper(self, state.libraryClass)) vm.throwError("ffi: expected a library from ffi.open, not " + vm.typeName(self));
  return *reinterpret_cast<LibraryRecord*>(static_cast<std::intptr_t>(wrapperPayload(self)));
}

// library.fn(name, ret, [argtypes]): dlsym and ffi_prep_cif, once per signature.
Value library_fn(VM& vm, Value* args, int) {
  FfiState& state = stateOf(vm);
  LibraryRecord& library = libraryOf(vm, state, args[-1]);
  std::string name = cStringArgument(vm, args[0], "fn's function name");
  ForeignType ret = parseType(vm, args[1], "the return type of " + name, true);
  if (!vm.isKind(args[2], ObjectKind::array))
    vm.throwError("ffi: the argument types of " + name + " must be an array of type names, not " + vm.typeName(args[2]));
  std::size_t count = objectAt<ArrayObject>(args[2])->length;
  if (count > 255) vm.throwError("ffi: " + name + " has more than 255 arguments");
  std::vector<ForeignType> argTypes;
  std::string key = name + "(";
  for (std::size_t i = 0; i < count; ++i) {
    Value element = objectAt<ArrayObject>(args[2])->elements()[i];  // nothing allocates in this loop
    argTypes.push_back(parseType(vm, element, "argument type " + std::to_string(i + 1) + " of " + name, false));
    key += infoOf(argTypes.back()).name;
    key += ',';
  }
  key += ")";
  key += infoOf(ret).name;

  auto it = library.functions.find(key);
  if (it == library.functions.end()) {
    dlerror();
    void* address = dlsym(library.handle, name.c_str());
    if (const char* why = dlerror())
      vm.throwError("ffi: no symbol '" + name + "' in " + library.displayName + ": " + why);
    if (address == nullptr) vm.throwError("ffi: symbol '" + name + "' in " + library.displayName + " is NULL");
    auto record = std::make_unique<ForeignFunction>(name, library.displayName, address, ret, std::move(argTypes), state.pointerClass);
    ffi_status status = ffi_prep_cif(&record->cif, FFI_DEFAULT_ABI, static_cast<unsigned>(count), infoOf(ret).ffi,
                                     record->ffiArgumentTypes.data());
    if (status != FFI_OK) vm.throwError("ffi: cannot prepare the call to " + name + " (libffi status " + std::to_string(status) + ")");
    it = library.functions.emplace(key, std::move(record)).first;
  }
  return Value::nativeValue(it->second.get());
}

Value library_toString(VM& vm, Value* args, int) {
  LibraryRecord& library = libraryOf(vm, stateOf(vm), args[-1]);
  return vm.newString("<library " + library.displayName + ">");
}

Value pointer_toString(VM& vm, Value* args, int) {
  if (!isWrapper(args[-1], stateOf(vm).pointerClass)) vm.throwError("ffi: expected a pointer, not " + vm.typeName(args[-1]));
  char text[40];
  std::snprintf(text, sizeof text, "<pointer 0x%" PRIxPTR ">", static_cast<std::uintptr_t>(wrapperPayload(args[-1])));
  return vm.newString(text);
}

const NativeFunction kOpen{"open", ffi_open, 1, 1};
const NativeFunction kLibraryFn{"fn", library_fn, 3, 3};
const NativeFunction kLibraryToString{"toString", library_toString, 0, 0};
const NativeFunction kPointerToString{"toString", pointer_toString, 0, 0};

// A built-in class scripts cannot instantiate or name (it is no global).
ClassInfo* wrapperClass(VM& vm, const char* name) {
  ClassInfo* klass = vm.newClass(name, ObjectKind::instance);
  klass->instantiable = false;
  klass->defined = true;
  return klass;
}

}  // namespace

void installFfi(VM& vm) {
  auto state = std::make_unique<FfiState>();
  state->libraryClass = wrapperClass(vm, "library");  // typeOf(ffi.open(...)) == "library"
  vm.defineNative(state->libraryClass, &kLibraryFn);
  vm.defineNative(state->libraryClass, &kLibraryToString);
  state->pointerClass = wrapperClass(vm, "pointer");  // typeOf(a returned pointer) == "pointer"
  vm.defineNative(state->pointerClass, &kPointerToString);
  ClassInfo* ffi = wrapperClass(vm, "ffi");
  vm.defineStatic(ffi, "open", Value::nativeValue(&kOpen));
  vm.defineGlobal("ffi", Value::klassValue(ffi));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.states[&vm] = std::move(state);  // replaces the leftovers of an ended VM that had this address
}

void releaseFfi(VM& vm) {
  std::unique_ptr<FfiState> state;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.states.find(&vm);
    if (it == r.states.end()) return;
    state = std::move(it->second);
    r.states.erase(it);
  }
  // Destroyed here, outside the lock: frees the cifs and dlcloses the libraries.
}

}  // namespace kith::stdlib
