// Math: floating-point functions (all return floats) and abs/min/max, which keep
// ints as ints.
#include <cmath>
#include <numbers>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::NativeFunction;
using vm::Value;
using vm::VM;

namespace {

#define KITH_MATH_1(name, expr)                                   \
  Value math_##name(VM& vm, Value* args, int) {                   \
    double x = numberArgument(vm, args[0], "Math." #name "'s argument"); \
    return Value::floating(expr);                                 \
  }
KITH_MATH_1(sqrt, std::sqrt(x))
KITH_MATH_1(sin, std::sin(x))
KITH_MATH_1(cos, std::cos(x))
KITH_MATH_1(exp, std::exp(x))
KITH_MATH_1(log, std::log(x))
KITH_MATH_1(floor, std::floor(x))
KITH_MATH_1(ceil, std::ceil(x))
#undef KITH_MATH_1

Value math_atan2(VM& vm, Value* args, int) {
  return Value::floating(std::atan2(numberArgument(vm, args[0], "Math.atan2's y"), numberArgument(vm, args[1], "Math.atan2's x")));
}

Value math_pow(VM& vm, Value* args, int) {
  return Value::floating(std::pow(numberArgument(vm, args[0], "Math.pow's base"), numberArgument(vm, args[1], "Math.pow's exponent")));
}

Value math_abs(VM& vm, Value* args, int) {
  Value v = args[0];
  if (v.isInt())  // wraps like negation: abs(INT_MIN) is INT_MIN, as in Java
    return Value::integer(v.asInt() < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v.asInt())) : v.asInt());
  return Value::floating(std::fabs(numberArgument(vm, v, "Math.abs's argument")));
}

Value minOrMax(VM& vm, Value* args, int argc, bool wantMax, const char* name) {
  bool allInts = true;
  for (int i = 0; i < argc; ++i) {
    numberArgument(vm, args[i], name);
    allInts &= args[i].isInt();
  }
  Value best = args[0];
  for (int i = 1; i < argc; ++i) {
    bool better = wantMax ? vm::numberLess(best, args[i]) : vm::numberLess(args[i], best);
    if (better || (args[i].isFloat() && std::isnan(args[i].asFloat()))) best = args[i];
  }
  return allInts ? best : Value::floating(best.toDouble());
}
Value math_min(VM& vm, Value* args, int argc) { return minOrMax(vm, args, argc, false, "Math.min's arguments"); }
Value math_max(VM& vm, Value* args, int argc) { return minOrMax(vm, args, argc, true, "Math.max's arguments"); }

const NativeFunction kMath[] = {
    {"sqrt", math_sqrt, 1, 1}, {"sin", math_sin, 1, 1},     {"cos", math_cos, 1, 1},
    {"atan2", math_atan2, 2, 2}, {"exp", math_exp, 1, 1},   {"log", math_log, 1, 1},
    {"pow", math_pow, 2, 2},   {"floor", math_floor, 1, 1}, {"ceil", math_ceil, 1, 1},
    {"abs", math_abs, 1, 1},   {"min", math_min, 1, -1},    {"max", math_max, 1, -1},
};

}  // namespace

void installMath(VM& vm) {
  vm::ClassInfo* math = vm.newClass("Math", vm::ObjectKind::instance);
  math->instantiable = false;
  math->defined = true;
  for (const NativeFunction& f : kMath) vm.defineStatic(math, f.name, Value::nativeValue(&f));
  vm.defineStatic(math, "PI", Value::floating(std::numbers::pi));
  vm.defineGlobal("Math", Value::klassValue(math));
}

}  // namespace kith::stdlib
