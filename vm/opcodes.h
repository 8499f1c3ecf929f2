// The bytecode. One byte per opcode, operands little-endian after it:
// u8 = 1 byte, u16 = 2 bytes. `effect` is the opcode's fixed stack effect (the
// compiler adds the variable part, e.g. call arguments, itself) and is what the
// compiler uses to compute each function's maxStack.
#pragma once

#include <cstdint>

namespace kith::vm {

//  X(name, operand bytes, stack effect)
#define KITH_OPCODES(X)                                                       \
  X(CONSTANT, 2, 1)        /* u16 constant index */                          \
  X(NIL, 0, 1)                                                               \
  X(TRUE, 0, 1)                                                              \
  X(FALSE, 0, 1)                                                             \
  X(SMALL_INT, 2, 1)       /* s16 immediate */                               \
  X(POP, 0, -1)                                                              \
  X(GET_LOCAL, 1, 1)       /* u8 slot */                                     \
  X(GET_LOCAL2, 2, 2)      /* u8 slot, u8 slot: two GET_LOCALs */            \
  X(SET_LOCAL, 1, 0)                                                         \
  X(SET_LOCAL_POP, 1, -1)  /* u8 slot: SET_LOCAL then POP (an assignment statement) */ \
  X(GET_GLOBAL, 2, 1)      /* u16 global index */                            \
  X(SET_GLOBAL, 2, 0)                                                        \
  X(DEFINE_GLOBAL, 2, -1)                                                    \
  X(GET_UPVALUE, 1, 1)                                                       \
  X(SET_UPVALUE, 1, 0)                                                       \
  X(CLOSE_UPVALUE, 0, -1)                                                    \
  X(GET_PROPERTY, 4, 0)    /* u16 symbol, u16 cache */                       \
  X(SET_PROPERTY, 4, -1)   /* u16 symbol, u16 cache: obj value -> value */   \
  X(SET_PROPERTY_POP, 4, -2) /* SET_PROPERTY then POP (an assignment statement) */ \
  X(GET_INDEX, 0, -1)                                                        \
  X(SET_INDEX, 0, -2)      /* obj index value -> value */                    \
  X(SET_INDEX_POP, 0, -3)  /* SET_INDEX then POP (an assignment statement) */ \
  X(GET_SUPER, 4, 0)       /* u16 class id, u16 symbol: this -> bound */     \
  X(EQUAL, 0, -1)                                                            \
  X(NOT_EQUAL, 0, -1)                                                        \
  X(GREATER, 0, -1)                                                          \
  X(GREATER_EQUAL, 0, -1)                                                    \
  X(LESS, 0, -1)                                                             \
  X(LESS_EQUAL, 0, -1)                                                       \
  X(ADD, 0, -1)                                                              \
  X(SUBTRACT, 0, -1)                                                         \
  X(ADD_SMALL, 2, 0)       /* s16: top + n (SMALL_INT n; ADD) */              \
  X(SUB_SMALL, 2, 0)       /* s16: top - n (SMALL_INT n; SUBTRACT) */         \
  X(ADD_LOCAL_SMALL, 3, 0) /* u8 slot, s16 n: local += n (GET_LOCAL; ADD_SMALL; SET_LOCAL_POP) */ \
  X(ADD_L, 1, 0)           /* u8 slot: top + local (GET_LOCAL; ADD) */          \
  X(SUB_L, 1, 0)           /* u8 slot: top - local */                          \
  X(MUL_L, 1, 0)           /* u8 slot: top * local */                          \
  X(ADD_LL, 2, 1)          /* u8 a, u8 b: push local a + local b (GET_LOCAL2 a b; ADD) */ \
  X(SUB_LL, 2, 1)          /* u8 a, u8 b: push a - b */                         \
  X(MUL_LL, 2, 1)          /* u8 a, u8 b: push a * b */                         \
  X(ADD_LL_TO, 3, 0)       /* u8 a, u8 b, u8 c: local c = a + b (ADD_LL a b; SET_LOCAL_POP c) */ \
  X(SUB_LL_TO, 3, 0)       /* u8 a, u8 b, u8 c: local c = a - b */              \
  X(MUL_LL_TO, 3, 0)       /* u8 a, u8 b, u8 c: local c = a * b */              \
  X(ADD_L_TO, 2, -1)       /* u8 b, u8 c: pops a; local c = a + b (ADD_L b; SET_LOCAL_POP c) */ \
  X(SUB_L_TO, 2, -1)       /* u8 b, u8 c: pops a; local c = a - b */          \
  X(MUL_L_TO, 2, -1)       /* u8 b, u8 c: pops a; local c = a * b */          \
  X(MULTIPLY, 0, -1)                                                         \
  X(DIVIDE, 0, -1)                                                           \
  X(MODULO, 0, -1)                                                           \
  X(BIT_AND, 0, -1)                                                          \
  X(BIT_OR, 0, -1)                                                           \
  X(BIT_XOR, 0, -1)                                                          \
  X(SHIFT_LEFT, 0, -1)                                                       \
  X(SHIFT_RIGHT, 0, -1)                                                      \
  X(SHIFT_RIGHT_LOGICAL, 0, -1)                                              \
  X(NEGATE, 0, 0)                                                            \
  X(NOT, 0, 0)                                                               \
  X(BIT_NOT, 0, 0)                                                           \
  X(JUMP, 2, 0)            /* u16 forward offset */                          \
  X(JUMP_IF_FALSE, 2, 0)   /* keeps the condition */                         \
  X(JUMP_IF_TRUE, 2, 0)    /* keeps the condition */                         \
  X(POP_JUMP_IF_FALSE, 2, -1)                                                \
  X(JUMP_UNLESS_LESS, 2, -2) /* u16 forward offset: pops a b; jumps unless a < b (LESS; POP_JUMP_IF_FALSE) */ \
  X(JUMP_UNLESS_LESS_EQUAL, 2, -2) \
  X(JUMP_UNLESS_GREATER, 2, -2) \
  X(JUMP_UNLESS_GREATER_EQUAL, 2, -2) \
  X(JUMP_UNLESS_EQUAL, 2, -2) \
  X(JUMP_UNLESS_NOT_EQUAL, 2, -2) \
  X(LOOP, 2, 0)            /* u16 backward offset */                         \
  X(LOOP_IF_TRUE, 2, -1)   /* u16 backward offset: pops; jumps back while truthy (an inverted while) */ \
  X(LOOP_IF_LESS, 2, -2)   /* LESS then LOOP_IF_TRUE: an inverted while's `a < b` */ \
  X(LOOP_IF_LESS_EQUAL, 2, -2) \
  X(LOOP_IF_GREATER, 2, -2) \
  X(LOOP_IF_GREATER_EQUAL, 2, -2) \
  X(CALL, 3, 0)            /* u8 argc, u16 callee's name: callee args -> result */ \
  X(INVOKE, 5, 0)          /* u16 symbol, u8 argc, u16 cache */              \
  X(SUPER_INVOKE, 5, 0)    /* u16 class id, u16 symbol, u8 argc */           \
  X(NEW, 1, 0)             /* u8 argc: class args -> instance */             \
  X(CLOSURE, 2, 1)         /* u16 function index, then (u8 isLocal, u8 index) per upvalue */ \
  X(RETURN, 0, -1)                                                           \
  X(CLASS, 3, 0)           /* u16 class id, u8 hasSuper: [super] -> class */ \
  X(METHOD, 2, -1)         /* u16 symbol: class closure -> class */          \
  X(ARRAY, 2, 1)           /* u16 count: elements -> array */                \
  X(FOR_IN, 3, 1)          /* u8 slot of (array, index), u16 exit offset: pushes the element */ \
  X(IMPORT, 0, 0)          /* path -> nil (runs the module as a call) */     \
  X(THROW, 0, -1)                                                            \
  X(TRY, 2, 0)             /* u16 offset to the catch block */               \
  X(END_TRY, 0, 0)                                                           \
  X(NEW_NEAR, 1, 0)        /* u8 argc: obj class args -> obj instance; NEW hinted near obj (obj.f = new C(...)) */

enum class Op : std::uint8_t {
#define KITH_OP_ENUM(name, operands, effect) name,
  KITH_OPCODES(KITH_OP_ENUM)
#undef KITH_OP_ENUM
      COUNT_
};

constexpr int kOpCount = static_cast<int>(Op::COUNT_);

// CALL's second operand when the callee was no variable or property read.
inline constexpr std::uint16_t kNoCalleeName = 0xFFFF;

struct OpInfo {
  const char* name;
  int operandBytes;
  int stackEffect;
};

inline constexpr OpInfo kOpInfo[] = {
#define KITH_OP_INFO(name, operands, effect) {#name, operands, effect},
    KITH_OPCODES(KITH_OP_INFO)
#undef KITH_OP_INFO
};

}  // namespace kith::vm
