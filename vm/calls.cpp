// Calls and frames, method invocation with inline caches, properties and indexing,
// `+` on mixed values, upvalues and classes: what the interpreter loop calls out to.
#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/opcodes.h"

namespace kith::vm {

// --- calls ---------------------------------------------------------------------------------------

void VM::push(Value v) {
  if (stack_.top >= stack_.limit) throwError("stack overflow");
  *stack_.top++ = v;
}

void VM::callClosure(Handle* closure, int argc) {
  FunctionProto* proto = objectAt<ClosureObject>(closure)->proto;
  if (argc != proto->arity) throwArity(proto->name, proto->arity, argc);
  if (stack_.frameCount >= stack_.maxDepth) throwError("stack overflow");
  Value* slots = stack_.top - argc - 1;
  if (slots + proto->maxStack > stack_.limit) throwError("stack overflow");
  stack_.frames[stack_.frameCount++] = CallFrame{closure, proto, proto->code.data(), slots};
}

void VM::callNative(const NativeFunction* native, int argc) {
  if (argc < native->minArity || (native->maxArity >= 0 && argc > native->maxArity)) {
    if (native->minArity == native->maxArity) throwArity(native->name, native->minArity, argc);
    throwError("'" + std::string(native->name) + "' expects " + std::to_string(native->minArity) + " to " +
               (native->maxArity < 0 ? std::string("any number of") : std::to_string(native->maxArity)) +
               " arguments but got " + std::to_string(argc));
  }
  Value* args = stack_.top - argc;
  Value result = native->fn(*this, args, argc);
  stack_.top = args - 1;
  *stack_.top++ = result;
  space_->collectBoxesIfDue();  // the result is on the stack: a safe point
}

bool VM::callValue(Value callee, int argc, std::uint16_t calleeName) {
  switch (callee.type()) {
    case ValueType::object:
      switch (kindOf(callee)) {
        case ObjectKind::closure: callClosure(callee.asHandle(), argc); return true;
        case ObjectKind::boundMethod: {
          auto* bound = objectAt<BoundMethodObject>(callee);
          Value method = bound->method;
          stack_.top[-1 - argc] = bound->receiver;
          if (method.isNative()) {
            callNative(method.asNative(), argc);
            return false;
          }
          callClosure(method.asHandle(), argc);
          return true;
        }
        default: break;
      }
      break;
    case ValueType::native: callNative(callee.asNative(), argc); return false;
    case ValueType::klass:
      throwError("class " + callee.asClass()->name + " is instantiated with 'new " + callee.asClass()->name + "(...)'");
    default: break;
  }
  if (calleeName != kNoCalleeName)
    throwError("cannot call '" + symbolName(calleeName) + "', a value of type " + typeName(callee));
  throwError("cannot call a value of type " + typeName(callee));
}

Value VM::call(int argc) {
  Value callee = stack_.top[-1 - argc];
  if (callValue(callee, argc)) return run(stack_.frameCount - 1);
  return *--stack_.top;
}

Value VM::callMethod(Value method, int argc) {
  if (method.isNative()) {
    callNative(method.asNative(), argc);
    return *--stack_.top;
  }
  callClosure(method.asHandle(), argc);
  return run(stack_.frameCount - 1);
}

bool VM::invokeFromClass(ClassInfo* klass, int symbol, int argc) {
  auto it = klass->methods.find(symbol);
  if (it == klass->methods.end())
    throwError("class " + klass->name + " has no method '" + symbolName(symbol) + "'");
  Value method = it->second;
  if (method.isNative()) {
    callNative(method.asNative(), argc);
    return false;
  }
  callClosure(method.asHandle(), argc);
  return true;
}

bool VM::invoke(int symbol, int argc, InlineCache* cache) {
  Value receiver = stack_.top[-1 - argc];
  if (receiver.isObject()) {
    ClassInfo* klass = receiver.asHandle()->klass;
    if (klass->kind == ObjectKind::instance) {
      auto field = klass->fieldSlots.find(symbol);
      if (field != klass->fieldSlots.end()) {  // a field holding a function: call it
        Value callee = objectAt<InstanceObject>(receiver)->fields()[field->second];
        stack_.top[-1 - argc] = callee;
        return callValue(callee, argc, symbol < kNoCalleeName ? static_cast<std::uint16_t>(symbol) : kNoCalleeName);
      }
    }
    auto it = klass->methods.find(symbol);
    if (it == klass->methods.end()) {
      if (klass->kind == ObjectKind::instance)
        throwError(klass->name + " has no field or method '" + symbolName(symbol) + "'");
      throwError(typeName(receiver) + " has no method '" + symbolName(symbol) + "'");
    }
    Value method = it->second;
    if (method.isNative()) {
      if (cache) *cache = InlineCache{klass, InlineCache::kNativeMethod, method};
      callNative(method.asNative(), argc);
      return false;
    }
    if (cache) *cache = InlineCache{klass, InlineCache::kScriptMethod, method};
    callClosure(method.asHandle(), argc);
    return true;
  }
  if (receiver.isClass()) {
    ClassInfo* klass = receiver.asClass();
    auto it = klass->statics.find(symbol);
    if (it == klass->statics.end())
      throwError("class " + klass->name + " has no member '" + symbolName(symbol) + "'");
    if (cache && it->second.isNative()) *cache = InlineCache{klass, InlineCache::kNativeStatic, it->second};
    return callValue(it->second, argc, symbol < kNoCalleeName ? static_cast<std::uint16_t>(symbol) : kNoCalleeName);
  }
  throwError("cannot call method '" + symbolName(symbol) + "' on " + typeName(receiver));
}

// --- properties and indexing ---------------------------------------------------------------------------

Value VM::bindMethod(Value receiver, ClassInfo* klass, int symbol, bool* found) {
  auto it = klass->methods.find(symbol);
  if (it == klass->methods.end()) {
    *found = false;
    return Value::nil();
  }
  *found = true;
  return newBoundMethod(receiver, it->second);
}

Value VM::getProperty(Value receiver, int symbol, InlineCache* cache) {
  if (receiver.isObject()) {
    ClassInfo* klass = receiver.asHandle()->klass;
    switch (klass->kind) {
      case ObjectKind::instance: {
        auto field = klass->fieldSlots.find(symbol);
        if (field != klass->fieldSlots.end()) {
          if (cache) *cache = InlineCache{klass, field->second, Value::nil()};
          return objectAt<InstanceObject>(receiver)->fields()[field->second];
        }
        break;
      }
      case ObjectKind::string:
        if (symbol == methods_.lengthSymbol()) return Value::integer(static_cast<std::int64_t>(objectAt<StringObject>(receiver)->length));
        break;
      case ObjectKind::array:
        if (symbol == methods_.lengthSymbol()) return Value::integer(static_cast<std::int64_t>(objectAt<ArrayObject>(receiver)->length));
        break;
      default: break;
    }
    bool found;
    Value bound = bindMethod(receiver, klass, symbol, &found);
    if (found) return bound;
    if (klass->kind == ObjectKind::instance)
      throwError(klass->name + " has no field or method '" + symbolName(symbol) + "'");
    throwError(typeName(receiver) + " has no property '" + symbolName(symbol) + "'");
  }
  if (receiver.isClass()) {
    auto it = receiver.asClass()->statics.find(symbol);
    if (it != receiver.asClass()->statics.end()) return it->second;
    throwError("class " + receiver.asClass()->name + " has no member '" + symbolName(symbol) + "'");
  }
  throwError("cannot read property '" + symbolName(symbol) + "' of " + typeName(receiver));
}

void VM::setProperty(Value receiver, int symbol, Value value, InlineCache* cache) {
  if (isKind(receiver, ObjectKind::instance)) {
    ClassInfo* klass = receiver.asHandle()->klass;
    auto field = klass->fieldSlots.find(symbol);
    if (field == klass->fieldSlots.end())
      throwError(klass->name + " has no field '" + symbolName(symbol) + "'");
    if (cache) *cache = InlineCache{klass, field->second, Value::nil()};
    KITH_WRITE_BARRIER(collector_, objectAt<InstanceObject>(receiver)->fields()[field->second], value);
    return;
  }
  throwError("cannot set property '" + symbolName(symbol) + "' on " + typeName(receiver));
}

namespace {
[[noreturn]] void outOfBounds(VM& vm, std::int64_t index, std::uint64_t length) {
  vm.throwError("index " + std::to_string(index) + " out of bounds for length " + std::to_string(length));
}
}  // namespace

Value VM::getIndex(Value container, Value index) {
  if (container.isObject() && (kindOf(container) == ObjectKind::array || kindOf(container) == ObjectKind::string)) {
    if (!index.isInt()) throwError("index must be an int, not " + typeName(index));
    std::int64_t i = index.asInt();
    if (kindOf(container) == ObjectKind::array) {
      auto* a = objectAt<ArrayObject>(container);
      if (i < 0 || static_cast<std::uint64_t>(i) >= a->length) outOfBounds(*this, i, a->length);
      return a->elements()[i];
    }
    auto* s = objectAt<StringObject>(container);
    if (i < 0 || static_cast<std::uint64_t>(i) >= s->length) outOfBounds(*this, i, s->length);
    char c = s->bytes()[i];  // copied out before the allocation
    return newString(std::string_view(&c, 1));
  }
  throwError("cannot index a value of type " + typeName(container));
}

void VM::setIndex(Value container, Value index, Value value) {
  if (isKind(container, ObjectKind::array)) {
    if (!index.isInt()) throwError("index must be an int, not " + typeName(index));
    auto* a = objectAt<ArrayObject>(container);
    std::int64_t i = index.asInt();
    if (i < 0 || static_cast<std::uint64_t>(i) >= a->length) outOfBounds(*this, i, a->length);
    KITH_WRITE_BARRIER(collector_, a->elements()[i], value);
    return;
  }
  if (isKind(container, ObjectKind::string)) throwError("strings are immutable");
  throwError("cannot index-assign a value of type " + typeName(container));
}

// --- operators ----------------------------------------------------------------------------------------

void VM::binaryTypeError(const char* op, Value a, Value b) {
  throwError(std::string("unsupported operand types for ") + op + ": " + typeName(a) + " and " + typeName(b));
}

Value VM::add(Value a, Value b) {
  if (a.isInt() && b.isInt())
    return Value::integer(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.asInt()) + static_cast<std::uint64_t>(b.asInt())));
  if (a.isNumber() && b.isNumber()) return Value::floating(a.toDouble() + b.toDouble());
  bool aString = isKind(a, ObjectKind::string), bString = isKind(b, ObjectKind::string);
  if (!aString && !bString) binaryTypeError("+", a, b);
  RootScope roots(*this);
  a = roots.root(a);  // kept alive while the other operand's toString() runs
  b = roots.root(b);
  // str() of the other operand first (it may run toString()), then one allocation,
  // then copy the string operands through their handles (they may have moved).
  std::string aText = aString ? std::string() : toDisplayString(a);
  std::string bText = bString ? std::string() : toDisplayString(b);
  std::size_t aLength = aString ? objectAt<StringObject>(a)->length : aText.size();
  std::size_t bLength = bString ? objectAt<StringObject>(b)->length : bText.size();
  Handle* result = newStringUninitialized(aLength + bLength);
  char* out = objectAt<StringObject>(result)->bytes();
  std::memcpy(out, aString ? objectAt<StringObject>(a)->bytes() : aText.data(), aLength);
  std::memcpy(out + aLength, bString ? objectAt<StringObject>(b)->bytes() : bText.data(), bLength);
  finishString(result);
  return Value::object(result);
}

// --- upvalues --------------------------------------------------------------------------------------------

Handle* VM::captureUpvalue(Value* slot, Handle* closure) {
  std::vector<Handle*>& open = stack_.openUpvalues;
  std::size_t i = open.size();
  while (i > 0 && objectAt<UpvalueObject>(open[i - 1])->stackSlot > slot) --i;
  if (i > 0 && objectAt<UpvalueObject>(open[i - 1])->stackSlot == slot) return open[i - 1];
  Handle* h = allocateObject(builtinClass(ObjectKind::upvalue), sizeof(UpvalueObject), closure);
  auto* u = objectAt<UpvalueObject>(h);
  u->stackSlot = slot;
  u->closed = Value::nil();
  open.insert(open.begin() + static_cast<std::ptrdiff_t>(i), h);
  return h;
}

void VM::unwindTo(std::size_t frame) {
  if (modules_.running()) modules_.unwound(stack_.frames, frame, stack_.frameCount);
  stack_.unwindTo(frame);
}

// --- classes ------------------------------------------------------------------------------------------

void VM::defineClass(ClassInfo* klass, Value superclass, bool hasSuper) {
  if (hasSuper) {
    if (!superclass.isClass()) throwError("superclass must be a class, not " + typeName(superclass));
    ClassInfo* super = superclass.asClass();
    if (super->kind != ObjectKind::instance || !super->instantiable)
      throwError("class " + klass->name + " cannot inherit from built-in class " + super->name);
    for (int sym : klass->ownFieldSymbols)
      if (super->fieldSlots.count(sym))
        throwError("field '" + symbolName(sym) + "' is already declared in superclass '" + super->name + "'");
    klass->superclass = super;
    klass->fieldSymbols = super->fieldSymbols;
    klass->fieldSlots = super->fieldSlots;
    klass->methods = super->methods;  // copy-down inheritance: own methods override below
    klass->initializer = super->initializer;
    klass->isErrorClass = super->isErrorClass;
  } else {
    klass->superclass = nullptr;
  }
  for (int sym : klass->ownFieldSymbols) {
    klass->fieldSlots[sym] = static_cast<int>(klass->fieldSymbols.size());
    klass->fieldSymbols.push_back(sym);
  }
  klass->defined = true;
}

bool VM::newObjectInstance(int argc, Handle* near) {
  Value callee = stack_.top[-1 - argc];
  if (!callee.isClass()) throwError("'new' needs a class, not " + typeName(callee));
  ClassInfo* klass = callee.asClass();
  if (klass->kind == ObjectKind::instance && klass->instantiable) {
    Value object = newInstance(klass, near);
    stack_.top[-1 - argc] = object;
    if (klass->initializer.isObject()) {
      callClosure(klass->initializer.asHandle(), argc);
      return true;
    }
    if (argc != 0) throwArity("new " + klass->name, 0, argc);
    return false;
  }
  if (klass->constructor) {
    callNative(klass->constructor, argc);
    return false;
  }
  throwError("cannot instantiate " + klass->name);
}

}  // namespace kith::vm
