// The bytecode. One byte per opcode, operands little-endian after it: u8 = 1 byte,
// u16 (and s16) = 2 bytes. Every opcode is described once, in KITH_OPCODES, as Lua
// describes its own in luaP_opmodes (lopcodes.c): the enum, the names, the dispatch
// table, the stack depth, the length of an instruction, where a jump keeps its offset,
// where an inline cache is (renewed in copied code) and how the disassembler prints an
// operand all follow from a row. `effect` is the opcode's fixed stack effect (the
// compiler adds the variable part, e.g. call arguments, itself), from which the
// compiler computes each function's maxStack.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace kith::vm {

// What an operand is. Its size is the kind's (operandSize); the disassembler prints it
// by its kind.
enum class Operand : std::uint8_t {
  slot,          // u8 a local's slot
  target,        // u8 the slot of the local an instruction stores to
  upvalue,       // u8 an upvalue of the closure
  argc,          // u8 the number of arguments
  hasSuperclass, // u8 1: the class has a superclass (on the stack)
  iterator,      // u8 the first of a for-in's two hidden slots (the array, the next index)
  values,        // u8 how many values (POP_N)
  smallInt,      // s16 an immediate int
  constant,      // u16 an index into the function's constants
  global,        // u16 a global's slot
  symbol,        // u16 a property or method name (VM::symbol)
  cache,         // u16 an inline cache of the function's own: copied code must get a new one
  classId,       // u16 a class's id
  calleeName,    // u16 the callee's name as a symbol, for error messages; kNoCalleeName: none
  count,         // u16 the number of elements
  closure,       // u16 an index into the function's functions; then (u8 isLocal, u8 index) per upvalue
  forwardJump,   // u16 how far ahead the jump lands, from the instruction's end
  exitJump,      // u16 a forward jump taken when a loop is done
  backwardJump,  // u16 how far back the jump lands, from the instruction's end
};

constexpr int operandSize(Operand kind) { return kind <= Operand::values ? 1 : 2; }
constexpr bool isJump(Operand kind) {
  return kind == Operand::forwardJump || kind == Operand::exitJump || kind == Operand::backwardJump;
}

// An opcode's operands, in order (four at most).
struct OpFormat {
  Operand kinds[4] = {};
  int count = 0;
  constexpr OpFormat() = default;
  constexpr OpFormat(std::initializer_list<Operand> operands) {
    for (Operand kind : operands) kinds[count++] = kind;
  }
  constexpr int bytes() const {
    int total = 0;
    for (int i = 0; i < count; ++i) total += operandSize(kinds[i]);
    return total;
  }
  // Where operand i starts, in bytes after the opcode.
  constexpr int offsetOf(int i) const {
    int at = 1;
    for (int k = 0; k < i; ++k) at += operandSize(kinds[k]);
    return at;
  }
};

//  X(name, operand bytes, stack effect, (operand kinds))
#define KITH_OPCODES(X)                                                                                                     \
  X(CONSTANT, 2, 1, (constant))                                                                                             \
  X(NIL, 0, 1, ())                                                                                                          \
  X(TRUE, 0, 1, ())                                                                                                         \
  X(FALSE, 0, 1, ())                                                                                                        \
  X(SMALL_INT, 2, 1, (smallInt))                                                                                            \
  X(POP, 0, -1, ())                                                                                                         \
  X(POP_N, 1, 0, (values))                          /* n POPs (a block's locals at its end); only fused */                  \
  X(GET_LOCAL, 1, 1, (slot))                                                                                                \
  X(GET_LOCAL2, 2, 2, (slot, slot))                 /* two GET_LOCALs */                                                    \
  X(SET_LOCAL, 1, 0, (slot))                                                                                                \
  X(SET_LOCAL_POP, 1, -1, (slot))                   /* SET_LOCAL then POP (an assignment statement) */                      \
  X(GET_GLOBAL, 2, 1, (global))                                                                                             \
  X(SET_GLOBAL, 2, 0, (global))                                                                                             \
  X(DEFINE_GLOBAL, 2, -1, (global))                                                                                         \
  X(GET_UPVALUE, 1, 1, (upvalue))                                                                                           \
  X(SET_UPVALUE, 1, 0, (upvalue))                                                                                           \
  X(CLOSE_UPVALUE, 0, -1, ())                                                                                               \
  X(GET_PROPERTY, 4, 0, (symbol, cache))                                                                                    \
  X(GET_LOCAL_PROPERTY, 5, 1, (slot, symbol, cache)) /* push local.f (GET_LOCAL; GET_PROPERTY) */                          \
  X(GET_LOCAL_LOCAL_PROPERTY, 6, 2, (slot, slot, symbol, cache)) /* push local a, local b.f (GET_LOCAL2; GET_PROPERTY) */   \
  X(GET_LOCAL_PROPERTY_TO, 6, 0, (slot, symbol, cache, target)) /* local c = local a.f (GET_LOCAL_PROPERTY; SET_LOCAL_POP) */\
  X(SET_PROPERTY, 4, -1, (symbol, cache))           /* obj value -> value */                                                \
  X(SET_PROPERTY_POP, 4, -2, (symbol, cache))       /* SET_PROPERTY then POP (an assignment statement) */                   \
  X(GET_INDEX, 0, -1, ())                                                                                                   \
  X(GET_INDEX_L, 1, 0, (slot))                      /* top[local] (GET_LOCAL; GET_INDEX) */                                 \
  X(GET_INDEX_LL, 2, 1, (slot, slot))               /* push local a[local i] (GET_LOCAL2 a i; GET_INDEX) */                 \
  X(SET_INDEX, 0, -2, ())                           /* obj index value -> value */                                          \
  X(SET_INDEX_POP, 0, -3, ())                       /* SET_INDEX then POP (an assignment statement) */                      \
  X(GET_SUPER, 4, 0, (classId, symbol))             /* this -> bound */                                                     \
  X(EQUAL, 0, -1, ())                                                                                                       \
  X(NOT_EQUAL, 0, -1, ())                                                                                                   \
  X(GREATER, 0, -1, ())                                                                                                     \
  X(GREATER_EQUAL, 0, -1, ())                                                                                               \
  X(LESS, 0, -1, ())                                                                                                        \
  X(LESS_EQUAL, 0, -1, ())                                                                                                  \
  X(ADD, 0, -1, ())                                                                                                         \
  X(SUBTRACT, 0, -1, ())                                                                                                    \
  X(ADD_SMALL, 2, 0, (smallInt))                    /* top + n (SMALL_INT n; ADD) */                                        \
  X(SUB_SMALL, 2, 0, (smallInt))                    /* top - n (SMALL_INT n; SUBTRACT) */                                   \
  X(ADD_LS, 3, 1, (slot, smallInt))                 /* push local + n (GET_LOCAL; ADD_SMALL n) */                           \
  X(SUB_LS, 3, 1, (slot, smallInt))                 /* push local - n (GET_LOCAL; SUB_SMALL n) */                           \
  X(ADD_LOCAL_SMALL, 3, 0, (slot, smallInt))        /* local += n (GET_LOCAL; ADD_SMALL; SET_LOCAL_POP) */                  \
  X(SUB_LOCAL_SMALL, 3, 0, (slot, smallInt))        /* local -= n (GET_LOCAL; SUB_SMALL; SET_LOCAL_POP) */                  \
  X(ADD_L, 1, 0, (slot))                            /* top + local (GET_LOCAL; ADD) */                                      \
  X(SUB_L, 1, 0, (slot))                            /* top - local */                                                       \
  X(MUL_L, 1, 0, (slot))                            /* top * local */                                                       \
  X(ADD_LL, 2, 1, (slot, slot))                     /* push local a + local b (GET_LOCAL2 a b; ADD) */                      \
  X(SUB_LL, 2, 1, (slot, slot))                     /* push a - b */                                                        \
  X(MUL_LL, 2, 1, (slot, slot))                     /* push a * b */                                                        \
  X(MUL_KL, 3, 1, (constant, slot))                 /* push constant * local (CONSTANT; MUL_L) */                           \
  X(ADD_LL_TO, 3, 0, (slot, slot, target))          /* local c = a + b (ADD_LL a b; SET_LOCAL_POP c) */                     \
  X(SUB_LL_TO, 3, 0, (slot, slot, target))          /* local c = a - b */                                                   \
  X(MUL_LL_TO, 3, 0, (slot, slot, target))          /* local c = a * b */                                                   \
  X(ADD_L_TO, 2, -1, (slot, target))                /* pops a; local c = a + b (ADD_L b; SET_LOCAL_POP c) */                \
  X(SUB_L_TO, 2, -1, (slot, target))                /* pops a; local c = a - b */                                           \
  X(MUL_L_TO, 2, -1, (slot, target))                /* pops a; local c = a * b */                                           \
  X(MULTIPLY, 0, -1, ())                                                                                                    \
  X(DIVIDE, 0, -1, ())                                                                                                      \
  X(MODULO, 0, -1, ())                                                                                                      \
  X(BIT_AND, 0, -1, ())                                                                                                     \
  X(BIT_OR, 0, -1, ())                                                                                                      \
  X(BIT_XOR, 0, -1, ())                                                                                                     \
  X(SHIFT_LEFT, 0, -1, ())                                                                                                  \
  X(SHIFT_RIGHT, 0, -1, ())                                                                                                 \
  X(SHIFT_RIGHT_LOGICAL, 0, -1, ())                                                                                         \
  X(NEGATE, 0, 0, ())                                                                                                       \
  X(NOT, 0, 0, ())                                                                                                          \
  X(BIT_NOT, 0, 0, ())                                                                                                      \
  X(JUMP, 2, 0, (forwardJump))                                                                                              \
  X(JUMP_IF_FALSE, 2, 0, (forwardJump))             /* keeps the condition */                                               \
  X(JUMP_IF_TRUE, 2, 0, (forwardJump))              /* keeps the condition */                                               \
  X(POP_JUMP_IF_FALSE, 2, -1, (forwardJump))                                                                                \
  X(JUMP_UNLESS_LESS, 2, -2, (forwardJump))         /* pops a b; jumps unless a < b (LESS; POP_JUMP_IF_FALSE) */            \
  X(JUMP_UNLESS_LESS_EQUAL, 2, -2, (forwardJump))                                                                           \
  X(JUMP_UNLESS_GREATER, 2, -2, (forwardJump))                                                                              \
  X(JUMP_UNLESS_GREATER_EQUAL, 2, -2, (forwardJump))                                                                        \
  X(JUMP_UNLESS_EQUAL, 2, -2, (forwardJump))                                                                                \
  X(JUMP_UNLESS_NOT_EQUAL, 2, -2, (forwardJump))                                                                            \
  X(LOOP, 2, 0, (backwardJump))                                                                                             \
  X(LOOP_IF_TRUE, 2, -1, (backwardJump))            /* pops; jumps back while truthy (an inverted while) */                 \
  X(LOOP_IF_LESS, 2, -2, (backwardJump))            /* LESS then LOOP_IF_TRUE: an inverted while's `a < b` */               \
  X(LOOP_IF_LESS_EQUAL, 2, -2, (backwardJump))                                                                              \
  X(LOOP_IF_GREATER, 2, -2, (backwardJump))                                                                                 \
  X(LOOP_IF_GREATER_EQUAL, 2, -2, (backwardJump))                                                                           \
  X(LOOP_IF_EQUAL, 2, -2, (backwardJump))           /* EQUAL then LOOP_IF_TRUE */                                           \
  X(LOOP_IF_NOT_EQUAL, 2, -2, (backwardJump))                                                                               \
  X(JUMP_UNLESS_NIL, 2, -1, (forwardJump))          /* pops a; jumps unless a is nil (NIL; JUMP_UNLESS_EQUAL) */            \
  X(JUMP_IF_NIL, 2, -1, (forwardJump))              /* pops a; jumps if a is nil (NIL; JUMP_UNLESS_NOT_EQUAL) */            \
  X(LOOP_IF_NIL, 2, -1, (backwardJump))             /* pops a; loops while a is nil (NIL; LOOP_IF_EQUAL) */                 \
  X(LOOP_UNLESS_NIL, 2, -1, (backwardJump))         /* pops a; loops while a is not nil */                                  \
  X(JUMP_UNLESS_NIL_L, 3, 0, (slot, forwardJump))   /* unless local a is nil (GET_LOCAL a; JUMP_UNLESS_NIL) */              \
  X(JUMP_IF_NIL_L, 3, 0, (slot, forwardJump))                                                                               \
  X(LOOP_IF_NIL_L, 3, 0, (slot, backwardJump))                                                                              \
  X(LOOP_UNLESS_NIL_L, 3, 0, (slot, backwardJump))                                                                          \
  X(JUMP_IF_FALSE_L, 3, 0, (slot, forwardJump))     /* unless local a is truthy (GET_LOCAL; POP_JUMP_IF_FALSE) */           \
  X(LOOP_IF_TRUE_L, 3, 0, (slot, backwardJump))     /* while local a is truthy (GET_LOCAL; LOOP_IF_TRUE) */                 \
  X(JUMP_UNLESS_LESS_LL, 4, 0, (slot, slot, forwardJump))     /* unless local a < local b (GET_LOCAL2; JUMP_UNLESS_LESS) */ \
  X(JUMP_UNLESS_LESS_EQUAL_LL, 4, 0, (slot, slot, forwardJump))                                                             \
  X(JUMP_UNLESS_GREATER_LL, 4, 0, (slot, slot, forwardJump))                                                                \
  X(JUMP_UNLESS_GREATER_EQUAL_LL, 4, 0, (slot, slot, forwardJump))                                                          \
  X(JUMP_UNLESS_LESS_LI, 5, 0, (slot, smallInt, forwardJump)) /* unless local a < n (GET_LOCAL; SMALL_INT; JUMP_...) */     \
  X(JUMP_UNLESS_LESS_EQUAL_LI, 5, 0, (slot, smallInt, forwardJump))                                                         \
  X(JUMP_UNLESS_GREATER_LI, 5, 0, (slot, smallInt, forwardJump))                                                            \
  X(JUMP_UNLESS_GREATER_EQUAL_LI, 5, 0, (slot, smallInt, forwardJump))                                                      \
  X(JUMP_UNLESS_EQUAL_LI, 5, 0, (slot, smallInt, forwardJump))                                                              \
  X(JUMP_UNLESS_NOT_EQUAL_LI, 5, 0, (slot, smallInt, forwardJump))                                                          \
  X(LOOP_IF_LESS_LL, 4, 0, (slot, slot, backwardJump))        /* while local a < local b (GET_LOCAL2; LOOP_IF_LESS) */      \
  X(LOOP_IF_LESS_EQUAL_LL, 4, 0, (slot, slot, backwardJump))                                                                \
  X(LOOP_IF_GREATER_LL, 4, 0, (slot, slot, backwardJump))                                                                   \
  X(LOOP_IF_GREATER_EQUAL_LL, 4, 0, (slot, slot, backwardJump))                                                             \
  X(LOOP_IF_LESS_LI, 5, 0, (slot, smallInt, backwardJump))    /* while local a < n (GET_LOCAL; SMALL_INT; LOOP_...) */      \
  X(LOOP_IF_LESS_EQUAL_LI, 5, 0, (slot, smallInt, backwardJump))                                                            \
  X(LOOP_IF_GREATER_LI, 5, 0, (slot, smallInt, backwardJump))                                                               \
  X(LOOP_IF_GREATER_EQUAL_LI, 5, 0, (slot, smallInt, backwardJump))                                                         \
  X(JUMP_UNLESS_LESS_K, 4, -1, (constant, forwardJump))/* pops a; unless a < constant (CONSTANT; JUMP_UNLESS_LESS) */       \
  X(JUMP_UNLESS_LESS_EQUAL_K, 4, -1, (constant, forwardJump))                                                               \
  X(JUMP_UNLESS_GREATER_K, 4, -1, (constant, forwardJump))                                                                  \
  X(JUMP_UNLESS_GREATER_EQUAL_K, 4, -1, (constant, forwardJump))                                                            \
  X(LOOP_IF_LESS_K, 4, -1, (constant, backwardJump))/* pops a; while a < constant */                                        \
  X(LOOP_IF_LESS_EQUAL_K, 4, -1, (constant, backwardJump))                                                                  \
  X(LOOP_IF_GREATER_K, 4, -1, (constant, backwardJump))                                                                     \
  X(LOOP_IF_GREATER_EQUAL_K, 4, -1, (constant, backwardJump))                                                               \
  X(CALL, 3, 0, (argc, calleeName))                 /* callee args -> result */                                             \
  X(INVOKE, 5, 0, (symbol, argc, cache))            /* receiver args -> result */                                           \
  X(SUPER_INVOKE, 5, 0, (classId, symbol, argc))    /* this args -> result */                                               \
  X(NEW, 1, 0, (argc))                              /* class args -> instance */                                            \
  X(CLOSURE, 2, 1, (closure))                                                                                               \
  X(RETURN, 0, -1, ())                                                                                                      \
  X(RETURN_NIL, 0, 0, ())                           /* NIL; RETURN */                                                       \
  X(RETURN_LOCAL, 1, 0, (slot))                     /* GET_LOCAL; RETURN */                                                 \
  X(CLASS, 3, 0, (classId, hasSuperclass))          /* [super] -> class */                                                  \
  X(METHOD, 2, -1, (symbol))                        /* class closure -> class */                                            \
  X(ARRAY, 2, 1, (count))                           /* elements -> array */                                                 \
  X(FOR_IN, 3, 1, (iterator, exitJump))             /* pushes the next element, or leaves the loop */                       \
  X(IMPORT, 0, 0, ())                               /* path -> nil (runs the module as a call) */                           \
  X(THROW, 0, -1, ())                                                                                                       \
  X(TRY, 2, 0, (forwardJump))                       /* the jump goes to the catch block */                                  \
  X(END_TRY, 0, 0, ())                                                                                                      \
  X(NEW_NEAR, 1, 0, (argc))                         /* obj class args -> obj instance, NEW near obj (obj.f = new C(...)) */

enum class Op : std::uint8_t {
#define KITH_OP_ENUM(name, ...) name,
  KITH_OPCODES(KITH_OP_ENUM)
#undef KITH_OP_ENUM
      COUNT_
};

constexpr int kOpCount = static_cast<int>(Op::COUNT_);

// CALL's second operand when the callee was no variable or property read.
inline constexpr std::uint16_t kNoCalleeName = 0xFFFF;

struct OpInfo {
  const char* name;
  int operandBytes;  // tests/vm/opcodes_test.cpp checks it against the format's
  int stackEffect;
  OpFormat format;
};

namespace op_table {
using enum Operand;  // the rows name operand kinds bare
#define KITH_OPERAND_LIST(...) __VA_ARGS__
#define KITH_OP_INFO(name, operands, effect, format) {#name, operands, effect, OpFormat{KITH_OPERAND_LIST format}},
inline constexpr OpInfo kOpInfo[] = {KITH_OPCODES(KITH_OP_INFO)};
#undef KITH_OP_INFO
#undef KITH_OPERAND_LIST
}  // namespace op_table
using op_table::kOpInfo;

constexpr const OpInfo& opInfo(Op op) { return kOpInfo[static_cast<int>(op)]; }

// --- what follows from the format ------------------------------------------------------

// Where a jump keeps its u16 offset (bytes after the opcode; 0: not a jump) and which
// way it counts. The offset counts from the instruction's end.
struct JumpOperand {
  int at = 0;
  bool backward = false;
};
constexpr JumpOperand jumpOperandOf(const OpFormat& format) {
  for (int i = 0; i < format.count; ++i)
    if (isJump(format.kinds[i])) return {format.offsetOf(i), format.kinds[i] == Operand::backwardJump};
  return {};
}
// Where an instruction keeps its inline cache's index (bytes after the opcode; 0: none).
constexpr int cacheOperandOf(const OpFormat& format) {
  for (int i = 0; i < format.count; ++i)
    if (format.kinds[i] == Operand::cache) return format.offsetOf(i);
  return 0;
}
// By opcode, computed once: the fuser asks for every instruction it reads.
inline constexpr auto kJumpOperands = [] {
  std::array<JumpOperand, kOpCount> table{};
  for (int op = 0; op < kOpCount; ++op) table[static_cast<std::size_t>(op)] = jumpOperandOf(kOpInfo[op].format);
  return table;
}();
constexpr JumpOperand jumpOperand(Op op) { return kJumpOperands[static_cast<std::size_t>(op)]; }
constexpr int cacheOperand(Op op) { return cacheOperandOf(opInfo(op).format); }

}  // namespace kith::vm
