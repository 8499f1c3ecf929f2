// Heap objects: their layout in the studied heap, and the method-area data
// (classes, function prototypes, natives) that lives outside it.
//
// THE RULE: never hold a raw object address across an allocation.
// Any allocation can make a moving heap (knuth, estranged) defragment, which moves
// objects; later a collector will run there too. An object's address is only good
// until the next allocation: keep the Handle* (or the Value) instead and re-read
// `handle->object` after every call that may allocate (allocateObject, newString,
// str(), any call into script code, ...). The helpers below take a Handle* or a
// Value and read the current address each time, so the safe way is the easy one.
//
// Layout (JVM-like): every object starts with a 16-byte header
//   classId (u32)  the class word: the ClassInfo id (a built-in kind or a user class)
//   size    (u32)  the object's size in bytes, as requested from the heap
//   handle  (ptr)  back-pointer to the object's handle; the relocation callback
//                  reads it at the new address and updates handle->object: moving
//                  an object updates its handle and nothing else
// followed by the fields. Every instance of one class has one size (declared fields,
// superclass first). Arrays: header, length, elements. Strings: header, length,
// hash, bytes (NUL-terminated for convenience). Growable containers (List, Map,
// StringBuilder) are a small fixed-size object plus a separately allocated backing
// storage object that is replaced when it grows, so studies see both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vm/handle_table.h"
#include "vm/value.h"

namespace kith::vm {

class VM;

struct ObjectHeader {
  std::uint32_t classId;
  std::uint32_t size;
  Handle* handle;
};
static_assert(sizeof(ObjectHeader) == 16);

// The kinds of heap object. Each has a built-in ClassInfo whose id equals the kind;
// user classes (kind `instance`) get ids after them.
enum class ObjectKind : std::uint8_t {
  string,
  array,
  instance,
  closure,
  boundMethod,
  upvalue,
  list,
  map,
  stringBuilder,
  valueStorage,  // backing array of a List or Map (elements / entries)
  byteStorage,   // backing bytes of a StringBuilder, index table of a Map
  boxedInt,      // an int outside 48 bits: a handle only, its `object` word holds the
                 // int (value.h); no heap object, so not an allocation in the study
  count,
};
constexpr std::size_t kObjectKindCount = static_cast<std::size_t>(ObjectKind::count);
const char* kindName(ObjectKind kind);

struct StringObject {
  ObjectHeader header;
  std::uint64_t length;
  std::uint64_t hash;
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
  std::string_view view() { return {bytes(), length}; }
};

// Arrays and value storage share this layout: header, length, elements.
struct ArrayObject {
  ObjectHeader header;
  std::uint64_t length;
  Value* elements() { return reinterpret_cast<Value*>(this + 1); }
};

struct InstanceObject {
  ObjectHeader header;
  Value* fields() { return reinterpret_cast<Value*>(this + 1); }
};

struct FunctionProto;

struct ClosureObject {
  ObjectHeader header;
  FunctionProto* proto;      // method area: not a heap object
  std::uint64_t upvalueCount;
  Value* upvalues() { return reinterpret_cast<Value*>(this + 1); }  // handles of UpvalueObjects
};

// A captured variable. While the variable is still on the VM stack, `stackSlot`
// points at it (the stack is not in the heap and never moves); when its scope
// ends, the value is copied into `closed` and stackSlot becomes nullptr.
struct UpvalueObject {
  ObjectHeader header;
  Value* stackSlot;
  Value closed;
};

struct BoundMethodObject {
  ObjectHeader header;
  Value receiver;
  Value method;  // a closure or a native
};

struct ListObject {
  ObjectHeader header;
  Value storage;  // valueStorage handle (its length is the capacity), or nil when empty
  std::int64_t size;
};

// A hash map with insertion order, after CPython's compact dict: `entries` holds
// key, value pairs in insertion order (a removed entry's key is `undefined`);
// `index` is an open-addressing table of int32 entry numbers (-1 empty, -2 removed).
struct MapObject {
  ObjectHeader header;
  Value entries;        // valueStorage of 2 * entryCapacity values, or nil
  Value index;          // byteStorage of indexCapacity int32 slots, or nil
  std::int64_t count;   // live entries
  std::int64_t used;    // entries written, removed ones included
};

struct StringBuilderObject {
  ObjectHeader header;
  Value buffer;  // byteStorage, or nil while empty
  std::int64_t length;
};

struct ByteStorageObject {
  ObjectHeader header;
  std::uint64_t capacity;
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
};

// --- Method area (outside the studied heap, like the JVM's) ---------------------

// A built-in function. `args` points at the first argument on the VM stack;
// args[-1] is the receiver (for methods) or the callee. The stack never moves, so
// args stays valid across allocations and callbacks. Errors are thrown with
// vm.throwError (a C++ exception the interpreter turns into a Kith exception).
using NativeFn = Value (*)(VM& vm, Value* args, int argc);

struct NativeFunction {
  const char* name;
  NativeFn fn;
  int minArity;
  int maxArity;  // -1: any number
};

// A property site's cache: a field slot (>= 0) of instances of klass. An invoke site's:
// the method that receivers of klass run (kScriptMethod: a closure, kNativeMethod: a
// built-in), or, for a class receiver (Math.sqrt), klass's native static (kNativeStatic).
// Methods and statics do not change once a class is defined, so a hit needs no lookup.
struct InlineCache {
  static constexpr std::int32_t kScriptMethod = -1, kNativeMethod = -2, kNativeStatic = -3;
  ClassInfo* klass = nullptr;
  std::int32_t slot = kScriptMethod;  // a field slot, or which kind of method
  Value method{};                     // cached method for invokes
};

// A compiled function: bytecode, constants, line table. Owned by the VM for the
// whole run (method area); closures on the heap point at it.
struct FunctionProto {
  std::string name;           // "<script>" for top-level code
  std::string file;
  int arity = 0;
  int upvalueCount = 0;
  int maxStack = 0;           // stack slots the frame may use (locals + temporaries)
  bool isInitializer = false;
  std::vector<std::uint8_t> code;
  std::vector<int> lines;     // source line of each code byte
  std::vector<Value> constants;  // ints, floats, strings (heap: roots), nested protos by index
  std::vector<FunctionProto*> functions;  // nested functions, for OP_CLOSURE
  std::vector<InlineCache> caches;
};

struct ClassInfo {
  std::uint32_t id = 0;
  ObjectKind kind = ObjectKind::instance;
  std::string name;
  ClassInfo* superclass = nullptr;
  bool defined = false;  // a user class: its class statement has run
  bool isErrorClass = false;  // Error or a subclass
  std::vector<int> ownFieldSymbols;  // declared by this class
  std::vector<int> fieldSymbols;     // the layout: superclass fields first
  using FieldSlots = std::unordered_map<int, int>;
  FieldSlots fieldSlots;                      // symbol -> slot
  std::unordered_map<int, Value> methods;     // symbol -> closure or native (inherited copied down)
  // The closures this class's own `class` statement defined (OP_METHOD), for the
  // root scan: methods' other values are natives (not heap objects) or copies of a
  // superclass's own. A method defined twice keeps its first closure here too.
  std::vector<Value> ownMethods;
  std::unordered_map<int, Value> statics;     // Math.PI, System.args, Math.sqrt ...
  const NativeFunction* constructor = nullptr;  // built-in classes: `new List()` ...
  Value initializer = Value::nil();           // cached `init`
  bool instantiable = true;  // Math, System: false
  // Where the last object of this class was put: the allocation hint for the next
  // one when no better one is known (VM::allocateObject). Only an address, never
  // dereferenced, so it may be stale.
  const void* lastAllocated = nullptr;
  std::size_t instanceBytes() const { return sizeof(ObjectHeader) + fieldSymbols.size() * sizeof(Value); }
};

// Reads the current address of the object behind a handle. Good until the next allocation.
template <class T>
inline T* objectAt(Handle* h) {
  return static_cast<T*>(h->object);
}
template <class T>
inline T* objectAt(Value v) {
  return static_cast<T*>(v.asHandle()->object);
}

}  // namespace kith::vm
