// What the compiler knows about an expression while compiling it, after Lua's expdesc
// (lcode.c): the jumps already emitted that leave it, waiting for their targets.
#pragma once

#include "vm/compiler_scratch.h"

namespace kith::vm {

// Forward jumps waiting for one target: the code offsets of their operands.
using JumpList = ScratchVector<int>;

// What an expression is compiled for: its value, or only its truth (the condition of
// an if, while or for, whose `and`, `or` and `!` then cost jumps, not values).
enum class Purpose { value, truth };

// An expression being compiled, for a stack machine: the jumps taken when it holds
// (`whenTrue`) or fails (`whenFalse`) — for its value, jumps that keep the value they
// test (JUMP_IF_TRUE, JUMP_IF_FALSE); and, unless a test has consumed it, the value
// of its last operand on the stack, to be negated `negations` times (`!x` tests x
// with the branches swapped, so its NOT is only emitted when x is needed as a value).
struct Condition {
  JumpList whenTrue;
  JumpList whenFalse;
  bool valueOnStack = true;
  int negations = 0;
  int negatedLine = 0;  // the negated operand's last line: where its NOT belongs
};

}  // namespace kith::vm
