// The method area: classes, prototypes, symbols and globals.
#include "vm/method_area.h"

#include <algorithm>
#include <unordered_set>

namespace kith::vm {

// The built-in classes' names.
const char* kindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::string: return "string";
    case ObjectKind::array: return "array";
    case ObjectKind::instance: return "instance";
    case ObjectKind::closure: return "closure";
    case ObjectKind::boundMethod: return "bound method";
    case ObjectKind::upvalue: return "upvalue";
    case ObjectKind::list: return "List";
    case ObjectKind::map: return "Map";
    case ObjectKind::stringBuilder: return "StringBuilder";
    case ObjectKind::valueStorage: return "value storage";
    case ObjectKind::byteStorage: return "byte storage";
    case ObjectKind::boxedInt: return "boxed int";
    case ObjectKind::count: break;
  }
  return "?";
}

MethodArea::MethodArea() {
  for (std::size_t k = 0; k < kObjectKindCount; ++k) {
    auto klass = std::make_unique<ClassInfo>();
    klass->id = static_cast<std::uint32_t>(k);
    klass->kind = static_cast<ObjectKind>(k);
    klass->name = kindName(klass->kind);
    klass->defined = true;
    klass->instantiable = false;
    classes_.push_back(std::move(klass));
  }
  builtinClass(ObjectKind::array)->name = "Array";
  builtinClass(ObjectKind::instance)->name = "Object";
  arrayClass_ = builtinClass(ObjectKind::array);
  messageSymbol_ = symbol("message");
  toStringSymbol_ = symbol("toString");
  initSymbol_ = symbol("init");
  lengthSymbol_ = symbol("length");
}

ClassInfo* MethodArea::newClass(std::string name, ObjectKind kind) {
  auto klass = std::make_unique<ClassInfo>();
  klass->id = static_cast<std::uint32_t>(classes_.size());
  klass->kind = kind;
  klass->name = std::move(name);
  ClassInfo* raw = klass.get();
  classes_.push_back(std::move(klass));
  if (kind == ObjectKind::instance) compiledClasses_[raw->name] = raw;
  return raw;
}

ClassInfo* MethodArea::compiledClass(std::string_view name) {
  auto it = compiledClasses_.find(std::string(name));
  return it == compiledClasses_.end() ? nullptr : it->second;
}

void MethodArea::setErrorClass(ClassInfo* klass) {
  errorClass_ = klass;
  klass->isErrorClass = true;
}

FunctionProto* MethodArea::newProto() {
  protos_.push_back(std::make_unique<FunctionProto>());
  return protos_.back().get();
}

void MethodArea::defineNative(ClassInfo* klass, const NativeFunction* native) {
  klass->methods[symbol(native->name)] = Value::nativeValue(native);
}

void MethodArea::defineStatic(ClassInfo* klass, std::string_view name, Value value) {
  klass->statics[symbol(name)] = value;
}

int MethodArea::symbol(std::string_view name) {
  auto [it, inserted] = symbols_.try_emplace(std::string(name), static_cast<int>(symbolNames_.size()));
  if (inserted) symbolNames_.emplace_back(name);
  return it->second;
}

int MethodArea::globalSlot(std::string_view name) {
  auto [it, inserted] = globalSlots_.try_emplace(std::string(name), static_cast<int>(globals_.size()));
  if (inserted) {
    globalNames_.emplace_back(name);
    globals_.push_back(Value::undefined());
    globalDeclared_.push_back(false);
  }
  return it->second;
}

Value MethodArea::global(std::string_view name) {
  auto it = globalSlots_.find(std::string(name));
  return it == globalSlots_.end() ? Value::undefined() : globals_[static_cast<std::size_t>(it->second)];
}

void MethodArea::dropTopLevelConstantRoots(const FunctionProto& script, std::size_t count) {
  std::unordered_set<const Handle*> own;  // the constants of the top-level code, not of its functions
  for (const Value& c : script.constants)
    if (c.isObject() || c.isBoxedInt()) own.insert(c.handle());
  constantObjects_.erase(std::remove_if(constantObjects_.begin() + static_cast<std::ptrdiff_t>(count),
                                        constantObjects_.end(), [&](const Value& root) { return own.count(root.handle()) != 0; }),
                         constantObjects_.end());
}

}  // namespace kith::vm
