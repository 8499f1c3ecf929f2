// Global functions (print str int float typeOf chr clock) and the Array class.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::Handle;
using vm::NativeFunction;
using vm::ObjectKind;
using vm::Value;
using vm::VM;

namespace {

Value print(VM& vm, Value* args, int argc) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i) line += ' ';
    line += vm.toDisplayString(args[i]);
  }
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  return Value::nil();
}

Value str(VM& vm, Value* args, int) { return vm.toStringValue(args[0]); }

std::string trimmed(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

Value toInt(VM& vm, Value* args, int) {
  Value v = args[0];
  if (v.isInt()) return v;
  if (v.isFloat()) {
    double d = v.asFloat();
    if (std::isnan(d)) vm.throwError("cannot convert nan to int");
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
      vm.throwError("float " + vm::formatFloat(d) + " is out of the int range");
    return Value::integer(static_cast<std::int64_t>(d));  // truncates toward zero
  }
  if (vm.isKind(v, ObjectKind::string)) {
    std::string text = trimmed(vm.stringView(v));
    const char* p = text.c_str();
    bool ok = !text.empty();
    std::size_t digitsAt = (p[0] == '-' || p[0] == '+') ? 1 : 0;
    if (digitsAt == text.size()) ok = false;
    for (std::size_t i = digitsAt; ok && i < text.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(p[i])) != 0;
    if (ok) {
      errno = 0;
      long long n = std::strtoll(p, nullptr, 10);
      if (errno == ERANGE) vm.throwError("int(\"" + text + "\") is out of the int range");
      return Value::integer(n);
    }
    vm.throwError("invalid int: \"" + std::string(vm.stringView(args[0])) + "\"");
  }
  vm.throwError("cannot convert " + vm.typeName(v) + " to int");
}

Value toFloat(VM& vm, Value* args, int) {
  Value v = args[0];
  if (v.isFloat()) return v;
  if (v.isInt()) return Value::floating(static_cast<double>(v.asInt()));
  if (vm.isKind(v, ObjectKind::string)) {
    std::string text = trimmed(vm.stringView(v));
    char* end = nullptr;
    double d = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    bool hex = text.find_first_of("xX") != std::string::npos;  // strtod reads hex; Kith does not
    if (text.empty() || hex || end != text.c_str() + text.size())
      vm.throwError("invalid float: \"" + std::string(vm.stringView(args[0])) + "\"");
    return Value::floating(d);
  }
  vm.throwError("cannot convert " + vm.typeName(v) + " to float");
}

Value typeOf(VM& vm, Value* args, int) { return vm.newString(vm.typeName(args[0])); }

Value chr(VM& vm, Value* args, int) {
  std::int64_t code = intArgument(vm, args[0], "chr's argument");
  if (code < 0 || code > 255) vm.throwError("chr(" + std::to_string(code) + "): the code must be 0 to 255");
  char c = static_cast<char>(code);
  return vm.newString(std::string_view(&c, 1));
}

Value clock(VM&, Value*, int) {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return Value::floating(std::chrono::duration<double>(now).count());
}

// new Array(n) / new Array(n, fill)
Value newArray(VM& vm, Value* args, int argc) {
  std::int64_t n = intArgument(vm, args[0], "the array length");
  if (n < 0) vm.throwError("negative array length: " + std::to_string(n));
  return vm.newArray(static_cast<std::size_t>(n), argc > 1 ? args[1] : Value::nil());
}

const NativeFunction kPrint{"print", print, 0, -1};
const NativeFunction kStr{"str", str, 1, 1};
const NativeFunction kInt{"int", toInt, 1, 1};
const NativeFunction kFloat{"float", toFloat, 1, 1};
const NativeFunction kTypeOf{"typeOf", typeOf, 1, 1};
const NativeFunction kChr{"chr", chr, 1, 1};
const NativeFunction kClock{"clock", clock, 0, 0};
const NativeFunction kNewArray{"Array", newArray, 1, 2};

}  // namespace

void installCore(VM& vm) {
  for (const NativeFunction* f : {&kPrint, &kStr, &kInt, &kFloat, &kTypeOf, &kChr, &kClock})
    vm.defineGlobal(f->name, Value::nativeValue(f));
  vm::ClassInfo* array = vm.builtinClass(ObjectKind::array);
  array->constructor = &kNewArray;
  vm.defineGlobal("Array", Value::klassValue(array));
}

}  // namespace kith::stdlib
