// The method area, as a JVM's: what the program's code is made of and names — the
// classes (built-in kinds first), the function prototypes, the symbol table, the
// globals, and the heap objects among the functions' constants. It lives as long as
// the VM; nothing in it is a heap allocation a study counts, so making a class or a
// symbol never collects. Held by value inside the VM (the interpreter reads its
// globals and classes with no pointer more).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vm/object.h"
#include "vm/value.h"

namespace kith::vm {

class MethodArea {
 public:
  // The built-in classes (one per ObjectKind, ids equal to the kinds) and the
  // symbols the VM looks up by itself.
  MethodArea();
  MethodArea(const MethodArea&) = delete;
  MethodArea& operator=(const MethodArea&) = delete;

  // --- classes and functions -----------------------------------------------------
  ClassInfo* builtinClass(ObjectKind kind) { return classes_[static_cast<std::size_t>(kind)].get(); }
  ClassInfo* arrayClass() const { return arrayClass_; }  // the interpreter's array fast paths compare it
  ClassInfo* newClass(std::string name, ObjectKind kind);
  ClassInfo* classById(std::size_t id) { return classes_[id].get(); }
  // A user class compiled so far, by name (for compile-time field checks).
  ClassInfo* compiledClass(std::string_view name);
  ClassInfo* errorClass() const { return errorClass_; }
  void setErrorClass(ClassInfo* klass);
  FunctionProto* newProto();
  void defineNative(ClassInfo* klass, const NativeFunction* native);  // a method of a built-in class
  void defineStatic(ClassInfo* klass, std::string_view name, Value value);

  // --- symbols ----------------------------------------------------------------------
  int symbol(std::string_view name);  // the name's number, made on first use
  const std::string& symbolName(int symbol) const { return symbolNames_[static_cast<std::size_t>(symbol)]; }
  int messageSymbol() const { return messageSymbol_; }    // Error's field
  int toStringSymbol() const { return toStringSymbol_; }  // str()'s method
  int initSymbol() const { return initSymbol_; }          // the initializer
  int lengthSymbol() const { return lengthSymbol_; }      // strings' and arrays' property

  // --- globals ----------------------------------------------------------------------
  int globalSlot(std::string_view name);  // creates an undefined global on first use
  Value global(std::string_view name);    // undefined() if absent
  // The slot's value, to read or to store through the collector's write barrier.
  Value& globalAt(std::size_t slot) { return globals_[slot]; }
  const std::string& globalName(std::size_t slot) const { return globalNames_[slot]; }
  // Set by a top-level let/fn/class that has run (built-ins are not declared).
  bool declared(std::size_t slot) const { return globalDeclared_[slot]; }
  void declare(std::size_t slot) { globalDeclared_[slot] = true; }

  // --- constants' roots (VM::rootConstant) -------------------------------------------
  void rootConstant(Value constant) { constantObjects_.push_back(constant); }
  std::size_t constantRootCount() const { return constantObjects_.size(); }
  void dropConstantRoots(std::size_t count) { constantObjects_.resize(count); }
  void dropTopLevelConstantRoots(const FunctionProto& script, std::size_t count);

  // The roots here: the globals; then, separately, the constants' objects and the
  // methods each class defines, its statics and initializer (VM::forEachRoot gives
  // the roots in a fixed order).
  template <class Fn>
  void forEachGlobalRoot(Fn&& fn);
  template <class Fn>
  void forEachCodeRoot(Fn&& fn);

 private:
  std::vector<std::unique_ptr<ClassInfo>> classes_;
  std::unordered_map<std::string, ClassInfo*> compiledClasses_;
  ClassInfo* arrayClass_;
  ClassInfo* errorClass_ = nullptr;
  std::vector<std::unique_ptr<FunctionProto>> protos_;
  // The heap objects among protos_' constants. The root scan reads these from one
  // vector rather than walking every function's constants, most of them numbers, one
  // function at a time (that walk was most of a root scan's cache misses).
  std::vector<Value> constantObjects_;
  std::unordered_map<std::string, int> symbols_;
  std::vector<std::string> symbolNames_;
  std::unordered_map<std::string, int> globalSlots_;
  std::vector<std::string> globalNames_;
  std::vector<Value> globals_;
  std::vector<bool> globalDeclared_;
  int messageSymbol_;
  int toStringSymbol_;
  int initSymbol_;
  int lengthSymbol_;
};

template <class Fn>
void MethodArea::forEachGlobalRoot(Fn&& fn) {
  for (Value& v : globals_) fn(v);
}

template <class Fn>
void MethodArea::forEachCodeRoot(Fn&& fn) {
  for (Value& v : constantObjects_) fn(v);
  for (auto& klass : classes_) {
    for (Value& method : klass->ownMethods) fn(method);  // the rest are natives or inherited
    for (auto& [symbol, value] : klass->statics) fn(value);
    fn(klass->initializer);
  }
}

}  // namespace kith::vm
