// The VM's construction and what it does with values (comparison, arithmetic past
// the inline cases, equality, hashing, display). The interpreter loop is
// interpreter.cpp; calls, properties and classes calls.cpp; the object factories
// factories.cpp; thrown errors exceptions.cpp. Its three parts are their own types
// (vm/execution_stack.h, vm/method_area.h, vm/exception_state.h); the allocation gate
// is the object space's (vm/object_space.h).
#include "vm/vm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/opcodes.h"

namespace kith::vm {

namespace {

constexpr std::size_t kMaxDisplayDepth = 1000;  // arrays nested inside one str() (LANGUAGE.md)

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

// --- construction ----------------------------------------------------------------------

VM::VM(heap::Heap& heap, Collector& collector, VMOptions options)
    : collector_(collector),
      args_(std::move(options.args)),
      stepLimited_(options.stepLimit != 0),
      stack_(options.maxDepth) {
  space_ = makeObjectSpace(heap, collector_, *this, builtinClass(ObjectKind::boxedInt), options);
  if (options.stepLimit) {
    stepBudget_ = options.stepLimit;
    refreshStepsLeft();
  }
  modules_.setRefusal(std::move(options.importRefusal));
}

VM::~VM() = default;

void VM::setErrorClass(ClassInfo* klass) {
  methods_.setErrorClass(klass);
  // Preallocated so that even a heap too full for an error object can report one
  // (LANGUAGE.md: "the VM may throw a preallocated one"). Its message is a fixed
  // string that is never rewritten; the exact text of the failure is kept in C++
  // (ExceptionState::fallbackMessage) for the uncaught-error report.
  try {
    RootScope roots(*this);
    Value& text = roots.root(newString("out of memory"));
    Value error = newInstance(klass);
    auto slot = klass->fieldSlots.find(methods_.messageSymbol());
    if (slot != klass->fieldSlots.end()) objectAt<InstanceObject>(error)->fields()[slot->second] = text;
    exceptions_.setPreallocated(error, text);
  } catch (const KithThrow&) {
    clearException();
  }
}

void VM::gatherRoots(std::vector<Value>& roots) {
  forEachRoot([&](const Value& v) { roots.push_back(v); });
}

void VM::defineGlobal(std::string_view name, Value value) {
  KITH_WRITE_BARRIER(collector_, methods_.globalAt(static_cast<std::size_t>(methods_.globalSlot(name))), value);
}

// --- values -----------------------------------------------------------------------------------------

// `a op b` for < <= > >= (op is the comparison opcode) past the interpreter's inline
// cases: ints exactly (boxed too), an int against a float exactly (never through a
// rounding double), false with NaN, strings bytewise; anything else is the error.
bool VM::compareSlow(Op op, Value a, Value b) {
  const char* symbol = op == Op::LESS ? "'<'" : op == Op::LESS_EQUAL ? "'<='" : op == Op::GREATER ? "'>'" : "'>='";
  if (a.isNumber() && b.isNumber()) {
    if ((a.isFloat() && std::isnan(a.asFloat())) || (b.isFloat() && std::isnan(b.asFloat()))) return false;
    switch (op) {
      case Op::LESS: return numberLess(a, b);
      case Op::LESS_EQUAL: return !numberLess(b, a);
      case Op::GREATER: return numberLess(b, a);
      default: return !numberLess(a, b);
    }
  }
  if (isKind(a, ObjectKind::string) && isKind(b, ObjectKind::string)) {
    int c = objectAt<StringObject>(a)->view().compare(objectAt<StringObject>(b)->view());
    switch (op) {
      case Op::LESS: return c < 0;
      case Op::LESS_EQUAL: return c <= 0;
      case Op::GREATER: return c > 0;
      default: return c >= 0;
    }
  }
  throwError(std::string("cannot compare ") + typeName(a) + " and " + typeName(b) + " with " + symbol);
}

// `a op b` for + - * (op is ADD, SUBTRACT or MULTIPLY) past the interpreter's inline
// cases: boxed ints (64-bit wrap), mixed int/float, `+` on strings, the type error.
Value VM::arithmeticSlow(Op op, Value a, Value b) {
  if (op == Op::ADD) return add(a, b);
  bool subtract = op == Op::SUBTRACT;
  if (a.isInt() && b.isInt()) {
    auto x = static_cast<std::uint64_t>(a.asInt()), y = static_cast<std::uint64_t>(b.asInt());
    return Value::integer(static_cast<std::int64_t>(subtract ? x - y : x * y));
  }
  if (a.isNumber() && b.isNumber())
    return Value::floating(subtract ? a.toDouble() - b.toDouble() : a.toDouble() * b.toDouble());
  binaryTypeError(subtract ? "-" : "*", a, b);
}

bool VM::valuesEqual(Value a, Value b) {
  // Two strings first (json's `c == "{"`): the interpreter's most frequent call here.
  if (a.isObject() && b.isObject() && kindOf(a) == ObjectKind::string && kindOf(b) == ObjectKind::string) {
    auto* x = objectAt<StringObject>(a);
    auto* y = objectAt<StringObject>(b);
    return x->length == y->length && x->hash == y->hash && std::memcmp(x->bytes(), y->bytes(), x->length) == 0;
  }
  if (a.isNumber() && b.isNumber()) return numbersEqual(a, b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::nil: return true;
    case ValueType::boolean: return a.asBool() == b.asBool();
    case ValueType::object:
      if (a.asHandle() == b.asHandle()) return true;
      if (kindOf(a) == ObjectKind::string && kindOf(b) == ObjectKind::string) {
        auto* x = objectAt<StringObject>(a);
        auto* y = objectAt<StringObject>(b);
        return x->length == y->length && x->hash == y->hash && std::memcmp(x->bytes(), y->bytes(), x->length) == 0;
      }
      return false;
    case ValueType::klass: return a.asClass() == b.asClass();
    case ValueType::native: return a.asNative() == b.asNative();
    default: return false;
  }
}

std::uint64_t VM::hashValue(Value v) {
  switch (v.type()) {
    case ValueType::integer: return mix64(static_cast<std::uint64_t>(v.asInt()));
    case ValueType::floating: {
      double d = v.asFloat();
      // Every NaN is one Map key (LANGUAGE.md), whatever its sign and payload bits.
      if (std::isnan(d)) return mix64(0x7ff8000000000000ULL);
      // Equal numbers hash alike: a float with an int value hashes as that int.
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d)
        return mix64(static_cast<std::uint64_t>(static_cast<std::int64_t>(d)));
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix64(bits);
    }
    case ValueType::boolean: return mix64(v.asBool() ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL);
    case ValueType::object:
      if (kindOf(v) == ObjectKind::string) return objectAt<StringObject>(v)->hash;
      // Handles never move, so identity hashes are stable even when objects move.
      return mix64(reinterpret_cast<std::uintptr_t>(v.asHandle()));
    case ValueType::klass: return mix64(reinterpret_cast<std::uintptr_t>(v.asClass()));
    case ValueType::native: return mix64(reinterpret_cast<std::uintptr_t>(v.asNative()));
    default: return 0;
  }
}

std::string VM::typeName(Value v) {
  switch (v.type()) {
    case ValueType::nil: return "nil";
    case ValueType::boolean: return "bool";
    case ValueType::integer: return "int";
    case ValueType::floating: return "float";
    case ValueType::klass: return "class";
    case ValueType::native: return "function";
    case ValueType::undefined: return "undefined";
    case ValueType::object: break;
  }
  switch (kindOf(v)) {
    case ObjectKind::string: return "string";
    case ObjectKind::array: return "array";
    case ObjectKind::closure:
    case ObjectKind::boundMethod: return "function";
    case ObjectKind::instance: return v.asHandle()->klass->name;
    default: return v.asHandle()->klass->name;
  }
}

std::string VM::toDisplayString(Value value) {
  std::string out;
  std::size_t mark = displayInProgress_.size();
  try {
    appendDisplay(out, value);
  } catch (...) {
    displayInProgress_.resize(mark);
    throw;
  }
  return out;
}

Value VM::toStringValue(Value value) {
  if (isKind(value, ObjectKind::string)) return value;
  return newString(toDisplayString(value));
}

// str() of `value`, appended to `out`. Arrays are walked with an explicit stack:
// displayInProgress_ holds the open arrays (roots: an element's toString() may drop
// every other reference to them), `next` the index to show next in each, so nesting
// costs no C++ stack. Only toString() recurses (through the interpreter, which bounds
// its own re-entry: kMaxNativeDepth).
void VM::appendDisplay(std::string& out, Value value) {
  std::size_t base = displayInProgress_.size();
  std::vector<std::uint64_t> next;
  Value item = value;  // rooted by the caller or in an open array's slot, until shown
  for (;;) {
    if (isKind(item, ObjectKind::array)) {
      bool open = false;
      for (const Value& a : displayInProgress_) open |= a.asHandle() == item.asHandle();
      if (open) {
        out += "[...]";  // an array that contains itself
      } else {
        if (next.size() >= kMaxDisplayDepth) throwError("stack overflow");
        displayInProgress_.push_back(item);
        next.push_back(0);
        out += '[';
      }
    } else {
      appendScalar(out, item);
    }
    // Move on to the next element of the innermost open array, closing finished ones.
    for (;;) {
      if (displayInProgress_.size() == base) return;
      Handle* array = displayInProgress_.back().asHandle();
      std::uint64_t i = next.back();
      if (i < objectAt<ArrayObject>(array)->length) {
        if (i) out += ", ";
        next.back() = i + 1;
        item = objectAt<ArrayObject>(array)->elements()[i];
        break;
      }
      out += ']';
      displayInProgress_.pop_back();
      next.pop_back();
    }
  }
}

// str() of anything but an array; an instance's toString() must return a string.
void VM::appendScalar(std::string& out, Value value) {
  switch (value.type()) {
    case ValueType::nil: out += "nil"; return;
    case ValueType::boolean: out += value.asBool() ? "true" : "false"; return;
    case ValueType::integer: out += std::to_string(value.asInt()); return;
    case ValueType::floating: out += formatFloat(value.asFloat()); return;
    case ValueType::klass: out += "<class " + value.asClass()->name + ">"; return;
    case ValueType::native: out += std::string("<native fn ") + value.asNative()->name + ">"; return;
    case ValueType::undefined: out += "<undefined>"; return;
    case ValueType::object: break;
  }
  Handle* h = value.asHandle();
  switch (h->klass->kind) {
    case ObjectKind::string: out += objectAt<StringObject>(h)->view(); return;
    case ObjectKind::closure: out += "<fn " + objectAt<ClosureObject>(h)->proto->name + ">"; return;
    case ObjectKind::boundMethod: {
      Value m = objectAt<BoundMethodObject>(h)->method;
      out += m.isNative() ? std::string("<native fn ") + m.asNative()->name + ">"
                          : "<fn " + objectAt<ClosureObject>(m)->proto->name + ">";
      return;
    }
    default: break;
  }
  auto method = h->klass->methods.find(methods_.toStringSymbol());
  if (method == h->klass->methods.end()) {
    out += "<" + h->klass->name + " instance>";
    return;
  }
  push(value);  // the receiver, on the VM stack: a root for the call
  RootScope roots(*this);
  Value& result = roots.root(callMethod(method->second, 0));
  if (!isKind(result, ObjectKind::string)) throwError("toString() must return a string, got " + typeName(result));
  out += objectAt<StringObject>(result)->view();
}

}  // namespace kith::vm
