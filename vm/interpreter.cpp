// The interpreter: runScript and the dispatch loop (VM::run), computed goto where
// the compiler has it. Built with -fno-gcse -fno-crossjumping (vm/CMakeLists.txt).
#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/freed_object_guard.h"
#include "vm/opcodes.h"

namespace kith::vm {

namespace {

constexpr int kMaxNativeDepth = 1000;     // nested interpreter entries (C++ recursion)

}  // namespace

// --- running --------------------------------------------------------------------------------------------

void VM::runScript(FunctionProto* script, ScriptClosure closure) {
  modules_.noteMainScript(script->file);
  Handle* h = nullptr;
  if (closure == ScriptClosure::allocate) {
    h = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject));
    auto* c = objectAt<ClosureObject>(h);
    c->proto = script;
    c->upvalueCount = 0;
  }
  Value* base = stack_.top;
  push(h ? Value::object(h) : Value::nil());  // the callee's slot
  try {
    if (stack_.frameCount >= stack_.maxDepth || base + script->maxStack > stack_.limit) throwError("stack overflow");
    stack_.frames[stack_.frameCount++] = CallFrame{h, script, script->code.data(), base};
    run(stack_.frameCount - 1);
  } catch (...) {
    stack_.top = base;
    throw;
  }
  stack_.top = base;
}

// Computed goto (labels as values) is a GNU extension; -Wpedantic would flag every use.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
Value VM::run(std::size_t entryFrame) {
  space_->boxHere();  // boxes made from here on go to this VM's object space
  if (stack_.nativeDepth >= kMaxNativeDepth) {
    // Too deep in native -> script -> native calls for the C++ stack: drop the frame
    // the caller pushed, then report it like any other overflow.
    stack_.frameCount = entryFrame;
    stack_.top = stack_.frames[entryFrame].slots;
    throwError("stack overflow");
  }
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  } depthGuard(stack_.nativeDepth);

  CallFrame* frame;
  const std::uint8_t* ip;
  Value* slots;
  Value* sp = stack_.top;
  const Value* constants;
  InlineCache* caches;
  std::uint64_t executed = 0;
  Value* chainAt;     // a float fast path's result slot, and its value: floatChain's start
  double chainValue;

#define LOAD_FRAME()                               \
  do {                                             \
    frame = &stack_.frames[stack_.frameCount - 1]; \
    ip = frame->ip;                                \
    slots = frame->slots;                          \
    constants = frame->proto->constants.data();    \
    caches = frame->proto->caches.data();          \
  } while (0)
// Before anything that may allocate, throw or call out: publish ip and stack top.
#define SYNC() (frame->ip = ip, stack_.top = sp)
// An int result: inline when it fits 48 bits; else boxed (value.h) after SYNC, since
// a box is a handle (or a Boehm block) and boxes piling up collect here, with the
// result already on the stack.
#define STORE_INT(slot, expr)                               \
  do {                                                      \
    std::int64_t result_ = (expr);                          \
    if (Value::fitsSmallInt(result_)) [[likely]] {          \
      storeSmallInt(slot, result_);                         \
    } else {                                                \
      SYNC();                                               \
      *(slot) = Value::integer(result_);                    \
      space_->collectBoxesIfDue();                          \
    }                                                       \
  } while (0)
#define READ_BYTE() (*ip++)
#define READ_U16() (ip += 2, static_cast<std::uint16_t>(ip[-2] | (ip[-1] << 8)))
// VMOptions::stepLimit, checked where every endless run passes again and again.
// An interrupt (requestInterrupt) lowers stepsLeft_ to 0, so this one check serves both.
#define CHECK_STEP_LIMIT()                                                         \
  do {                                                                             \
    if (executed > stepsLeft_.load(std::memory_order_relaxed)) [[unlikely]] {      \
      SYNC();                                                                      \
      addInstructions(executed);                                                   \
      executed = 0;                                                                \
      stepLimitReached();                                                          \
    }                                                                              \
  } while (0)
// A conditional forward jump, then the next instruction. Written as a branch that
// dispatches on each side: computed as `ip += cond ? offset : 0`, gcc emits a cmov,
// and the next opcode's address then waits for the condition (on mandelbrot's float
// compare that made the whole loop 40% slower), where a predicted branch runs ahead.
#define JUMP_FORWARD_IF(cond, offset) \
  do {                                \
    if (!(cond)) DISPATCH();          \
    ip += (offset);                   \
    DISPATCH();                       \
  } while (0)
// A loop's jump back (LOOP, LOOP_IF_TRUE, LOOP_IF_LESS ...): the step limit, and the
// collector's slice, so an incremental cycle also advances in loops that never allocate.
#define BACK_EDGE(offset)                \
  do {                                   \
    ip -= (offset);                      \
    CHECK_STEP_LIMIT();                  \
    if (collector_.atBackEdge()) {       \
      SYNC();                            \
      space_->backEdgeSlice();           \
    }                                    \
  } while (0)

  LOAD_FRAME();
  for (;;) {
    try {
#if defined(__GNUC__)
      static void* const dispatchTable[] = {
#define KITH_OP_LABEL(name, ...) &&op_##name,
          KITH_OPCODES(KITH_OP_LABEL)
#undef KITH_OP_LABEL
      };
#define DISPATCH()                     \
  do {                                 \
    ++executed;                        \
    goto* dispatchTable[*ip++];        \
  } while (0)
#define CASE(name) op_##name:
      DISPATCH();
#else
#define DISPATCH() continue
#define CASE(name) case Op::name:
      for (;;) {
        ++executed;
        switch (static_cast<Op>(*ip++)) {
#endif

      CASE(CONSTANT) { *sp++ = constants[READ_U16()]; DISPATCH(); }
      CASE(NIL) { *sp++ = Value::nil(); DISPATCH(); }
      CASE(TRUE) { storeBool(sp++, true); DISPATCH(); }
      CASE(FALSE) { storeBool(sp++, false); DISPATCH(); }
      CASE(SMALL_INT) { storeSmallInt(sp++, static_cast<std::int16_t>(READ_U16())); DISPATCH(); }
      CASE(POP) { --sp; DISPATCH(); }
      CASE(POP_N) { sp -= READ_BYTE(); DISPATCH(); }
      CASE(GET_LOCAL) { *sp++ = slots[READ_BYTE()]; DISPATCH(); }
      CASE(GET_LOCAL2) {
        sp[0] = slots[ip[0]];
        sp[1] = slots[ip[1]];
        sp += 2;
        ip += 2;
        DISPATCH();
      }
      CASE(SET_LOCAL) { slots[READ_BYTE()] = sp[-1]; DISPATCH(); }
      CASE(SET_LOCAL_POP) { slots[READ_BYTE()] = *--sp; DISPATCH(); }
      CASE(GET_GLOBAL) {
        std::uint16_t slot = READ_U16();
        Value v = methods_.globalAt(slot);
        if (v.isUndefined()) {
          SYNC();
          throwError("undefined variable '" + methods_.globalName(slot) + "'");
        }
        *sp++ = v;
        DISPATCH();
      }
      CASE(SET_GLOBAL) {
        std::uint16_t slot = READ_U16();
        if (methods_.globalAt(slot).isUndefined()) {
          SYNC();
          throwError("undefined variable '" + methods_.globalName(slot) + "'");
        }
        KITH_WRITE_BARRIER(collector_, methods_.globalAt(slot), sp[-1]);
        DISPATCH();
      }
      CASE(DEFINE_GLOBAL) {
        std::uint16_t slot = READ_U16();
        if (methods_.declared(slot)) {  // declared at the top level of another file too
          SYNC();
          throwError("global '" + methods_.globalName(slot) + "' is already defined");
        }
        methods_.declare(slot);
        KITH_WRITE_BARRIER(collector_, methods_.globalAt(slot), *--sp);
        DISPATCH();
      }
      CASE(GET_UPVALUE) {
        Value up = objectAt<ClosureObject>(frame->closure)->upvalues()[READ_BYTE()];
        auto* u = objectAt<UpvalueObject>(up);
        *sp++ = u->stackSlot ? *u->stackSlot : u->closed;
        DISPATCH();
      }
      CASE(SET_UPVALUE) {
        Value up = objectAt<ClosureObject>(frame->closure)->upvalues()[READ_BYTE()];
        auto* u = objectAt<UpvalueObject>(up);
        if (u->stackSlot) *u->stackSlot = sp[-1];  // open: a stack slot, a root
        else KITH_WRITE_BARRIER(collector_, u->closed, sp[-1]);
        DISPATCH();
      }
      CASE(CLOSE_UPVALUE) {
        stack_.closeUpvalues(sp - 1);
        --sp;
        DISPATCH();
      }
// A property site's cache is only ever filled with a field slot (getProperty,
// setProperty), so a class match is a hit: no test of the slot's sign.
#define PROPERTY_HIT(receiver, cache) ((receiver).isObject() && (receiver).asHandle()->klass == (cache)->klass)
#define FIELD_AT(receiver, cache) (objectAt<InstanceObject>(receiver)->fields()[(cache)->slot])
// The rest of a property read, the receiver in sp[-1] (a root while getProperty binds a
// method or throws), which the property replaces. An array's or a string's length (loop
// bounds, json's scanner): what getProperty answers. Both objects keep their length in
// the word after the header.
#define PROPERTY_MISS(receiver, sym, cache)                                                            \
  {                                                                                                    \
    if ((sym) == methods_.lengthSymbol() && (receiver).isObject() &&                                   \
        ((receiver).asHandle()->klass == methods_.arrayClass() ||                                      \
         (receiver).asHandle()->klass == builtinClass(ObjectKind::string))) {                          \
      static_assert(offsetof(ArrayObject, length) == offsetof(StringObject, length));                  \
      storeSmallInt(sp - 1, static_cast<std::int64_t>(objectAt<ArrayObject>(receiver)->length));      \
      DISPATCH();                                                                                      \
    }                                                                                                  \
    SYNC();                                                                                            \
    sp[-1] = getProperty(receiver, sym, cache);                                                        \
    DISPATCH();                                                                                        \
  }
// The property instructions step ip on each path (hit, miss), not before the test: gcc
// computed the stepped ip ahead, for the miss's SYNC, on the hit's path too.
      CASE(GET_PROPERTY) {
        std::uint16_t sym = static_cast<std::uint16_t>(ip[0] | (ip[1] << 8));
        InlineCache* cache = &caches[ip[2] | (ip[3] << 8)];
        Value receiver = sp[-1];
        if (PROPERTY_HIT(receiver, cache)) {
          ip += 4;
          sp[-1] = FIELD_AT(receiver, cache);
          DISPATCH();
        }
        ip += 4;
        PROPERTY_MISS(receiver, sym, cache)
      }
      CASE(GET_LOCAL_PROPERTY) {  // `o.f` of a local o: GET_LOCAL then GET_PROPERTY
        Value receiver = slots[ip[0]];
        std::uint16_t sym = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));
        InlineCache* cache = &caches[ip[3] | (ip[4] << 8)];
        if (PROPERTY_HIT(receiver, cache)) {
          ip += 5;
          *sp++ = FIELD_AT(receiver, cache);
          DISPATCH();
        }
        ip += 5;  // every operand read: a trace names GET_PROPERTY's line
        *sp++ = receiver;  // as GET_LOCAL left it
        PROPERTY_MISS(receiver, sym, cache)
      }
      CASE(GET_LOCAL_LOCAL_PROPERTY) {  // `a op o.f`, `o.f = o.f op ...`: GET_LOCAL2 a o then GET_PROPERTY
        *sp++ = slots[ip[0]];
        Value receiver = slots[ip[1]];
        std::uint16_t sym = static_cast<std::uint16_t>(ip[2] | (ip[3] << 8));
        InlineCache* cache = &caches[ip[4] | (ip[5] << 8)];
        if (PROPERTY_HIT(receiver, cache)) {
          ip += 6;
          *sp++ = FIELD_AT(receiver, cache);
          DISPATCH();
        }
        ip += 6;
        *sp++ = receiver;
        PROPERTY_MISS(receiver, sym, cache)
      }
      CASE(GET_LOCAL_PROPERTY_TO) {  // `c = o.f;` on locals: GET_LOCAL_PROPERTY then SET_LOCAL_POP
        Value receiver = slots[ip[0]];
        std::uint16_t sym = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));
        InlineCache* cache = &caches[ip[3] | (ip[4] << 8)];
        Value* dest = &slots[ip[5]];
        if (PROPERTY_HIT(receiver, cache)) {
          ip += 6;
          *dest = FIELD_AT(receiver, cache);
          DISPATCH();
        }
        ip += 6;
        *sp++ = receiver;  // a root while getProperty binds a method or throws, as unfused
        SYNC();
        Value property = getProperty(receiver, sym, cache);
        *dest = property;
        --sp;
        DISPATCH();
      }
#undef PROPERTY_MISS
// A store into a field or an element; the statement form (_POP) leaves nothing. The
// field's address is computed once and the value read from the stack after the
// barrier: held in registers across the barrier's call, gcc spilled both.
#define SET_PROPERTY_OP(opName, leave)                                                           \
  CASE(opName) {                                                                                 \
    std::uint16_t sym = static_cast<std::uint16_t>(ip[0] | (ip[1] << 8));                       \
    InlineCache* cache = &caches[ip[2] | (ip[3] << 8)];                                          \
    Value receiver = sp[-2];                                                                     \
    if (PROPERTY_HIT(receiver, cache)) {                                                         \
      ip += 4;                                                                                   \
      Value& field = FIELD_AT(receiver, cache);                                                  \
      KITH_WRITE_BARRIER(collector_, field, sp[-1]);                                             \
    } else {                                                                                     \
      ip += 4;                                                                                   \
      SYNC();                                                                                    \
      setProperty(receiver, sym, sp[-1], cache);                                                 \
    }                                                                                            \
    if (leave) sp[-2] = sp[-1]; /* the assignment's value, where the receiver was */             \
    sp -= (leave) ? 1 : 2;                                                                       \
    DISPATCH();                                                                                  \
  }
      SET_PROPERTY_OP(SET_PROPERTY, true)
      SET_PROPERTY_OP(SET_PROPERTY_POP, false)
#undef SET_PROPERTY_OP
#undef FIELD_AT
#undef PROPERTY_HIT
// An array and an inline int (a boxed one is past any array's end) in its bounds: the
// class pointer is compared, not its kind, one load fewer. Else getIndex, with the
// container and the index on the stack (roots) as GET_INDEX has them.
#define ARRAY_INDEX_HIT(container, index)                                                         \
  ((index).isSmallInt() && (container).isObject() && (container).asHandle()->klass == methods_.arrayClass() && \
   static_cast<std::uint64_t>((index).asSmallInt()) < objectAt<ArrayObject>(container)->length)
#define ELEMENT_AT(container, index) (objectAt<ArrayObject>(container)->elements()[(index).asSmallInt()])
#define INDEX_MISS(container, index)     \
  {                                      \
    SYNC();                              \
    sp[-2] = getIndex(container, index); \
    --sp;                                \
    DISPATCH();                          \
  }
      CASE(GET_INDEX) {
        Value container = sp[-2], index = sp[-1];
        if (ARRAY_INDEX_HIT(container, index)) {
          sp[-2] = ELEMENT_AT(container, index);
          --sp;
          DISPATCH();
        }
        INDEX_MISS(container, index)
      }
      CASE(GET_INDEX_L) {  // `e[i]` of a local i: GET_LOCAL then GET_INDEX
        Value index = slots[ip[0]], container = sp[-1];
        if (ARRAY_INDEX_HIT(container, index)) {  // ip steps on each path, as the property reads' do
          ++ip;
          sp[-1] = ELEMENT_AT(container, index);
          DISPATCH();
        }
        ++ip;
        *sp++ = index;
        INDEX_MISS(container, index)
      }
      CASE(GET_INDEX_LL) {  // `a[i]` of locals: GET_LOCAL2 then GET_INDEX
        Value container = slots[ip[0]], index = slots[ip[1]];
        if (ARRAY_INDEX_HIT(container, index)) {
          ip += 2;
          *sp++ = ELEMENT_AT(container, index);
          DISPATCH();
        }
        ip += 2;
        sp[0] = container;
        sp[1] = index;
        sp += 2;
        INDEX_MISS(container, index)
      }
#undef INDEX_MISS
#undef ELEMENT_AT
#undef ARRAY_INDEX_HIT
// The element's address computed once and the value re-read after the barrier, as
// SET_PROPERTY_OP does.
#define SET_INDEX_OP(opName, leave)                                                                   \
  CASE(opName) {                                                                                      \
    Value container = sp[-3], index = sp[-2];                                                         \
    if (index.isSmallInt() && container.isObject() && container.asHandle()->klass == methods_.arrayClass() && \
        static_cast<std::uint64_t>(index.asSmallInt()) < objectAt<ArrayObject>(container)->length) {  \
      Value& element = objectAt<ArrayObject>(container)->elements()[index.asSmallInt()];              \
      KITH_WRITE_BARRIER(collector_, element, sp[-1]);                                                \
    } else {                                                                                          \
      SYNC();                                                                                         \
      setIndex(container, index, sp[-1]);                                                             \
    }                                                                                                 \
    if (leave) sp[-3] = sp[-1]; /* the assignment's value, where the container was */                 \
    sp -= (leave) ? 2 : 3;                                                                            \
    DISPATCH();                                                                                       \
  }
      SET_INDEX_OP(SET_INDEX, true)
      SET_INDEX_OP(SET_INDEX_POP, false)
#undef SET_INDEX_OP
      CASE(GET_SUPER) {
        std::uint16_t classId = READ_U16();
        std::uint16_t sym = READ_U16();
        SYNC();
        ClassInfo* super = methods_.classById(classId)->superclass;
        bool found;
        Value bound = bindMethod(sp[-1], super, sym, &found);
        if (!found) throwError("class " + super->name + " has no method '" + symbolName(sym) + "'");
        sp[-1] = bound;
        DISPATCH();
      }
// Same bits: the same value (but NaN != NaN). Different bits: unequal when either is
// nil or both are inline ints; else (strings by content, numbers across int, float and
// boxes) valuesEqual decides.
#define VALUES_EQUAL(a, b)                                                                        \
  ((a).sameAs(b) ? !((a).isFloat() && std::isnan((a).asFloat()))                                  \
                 : !(((a).isSmallInt() && (b).isSmallInt()) || (a).isNil() || (b).isNil()) && valuesEqual(a, b))
      CASE(EQUAL) {
        Value b = sp[-1], a = sp[-2];
        storeBool(sp - 2, VALUES_EQUAL(a, b));
        --sp;
        DISPATCH();
      }
      CASE(NOT_EQUAL) {
        Value b = sp[-1], a = sp[-2];
        storeBool(sp - 2, !VALUES_EQUAL(a, b));
        --sp;
        DISPATCH();
      }
      CASE(JUMP_UNLESS_EQUAL) {  // `if (a == b)`: EQUAL; POP_JUMP_IF_FALSE
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        JUMP_FORWARD_IF(!VALUES_EQUAL(a, b), offset);
      }
      CASE(JUMP_UNLESS_NOT_EQUAL) {
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        JUMP_FORWARD_IF(VALUES_EQUAL(a, b), offset);
      }
// `if (x == n)` on a local x and a small int n (GET_LOCAL; SMALL_INT; JUMP_UNLESS_EQUAL),
// each operand read before the test, as the rest of the _LI forms below.
#define JUMP_UNLESS_EQUALITY_LI(opName, jumpIfEqual)                     \
  CASE(opName) {                                                         \
    Value a = slots[ip[0]];                                              \
    Value b = Value::smallInt(static_cast<std::int16_t>(ip[1] | (ip[2] << 8))); \
    std::uint16_t offset = static_cast<std::uint16_t>(ip[3] | (ip[4] << 8)); \
    ip += 5;                                                             \
    JUMP_FORWARD_IF(VALUES_EQUAL(a, b) == (jumpIfEqual), offset);        \
  }
      JUMP_UNLESS_EQUALITY_LI(JUMP_UNLESS_EQUAL_LI, false)
      JUMP_UNLESS_EQUALITY_LI(JUMP_UNLESS_NOT_EQUAL_LI, true)
#undef JUMP_UNLESS_EQUALITY_LI
      CASE(LOOP_IF_EQUAL) {  // an inverted while's `a == b`: EQUAL then LOOP_IF_TRUE
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        if (VALUES_EQUAL(a, b)) BACK_EDGE(offset);
        DISPATCH();
      }
      CASE(LOOP_IF_NOT_EQUAL) {
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        if (!VALUES_EQUAL(a, b)) BACK_EDGE(offset);
        DISPATCH();
      }
#undef VALUES_EQUAL

// `a == nil` and `a != nil` tested by a jump: nil equals only nil (VALUES_EQUAL), so the
// test is of a's bits. The operand is popped, or a local's (_L: GET_LOCAL a before it).
#define NIL_TESTS(jumpName, loopName, jumpIfNil)                                   \
  CASE(jumpName) {                                                                 \
    std::uint16_t offset = READ_U16();                                             \
    JUMP_FORWARD_IF((--sp)->isNil() == (jumpIfNil), offset);                       \
  }                                                                                \
  CASE(jumpName##_L) {                                                             \
    Value a = slots[ip[0]];                                                        \
    std::uint16_t offset = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));       \
    ip += 3;                                                                       \
    JUMP_FORWARD_IF(a.isNil() == (jumpIfNil), offset);                             \
  }                                                                                \
  CASE(loopName) {                                                                 \
    std::uint16_t offset = READ_U16();                                             \
    if ((--sp)->isNil() == (jumpIfNil)) BACK_EDGE(offset);                         \
    DISPATCH();                                                                    \
  }                                                                                \
  CASE(loopName##_L) {                                                             \
    Value a = slots[ip[0]];                                                        \
    std::uint16_t offset = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));       \
    ip += 3;                                                                       \
    if (a.isNil() == (jumpIfNil)) BACK_EDGE(offset);                               \
    DISPATCH();                                                                    \
  }
      NIL_TESTS(JUMP_IF_NIL, LOOP_IF_NIL, true)
      NIL_TESTS(JUMP_UNLESS_NIL, LOOP_UNLESS_NIL, false)
#undef NIL_TESTS

// Inline ints first, then two floats, inline; the rest (boxed ints, mixed int/float,
// strings, the type error) in compareSlow. COMPARE pushes the result.
#define COMPARE_FAST(a, b, op, slowOp)                                                    \
  (Value::bothSmallInts(a, b) ? (a).smallIntShifted() op (b).smallIntShifted()            \
   : (a).isFloat() && (b).isFloat()     ? (a).asFloat() op (b).asFloat() /* false with NaN */ \
                                        : (SYNC(), compareSlow(Op::slowOp, a, b)))
#define COMPARE(opName, op)                       \
  CASE(opName) {                                  \
    Value b = sp[-1], a = sp[-2];                 \
    storeBool(sp - 2, COMPARE_FAST(a, b, op, opName)); \
    --sp;                                         \
    DISPATCH();                                   \
  }
      COMPARE(LESS, <)
      COMPARE(LESS_EQUAL, <=)
      COMPARE(GREATER, >)
      COMPARE(GREATER_EQUAL, >=)
#undef COMPARE
// The compare-and-jump forms: each path (two inline ints, two floats, compareSlow) has
// its own jump and dispatch (`act`, which reads `holds`) and steps ip past the `length`
// operand bytes itself: one bool made on two paths and tested again after them, and ip
// stepped ahead for the slow path's SYNC, cost instructions on the fast ones. `pop` pops
// what the unfused test popped; on the slow path after compareSlow, the operands staying
// roots while it runs.
#define COMPARE_PATHS(a, b, op, compareName, length, pop, act)                              \
  if (Value::bothSmallInts(a, b)) {                                                          \
    ip += (length);                                                                          \
    pop;                                                                                     \
    bool holds = (a).smallIntShifted() op (b).smallIntShifted();                             \
    act                                                                                      \
  }                                                                                          \
  if (std::uint64_t fa_, fb_; (a).floatBits(fa_) && (b).floatBits(fb_)) {                    \
    ip += (length);                                                                          \
    pop;                                                                                     \
    bool holds = std::bit_cast<double>(fa_) op std::bit_cast<double>(fb_); /* false with NaN */ \
    act                                                                                      \
  }                                                                                          \
  ip += (length);                                                                            \
  SYNC();                                                                                    \
  bool holds = compareSlow(Op::compareName, a, b);                                           \
  pop;                                                                                       \
  act
#define JUMP_UNLESS_HOLDS JUMP_FORWARD_IF(!holds, offset);
#define LOOP_IF_HOLDS     \
  if (holds) BACK_EDGE(offset); \
  DISPATCH();
// LOOP_IF_COMPARE is an inverted while's bottom test fused with its LOOP_IF_TRUE;
// JUMP_UNLESS_COMPARE a condition's comparison fused with its jump when false (`if (a < b)`).
#define LOOP_IF_COMPARE(opName, op, compareOp)                                 \
  CASE(opName) {                                                               \
    std::uint16_t offset = static_cast<std::uint16_t>(ip[0] | (ip[1] << 8));  \
    Value b = sp[-1], a = sp[-2];                                              \
    COMPARE_PATHS(a, b, op, compareOp, 2, sp -= 2, LOOP_IF_HOLDS)              \
  }
      LOOP_IF_COMPARE(LOOP_IF_LESS, <, LESS)
      LOOP_IF_COMPARE(LOOP_IF_LESS_EQUAL, <=, LESS_EQUAL)
      LOOP_IF_COMPARE(LOOP_IF_GREATER, >, GREATER)
      LOOP_IF_COMPARE(LOOP_IF_GREATER_EQUAL, >=, GREATER_EQUAL)
#undef LOOP_IF_COMPARE
#define JUMP_UNLESS_COMPARE(opName, op, compareOp)                             \
  CASE(opName) {                                                               \
    std::uint16_t offset = static_cast<std::uint16_t>(ip[0] | (ip[1] << 8));  \
    Value b = sp[-1], a = sp[-2];                                              \
    COMPARE_PATHS(a, b, op, compareOp, 2, sp -= 2, JUMP_UNLESS_HOLDS)          \
  }
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_LESS, <, LESS)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_LESS_EQUAL, <=, LESS_EQUAL)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_GREATER, >, GREATER)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_GREATER_EQUAL, >=, GREATER_EQUAL)
#undef JUMP_UNLESS_COMPARE
// The same tests with their operands in the instruction: two locals (_LL: GET_LOCAL2 a b
// before the test) or a local and a small int (_LI: GET_LOCAL a; SMALL_INT n). Every
// operand is read before the compare, so an error names the line the unfused jump did.
#define LL_OPERANDS                                                         \
  Value a = slots[ip[0]], b = slots[ip[1]];                                 \
  std::uint16_t offset = static_cast<std::uint16_t>(ip[2] | (ip[3] << 8));
#define LI_OPERANDS                                                         \
  Value a = slots[ip[0]];                                                   \
  auto n = static_cast<std::int16_t>(ip[1] | (ip[2] << 8));                 \
  std::uint16_t offset = static_cast<std::uint16_t>(ip[3] | (ip[4] << 8));
// A small int against n inline; anything else (a float, a boxed int, the type error) as
// COMPARE_PATHS would have sent it, to compareSlow. The _LL forms keep COMPARE_FAST's one
// expression: as COMPARE_PATHS, Sieve's loop tests cost it 1.3% more instructions.
#define COMPARE_LI_PATHS(a, n, op, compareName, act)                       \
  if ((a).isSmallInt()) {                                                  \
    ip += 5;                                                               \
    bool holds = (a).asSmallInt() op (n);                                  \
    act                                                                    \
  }                                                                        \
  ip += 5;                                                                 \
  SYNC();                                                                  \
  bool holds = compareSlow(Op::compareName, a, Value::smallInt(n));        \
  act
#define COMPARE_AND_JUMP_FORMS(compareName, op)                                        \
  CASE(JUMP_UNLESS_##compareName##_LL) {                                               \
    LL_OPERANDS                                                                        \
    ip += 4;                                                                           \
    bool holds = COMPARE_FAST(a, b, op, compareName);                                  \
    JUMP_UNLESS_HOLDS                                                                  \
  }                                                                                    \
  CASE(JUMP_UNLESS_##compareName##_LI) {                                               \
    LI_OPERANDS                                                                        \
    COMPARE_LI_PATHS(a, n, op, compareName, JUMP_UNLESS_HOLDS)                         \
  }                                                                                    \
  CASE(LOOP_IF_##compareName##_LL) {                                                   \
    LL_OPERANDS                                                                        \
    ip += 4;                                                                           \
    bool holds = COMPARE_FAST(a, b, op, compareName);                                  \
    LOOP_IF_HOLDS                                                                      \
  }                                                                                    \
  CASE(LOOP_IF_##compareName##_LI) {                                                   \
    LI_OPERANDS                                                                        \
    COMPARE_LI_PATHS(a, n, op, compareName, LOOP_IF_HOLDS)                             \
  }
      COMPARE_AND_JUMP_FORMS(LESS, <)
      COMPARE_AND_JUMP_FORMS(LESS_EQUAL, <=)
      COMPARE_AND_JUMP_FORMS(GREATER, >)
      COMPARE_AND_JUMP_FORMS(GREATER_EQUAL, >=)
#undef COMPARE_AND_JUMP_FORMS
// A value against a constant (`zrzr + zizi > 4.0`: CONSTANT before the test), popped.
// A site's constant keeps its type, so its test is always predicted: against a float
// constant, a float operand is tested once, before the two ints COMPARE_PATHS tests first.
// The body of both forms; THEN jumps (JUMP_UNLESS_HOLDS or LOOP_IF_HOLDS) on `holds`.
#define COMPARE_CONSTANT_BODY(compareName, op, THEN)                                    \
  Value b = constants[ip[0] | (ip[1] << 8)];                                            \
  std::uint16_t offset = static_cast<std::uint16_t>(ip[2] | (ip[3] << 8));              \
  Value a = sp[-1];                                                                     \
  if (std::uint64_t fa_, fb_; b.floatBits(fb_) && a.floatBits(fa_)) {                  \
    ip += 4;                                                                            \
    --sp;                                                                               \
    bool holds = std::bit_cast<double>(fa_) op std::bit_cast<double>(fb_);              \
    THEN                                                                                \
  }                                                                                     \
  COMPARE_PATHS(a, b, op, compareName, 4, --sp, THEN)
#define COMPARE_CONSTANT_AND_JUMP_FORMS(compareName, op)                                                    \
  CASE(JUMP_UNLESS_##compareName##_K) { COMPARE_CONSTANT_BODY(compareName, op, JUMP_UNLESS_HOLDS) }         \
  CASE(LOOP_IF_##compareName##_K) { COMPARE_CONSTANT_BODY(compareName, op, LOOP_IF_HOLDS) }
      COMPARE_CONSTANT_AND_JUMP_FORMS(LESS, <)
      COMPARE_CONSTANT_AND_JUMP_FORMS(LESS_EQUAL, <=)
      COMPARE_CONSTANT_AND_JUMP_FORMS(GREATER, >)
      COMPARE_CONSTANT_AND_JUMP_FORMS(GREATER_EQUAL, >=)
#undef COMPARE_CONSTANT_AND_JUMP_FORMS
#undef COMPARE_CONSTANT_BODY
#undef COMPARE_LI_PATHS
#undef LI_OPERANDS
#undef LL_OPERANDS
#undef LOOP_IF_HOLDS
#undef JUMP_UNLESS_HOLDS
#undef COMPARE_PATHS
#undef COMPARE_FAST

// 64-bit two's complement: + - * wrap (LANGUAGE.md), computed on unsigned.
#define WRAP(x, op, y) static_cast<std::int64_t>(static_cast<std::uint64_t>(x) op static_cast<std::uint64_t>(y))

// `a op b` into dest (a stack or local slot, so a root when the slow path collects):
// inline floats and ints here, the rest (boxed ints, mixed int/float, `+` on strings,
// the type errors) through arithmeticSlow. Two floats are tested first for every operator
// (issue 44; first only for `*`): an int fails that test at its first compare, and with
// the local operands fused into the instructions float code (NBody -2.2%, Mandelbrot -3.7%
// in instructions) gains more than int code loses (Sieve +1.3%, fib +0.8%).
// Each path steps ip past the operands (`length` bytes: in every path, so that gcc does not
// compute ip's new value ahead for the slow path's SYNC), ends with `then` (what the
// instruction does after the store: `--sp;` or nothing) and dispatches: sharing one
// dispatch, the float path (out of line) jumped back to it. The float path dispatches
// through floatChain (below), which first runs the float + - * that follow, if any.
#define ARITHMETIC_INTO(dest, a, b, op, opName, length, then)          \
  if (std::uint64_t fa_, fb_; (a).floatBits(fa_) && (b).floatBits(fb_)) { \
    chainAt = (dest);                                                  \
    chainValue = std::bit_cast<double>(fa_) op std::bit_cast<double>(fb_); \
    storeFloat(chainAt, chainValue);                                   \
    ip += (length);                                                    \
    then goto floatChain;                                              \
  } else if ((a).isSmallInt() && (b).isSmallInt()) {                   \
    ip += (length);                                                    \
    STORE_INT(dest, WRAP((a).asSmallInt(), op, (b).asSmallInt()));     \
    then DISPATCH();                                                   \
  } else [[unlikely]] {                                                \
    ip += (length);                                                    \
    SYNC();                                                            \
    *(dest) = arithmeticSlow(Op::opName, a, b);                        \
    space_->collectBoxesIfDue();                                       \
    then DISPATCH();                                                   \
  }
// `a op n` into dest for the small int literal n (SMALL_INT n; ADD or SUBTRACT, and
// `x = x + n;`, fused by the compiler): a float stays a float, as unfused. Each path
// steps ip past the `length` operand bytes and dispatches, as ARITHMETIC_INTO's do.
#define SMALL_INT_INTO(dest, a, n, op, opName, length)                             \
  if ((a).isSmallInt()) {                                                          \
    ip += (length);                                                                \
    STORE_INT(dest, (a).asSmallInt() op std::int64_t{n}); /* 48 bits op 16: no overflow */ \
    DISPATCH();                                                                    \
  } else if ((a).isFloat()) {                                                      \
    ip += (length);                                                                \
    storeFloat(dest, (a).asFloat() op static_cast<double>(n));                     \
    DISPATCH();                                                                    \
  } else [[unlikely]] {                                                            \
    ip += (length);                                                                \
    SYNC();                                                                        \
    *(dest) = arithmeticSlow(Op::opName, a, Value::smallInt(n));                   \
    space_->collectBoxesIfDue();                                                   \
    DISPATCH();                                                                    \
  }
#define SMALL_INT_ARITHMETIC(opName, op, genericOp)   \
  CASE(opName) {                                      \
    Value a = sp[-1];                                 \
    auto n = static_cast<std::int16_t>(ip[0] | (ip[1] << 8)); \
    SMALL_INT_INTO(sp - 1, a, n, op, genericOp, 2)    \
  }
      SMALL_INT_ARITHMETIC(ADD_SMALL, +, ADD)
      SMALL_INT_ARITHMETIC(SUB_SMALL, -, SUBTRACT)
#undef SMALL_INT_ARITHMETIC
// `x + n`, `x - n` of a local x (`fib(n - 1)`): pushes x, which the result replaces, as
// GET_LOCAL then ADD_SMALL did.
#define LOCAL_SMALL_INT_PUSH(opName, op, genericOp)                           \
  CASE(opName) {                                                              \
    Value a = slots[ip[0]];                                                   \
    auto n = static_cast<std::int16_t>(ip[1] | (ip[2] << 8));                 \
    *sp++ = a;                                                                \
    SMALL_INT_INTO(sp - 1, a, n, op, genericOp, 3)                            \
  }
      LOCAL_SMALL_INT_PUSH(ADD_LS, +, ADD)
      LOCAL_SMALL_INT_PUSH(SUB_LS, -, SUBTRACT)
#undef LOCAL_SMALL_INT_PUSH
// `x = x + n;` and `x = x - n;`: what GET_LOCAL, ADD_SMALL or SUB_SMALL, SET_LOCAL_POP would do.
#define LOCAL_SMALL_INT_ARITHMETIC(opName, op, genericOp) \
  CASE(opName) {                                          \
    Value* local = &slots[ip[0]];                         \
    auto n = static_cast<std::int16_t>(ip[1] | (ip[2] << 8)); \
    Value a = *local;                                     \
    SMALL_INT_INTO(local, a, n, op, genericOp, 3)         \
  }
      LOCAL_SMALL_INT_ARITHMETIC(ADD_LOCAL_SMALL, +, ADD)
      LOCAL_SMALL_INT_ARITHMETIC(SUB_LOCAL_SMALL, -, SUBTRACT)
#undef LOCAL_SMALL_INT_ARITHMETIC
#undef SMALL_INT_INTO
// `a op b` on the stack, `top op local` and `local op local` (the compiler fuses the
// reads into the op). op_LL first pushes nil, so its result slot is a root.
#define ARITHMETIC(opName, op)                                         \
  CASE(opName) {                                                       \
    Value b = sp[-1], a = sp[-2];                                      \
    ARITHMETIC_INTO(sp - 2, a, b, op, opName, 0, --sp;)                \
  }
#define ARITHMETIC_LOCAL(opName, op, genericOp)                        \
  CASE(opName) {                                                       \
    Value b = slots[ip[0]], a = sp[-1];                                \
    ARITHMETIC_INTO(sp - 1, a, b, op, genericOp, 1, )                  \
  }
#define ARITHMETIC_LOCALS(opName, op, genericOp)                       \
  CASE(opName) {                                                       \
    Value a = slots[ip[0]], b = slots[ip[1]];                          \
    *sp++ = Value::nil();                                              \
    ARITHMETIC_INTO(sp - 1, a, b, op, genericOp, 2, )                  \
  }
      ARITHMETIC(ADD, +)
      ARITHMETIC(SUBTRACT, -)
      ARITHMETIC(MULTIPLY, *)
      ARITHMETIC_LOCAL(ADD_L, +, ADD)
      ARITHMETIC_LOCAL(SUB_L, -, SUBTRACT)
      ARITHMETIC_LOCAL(MUL_L, *, MULTIPLY)
      ARITHMETIC_LOCALS(ADD_LL, +, ADD)
      ARITHMETIC_LOCALS(SUB_LL, -, SUBTRACT)
      ARITHMETIC_LOCALS(MUL_LL, *, MULTIPLY)
      CASE(MUL_KL) {  // `2.0 * x`: CONSTANT then MUL_L; the result's slot holds the constant, as unfused
        Value a = constants[ip[0] | (ip[1] << 8)], b = slots[ip[2]];
        *sp++ = a;
        ARITHMETIC_INTO(sp - 1, a, b, *, MULTIPLY, 3, )
      }
#define ARITHMETIC_LOCALS_TO(opName, op, genericOp)                    \
  CASE(opName) {                                                       \
    Value a = slots[ip[0]], b = slots[ip[1]];                          \
    Value* dest = &slots[ip[2]];                                       \
    ARITHMETIC_INTO(dest, a, b, op, genericOp, 3, )                    \
  }
      ARITHMETIC_LOCALS_TO(ADD_LL_TO, +, ADD)
      ARITHMETIC_LOCALS_TO(SUB_LL_TO, -, SUBTRACT)
      ARITHMETIC_LOCALS_TO(MUL_LL_TO, *, MULTIPLY)
#undef ARITHMETIC_LOCALS_TO
#define ARITHMETIC_LOCAL_TO(opName, op, genericOp)                     \
  CASE(opName) {                                                       \
    Value a = sp[-1], b = slots[ip[0]]; /* a stays a root until the store */ \
    Value* dest = &slots[ip[1]];                                       \
    ARITHMETIC_INTO(dest, a, b, op, genericOp, 2, --sp;)               \
  }
      ARITHMETIC_LOCAL_TO(ADD_L_TO, +, ADD)
      ARITHMETIC_LOCAL_TO(SUB_L_TO, -, SUBTRACT)
      ARITHMETIC_LOCAL_TO(MUL_L_TO, *, MULTIPLY)
#undef ARITHMETIC_LOCAL_TO
#undef ARITHMETIC_LOCALS
#undef ARITHMETIC_LOCAL
#undef ARITHMETIC
#undef ARITHMETIC_INTO
// Float chains. A float arithmetic fast path has stored its result at chainAt; while the
// next instruction is float arithmetic too (+ - * in any of ARITHMETIC_INTO's forms), it
// runs here, and an operand read from the slot one of the last two steps stored is taken
// from the register that step left it in. Each step stores its result as the unfused
// instruction would and counts as executed; anything else (an operand that is not a
// float, any other instruction) leaves for the dispatch with nothing of it done. A
// float loop's dependent operations then pass each other registers, not memory: a step
// through a slot costs ~14 cycles where the multiply alone is 3 (store -> load ~9, the
// offset encoding's sub, add and two movq ~2; bench/float_step_latency.cpp, and
// docs/BENCHMARKS.md "Float chains").
// The operand tests are branches (the empty volatile asm keeps gcc from making a
// select of them, whose value would wait for the slot's load after all).
#if defined(__x86_64__) && defined(__GNUC__)
#define CHAIN_TAKE(out, v) asm volatile("" : "=x"(out) : "0"(v))
#define CHAIN_HOLD(a, b) asm("" : "+x"(a), "+x"(b))  // gcc kept v1 as bits in a general register
#else
#define CHAIN_TAKE(out, v) out = (v)
#define CHAIN_HOLD(a, b)
#endif
#define CHAIN_OPERAND(p, out)                                               \
  if (const Value* p_ = (p); p_ == at1) {                                   \
    CHAIN_TAKE(out, v1);                                                    \
  } else if (p_ == at0) {                                                   \
    CHAIN_TAKE(out, v0);                                                    \
  } else if (std::uint64_t raw_; p_->floatBits(raw_)) {                     \
    out = std::bit_cast<double>(raw_);                                      \
  } else {                                                                  \
    goto floatChainEnd;                                                     \
  }
#define CHAIN_STEP(pa, pb, dest, op, length, then)                          \
  {                                                                         \
    double x_, y_;                                                          \
    CHAIN_OPERAND(pa, x_)                                                   \
    CHAIN_OPERAND(pb, y_)                                                   \
    Value* d_ = (dest);                                                     \
    double r_ = x_ op y_;                                                   \
    storeFloat(d_, r_);                                                     \
    ip += (length);                                                         \
    then;                                                                   \
    ++executed;                                                             \
    at0 = at1, v0 = v1, at1 = d_, v1 = r_;                                  \
    continue;                                                               \
  }
#define CHAIN_FORMS(opName, op, localOp, localsOp, localToOp, localsToOp)                     \
  case Op::opName: CHAIN_STEP(sp - 2, sp - 1, sp - 2, op, 1, --sp)                            \
  case Op::localOp: CHAIN_STEP(sp - 1, &slots[ip[1]], sp - 1, op, 2, )                        \
  case Op::localsOp: CHAIN_STEP(&slots[ip[1]], &slots[ip[2]], sp, op, 3, ++sp)                \
  case Op::localToOp: CHAIN_STEP(sp - 1, &slots[ip[1]], &slots[ip[2]], op, 3, --sp)           \
  case Op::localsToOp: CHAIN_STEP(&slots[ip[1]], &slots[ip[2]], &slots[ip[3]], op, 4, )
      floatChain: {
        const Value *at1 = chainAt, *at0 = nullptr;
        double v1 = chainValue, v0 = 0;
        for (;;) {
          CHAIN_HOLD(v1, v0);
          switch (static_cast<Op>(*ip)) {
            CHAIN_FORMS(ADD, +, ADD_L, ADD_LL, ADD_L_TO, ADD_LL_TO)
            CHAIN_FORMS(SUBTRACT, -, SUB_L, SUB_LL, SUB_L_TO, SUB_LL_TO)
            CHAIN_FORMS(MULTIPLY, *, MUL_L, MUL_LL, MUL_L_TO, MUL_LL_TO)
            case Op::MUL_KL: CHAIN_STEP(&constants[ip[1] | (ip[2] << 8)], &slots[ip[3]], sp, *, 4, ++sp)
            default: goto floatChainEnd;
          }
        }
      floatChainEnd:
        DISPATCH();
      }
#undef CHAIN_FORMS
#undef CHAIN_STEP
#undef CHAIN_OPERAND
#undef CHAIN_HOLD
#undef CHAIN_TAKE
      CASE(DIVIDE) {
        Value b = sp[-1], a = sp[-2];
        if (a.isInt() && b.isInt()) {
          if (b.asInt() == 0) {
            SYNC();
            throwError("division by zero");
          }
          // INT64_MIN / -1 overflows in C++; in Kith it wraps to INT64_MIN.
          STORE_INT(sp - 2, b.asInt() == -1 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.asInt()))
                                                 : a.asInt() / b.asInt());
        } else if (a.isNumber() && b.isNumber()) {
          storeFloat(sp - 2, a.toDouble() / b.toDouble());
        } else {
          SYNC();
          binaryTypeError("/", a, b);
        }
        --sp;
        DISPATCH();
      }
      CASE(MODULO) {
        Value b = sp[-1], a = sp[-2];
        if (a.isInt() && b.isInt()) {
          if (b.asInt() == 0) {
            SYNC();
            throwError("division by zero");
          }
          STORE_INT(sp - 2, b.asInt() == -1 ? 0 : a.asInt() % b.asInt());
        } else if (a.isNumber() && b.isNumber()) {
          storeFloat(sp - 2, std::fmod(a.toDouble(), b.toDouble()));
        } else {
          SYNC();
          binaryTypeError("%", a, b);
        }
        --sp;
        DISPATCH();
      }
#define BITWISE(opName, symbolText, expr)                 \
  CASE(opName) {                                          \
    Value b = sp[-1], a = sp[-2];                         \
    if (!a.isInt() || !b.isInt()) {                       \
      SYNC();                                             \
      binaryTypeError(symbolText, a, b);                  \
    }                                                     \
    std::uint64_t x = static_cast<std::uint64_t>(a.asInt()); \
    std::uint64_t y = static_cast<std::uint64_t>(b.asInt()); \
    (void)x; (void)y;                                     \
    STORE_INT(sp - 2, static_cast<std::int64_t>(expr));  \
    --sp;                                                 \
    DISPATCH();                                           \
  }
      BITWISE(BIT_AND, "&", x & y)
      BITWISE(BIT_OR, "|", x | y)
      BITWISE(BIT_XOR, "^", x ^ y)
      BITWISE(SHIFT_LEFT, "<<", x << (y & 63))
      BITWISE(SHIFT_RIGHT, ">>", a.asInt() >> (y & 63))
      BITWISE(SHIFT_RIGHT_LOGICAL, ">>>", x >> (y & 63))
#undef BITWISE
      CASE(NEGATE) {
        Value a = sp[-1];
        if (a.isInt()) STORE_INT(sp - 1, static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.asInt())));
        else if (a.isFloat()) storeFloat(sp - 1, -a.asFloat());
        else {
          SYNC();
          throwError("unsupported operand type for unary -: " + typeName(a));
        }
        DISPATCH();
      }
      CASE(NOT) { storeBool(sp - 1, sp[-1].isFalsy()); DISPATCH(); }
      CASE(BIT_NOT) {
        if (!sp[-1].isInt()) {
          SYNC();
          throwError("unsupported operand type for ~: " + typeName(sp[-1]));
        }
        STORE_INT(sp - 1, ~sp[-1].asInt());
        DISPATCH();
      }
      CASE(JUMP) {
        std::uint16_t offset = READ_U16();
        ip += offset;
        DISPATCH();
      }
      CASE(JUMP_IF_FALSE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF(sp[-1].isFalsy(), offset);
      }
      CASE(JUMP_IF_TRUE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF(!sp[-1].isFalsy(), offset);
      }
      CASE(POP_JUMP_IF_FALSE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF((--sp)->isFalsy(), offset);
      }
      CASE(LOOP) {
        std::uint16_t offset = READ_U16();
        BACK_EDGE(offset);
        DISPATCH();
      }
      CASE(LOOP_IF_TRUE) {  // the bottom test of an inverted while: a back-edge when it holds
        std::uint16_t offset = READ_U16();
        if (!(*--sp).isFalsy()) BACK_EDGE(offset);
        DISPATCH();
      }
      CASE(JUMP_IF_FALSE_L) {  // `if (x)`, `while (x and ...)` on a local x: GET_LOCAL; POP_JUMP_IF_FALSE
        Value a = slots[ip[0]];
        std::uint16_t offset = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));
        ip += 3;
        JUMP_FORWARD_IF(a.isFalsy(), offset);
      }
      CASE(LOOP_IF_TRUE_L) {  // GET_LOCAL; LOOP_IF_TRUE
        Value a = slots[ip[0]];
        std::uint16_t offset = static_cast<std::uint16_t>(ip[1] | (ip[2] << 8));
        ip += 3;
        if (!a.isFalsy()) BACK_EDGE(offset);
        DISPATCH();
      }
// The common call inline: a script function with the right arity and room on the
// stacks gets its frame here and runs on; anything else falls through to the caller's
// general path (callValue, invoke).
#define ENTER_SCRIPT_FUNCTION(closureHandle, functionProto)                                                          \
  do {                                                                                                               \
    FunctionProto* proto = (functionProto);                                                                          \
    Value* newSlots = sp - argc - 1;                                                                                 \
    if (argc == proto->arity && stack_.frameCount < stack_.maxDepth && newSlots + proto->maxStack <= stack_.limit) { \
      frame->ip = ip;                                                                                                \
      ++frame; /* the frames are one block, and frame is its top */                                                 \
      ++stack_.frameCount;                                                                                           \
      *frame = CallFrame{(closureHandle), proto, proto->code.data(), newSlots};                                      \
      ip = frame->ip;                                                                                                \
      slots = newSlots;                                                                                              \
      constants = proto->constants.data();                                                                           \
      caches = proto->caches.data();                                                                                 \
      DISPATCH();                                                                                                    \
    }                                                                                                                \
  } while (0)
      CASE(CALL) {
        int argc = READ_BYTE();
        ip += 2;  // the callee's name: read only when it cannot be called
        Value callee = sp[-1 - argc];
        if (callee.isObject() && callee.asHandle()->klass->kind == ObjectKind::closure) {
          ENTER_SCRIPT_FUNCTION(callee.asHandle(), objectAt<ClosureObject>(callee)->proto);
        }
        SYNC();
        if (callValue(callee, argc, static_cast<std::uint16_t>(ip[-2] | (ip[-1] << 8)))) LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(INVOKE) {
        std::uint16_t sym = READ_U16();
        int argc = READ_BYTE();
        InlineCache* cache = &caches[READ_U16()];
        Value receiver = sp[-1 - argc];
        if (receiver.isObject() && receiver.asHandle()->klass == cache->klass) {
          if (cache->slot == InlineCache::kScriptMethod) {
            Handle* closure = cache->method.asHandle();
            ENTER_SCRIPT_FUNCTION(closure, objectAt<ClosureObject>(closure)->proto);
          } else if (cache->slot == InlineCache::kNativeMethod) {
            SYNC();
            callNative(cache->method.asNative(), argc);
            sp = stack_.top;
            DISPATCH();
          }
        } else if (receiver.sameAs(Value::klassValue(cache->klass)) && cache->slot == InlineCache::kNativeStatic) {
          SYNC();  // Math.sqrt(x): the class's slot takes the result, as callValue leaves it
          callNative(cache->method.asNative(), argc);
          sp = stack_.top;
          DISPATCH();
        }
        SYNC();
        if (invoke(sym, argc, cache)) LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(SUPER_INVOKE) {
        std::uint16_t classId = READ_U16();
        std::uint16_t sym = READ_U16();
        int argc = READ_BYTE();
        SYNC();
        if (invokeFromClass(methods_.classById(classId)->superclass, sym, argc)) LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(NEW) {
        int argc = READ_BYTE();
        SYNC();
        if (newObjectInstance(argc)) LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(NEW_NEAR) {  // obj.f = new C(...): build the instance near obj, below the class
        int argc = READ_BYTE();
        SYNC();
        Value owner = stack_.top[-2 - argc];
        if (newObjectInstance(argc, owner.isObject() ? owner.asHandle() : nullptr)) LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(CLOSURE) {
        FunctionProto* proto = frame->proto->functions[READ_U16()];
        SYNC();
        std::size_t count = static_cast<std::size_t>(proto->upvalueCount);
        Handle* closure = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject) + count * sizeof(Value));
        auto* c = objectAt<ClosureObject>(closure);
        c->proto = proto;
        c->upvalueCount = count;
        for (std::size_t i = 0; i < count; ++i) c->upvalues()[i] = Value::nil();
        *sp++ = Value::object(closure);  // on the stack (a root) while its upvalues are captured
        stack_.top = sp;
        for (std::size_t i = 0; i < count; ++i) {
          bool isLocal = READ_BYTE() != 0;
          std::uint8_t index = READ_BYTE();
          Handle* up = isLocal ? captureUpvalue(slots + index, closure)
                               : objectAt<ClosureObject>(frame->closure)->upvalues()[index].asHandle();
          objectAt<ClosureObject>(closure)->upvalues()[i] = Value::object(up);  // re-read: capture allocates
        }
        DISPATCH();
      }
// A return; the fused forms push their result first (NIL; RETURN and GET_LOCAL; RETURN),
// so the step limit sees the stack as the unfused RETURN did.
#define RETURN_OP(opName, pushResult)                                                          \
  CASE(opName) {                                                                               \
    pushResult;                                                                                \
    CHECK_STEP_LIMIT();                                                                        \
    Value result = *--sp;                                                                      \
    if (!stack_.openUpvalues.empty()) stack_.closeUpvalues(slots);                             \
    /* ExecutionStack::dropHandlersFrom written out: through it gcc orders the loads so */    \
    /* that this loop costs more (16M instructions more on richards). */                      \
    while (!stack_.handlers.empty() && stack_.handlers.back().frameIndex >= stack_.frameCount - 1) \
      stack_.handlers.pop_back();                                                              \
    --stack_.frameCount;                                                                       \
    if (stack_.frameCount == entryFrame) {                                                     \
      stack_.top = slots;                                                                      \
      addInstructions(executed);                                                               \
      return result;                                                                           \
    }                                                                                          \
    sp = slots;                                                                                \
    *sp++ = result;                                                                            \
    --frame; /* the caller's frame: the one below (LOAD_FRAME without the index) */            \
    ip = frame->ip;                                                                            \
    slots = frame->slots;                                                                      \
    constants = frame->proto->constants.data();                                                \
    caches = frame->proto->caches.data();                                                      \
    DISPATCH();                                                                                \
  }
      RETURN_OP(RETURN, (void)0)
      RETURN_OP(RETURN_NIL, *sp++ = Value::nil())
      RETURN_OP(RETURN_LOCAL, *sp++ = slots[READ_BYTE()])
#undef RETURN_OP
      CASE(CLASS) {
        std::uint16_t classId = READ_U16();
        bool hasSuper = READ_BYTE() != 0;
        SYNC();
        ClassInfo* klass = methods_.classById(classId);
        defineClass(klass, hasSuper ? sp[-1] : Value::nil(), hasSuper);
        if (hasSuper) sp[-1] = Value::klassValue(klass);
        else *sp++ = Value::klassValue(klass);
        DISPATCH();
      }
      CASE(METHOD) {
        int sym = READ_U16();
        ClassInfo* klass = sp[-2].asClass();
        klass->methods[sym] = sp[-1];
        klass->ownMethods.push_back(sp[-1]);
        if (sym == methods_.initSymbol()) klass->initializer = sp[-1];
        --sp;
        DISPATCH();
      }
      CASE(ARRAY) {
        std::size_t count = READ_U16();
        SYNC();
        Value array = newArray(count, Value::nil());  // the elements stay on the stack meanwhile
        if (count) std::memcpy(static_cast<void*>(objectAt<ArrayObject>(array)->elements()), sp - count, count * sizeof(Value));
        sp -= count;
        *sp++ = array;
        DISPATCH();
      }
      CASE(FOR_IN) {
        std::uint8_t slot = READ_BYTE();
        std::uint16_t offset = READ_U16();
        Value array = slots[slot];
        if (!isKind(array, ObjectKind::array)) {
          SYNC();
          throwError("for-in needs an array, not " + typeName(array));
        }
        std::int64_t index = slots[slot + 1].asInt();
        auto* a = objectAt<ArrayObject>(array);
        if (static_cast<std::uint64_t>(index) < a->length) {
          *sp++ = a->elements()[index];
          storeSmallInt(&slots[slot + 1], index + 1);  // an index: far below 2^47
        } else {
          ip += offset;
        }
        DISPATCH();
      }
      CASE(IMPORT) {
        SYNC();  // the path stays on the stack (rooted) while the module compiles
        FunctionProto* module;
        {  // scoped: clang rejects a computed goto out of a std::string's scope
          std::string path(stringView(sp[-1]));
          module = modules_.load(*this, path, frame->proto->file);
        }
        if (!module) {
          sp[-1] = Value::nil();
          DISPATCH();
        }
        Handle* closure = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject));
        auto* c = objectAt<ClosureObject>(closure);
        c->proto = module;
        c->upvalueCount = 0;
        sp[-1] = Value::object(closure);
        frame->ip = ip;
        callClosure(closure, 0);  // the module's frame; its RETURN leaves nil in the path's slot
        modules_.started(stack_.frameCount - 1);
        LOAD_FRAME();
        sp = stack_.top;
        DISPATCH();
      }
      CASE(THROW) {
        Value thrown = *--sp;
        SYNC();
        throwValue(thrown);
      }
      CASE(TRY) {
        std::uint16_t offset = READ_U16();
        stack_.handlers.push_back(TryHandler{stack_.frameCount - 1, sp, ip + offset});
        DISPATCH();
      }
      CASE(END_TRY) {
        stack_.handlers.pop_back();
        DISPATCH();
      }
#if !defined(__GNUC__)
        }
      }
#endif
    } catch (const KithThrow&) {
      addInstructions(executed);
      executed = 0;
      frame->ip = ip;  // the top frame is this invocation's: inner ones have unwound
      // Thrown from this handler, it would pass this invocation's catch (...) by.
      if (instructions_ > stepBudget_ || interruptPending_.load(std::memory_order_relaxed)) stepLimitReached(entryFrame);
      if (!exceptions_.traceCaptured()) captureTrace();
      if (!stack_.handlers.empty() && stack_.handlers.back().frameIndex >= entryFrame) {
        TryHandler handler = stack_.handlers.back();
        stack_.handlers.pop_back();
        stack_.closeUpvalues(handler.stackTop);
        if (modules_.running()) modules_.unwound(stack_.frames, handler.frameIndex + 1, stack_.frameCount);
        stack_.frameCount = handler.frameIndex + 1;
        sp = handler.stackTop;
        *sp++ = exceptions_.pending();
        stack_.top = sp;
        exceptions_.clear();
        LOAD_FRAME();
        ip = handler.catchIp;
        continue;
      }
      unwindTo(entryFrame);
      throw;
    } catch (...) {
      // ExitRequest, Interrupted, an import that did not compile: this invocation's
      // frames go as a Kith exception's would, so a session that goes on (kith repl)
      // finds the stack as it was.
      addInstructions(executed);
      unwindTo(entryFrame);
      throw;
    }
  }
#undef LOAD_FRAME
#undef SYNC
#undef BACK_EDGE
#undef ENTER_SCRIPT_FUNCTION
#undef JUMP_FORWARD_IF
#undef STORE_INT
#undef WRAP
#undef READ_BYTE
#undef READ_U16
#undef CHECK_STEP_LIMIT
#undef DISPATCH
#undef CASE
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace kith::vm
