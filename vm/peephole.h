// The compiler's last step over a finished function: common instruction sequences
// become one instruction each (the fused opcodes in vm/opcodes.h), so the emitter
// itself only ever writes plain instructions. A sequence fuses only when no jump lands
// inside it; jump offsets and the line table are rebuilt for the shorter code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "vm/opcodes.h"

namespace kith::vm {

struct FunctionProto;

// The length in bytes of the instruction at `at`: its opcode's operand bytes, and for
// a closure operand two bytes per upvalue.
std::size_t instructionLength(const FunctionProto& proto, std::size_t at);

// Fuses the instructions of finished functions, keeping its working buffers from one
// function to the next (a compilation fuses every function it makes).
class InstructionFuser {
 public:
  // Rewrites proto.code and proto.lines in place. Nothing fuses across a jump target
  // or an offset in `labels`, which must hold every backward jump's target (where a
  // loop starts); forward jumps' targets are found as the pass reads the jumps. The
  // code must be complete: every jump patched.
  void fuse(FunctionProto& proto, std::span<const int> labels);

 private:
  struct Emitted {
    std::size_t at;  // in the rewritten code
    Op op;
    bool atLabel;    // a jump lands where it starts
  };
  struct Jump {
    std::size_t at;      // the jump instruction, in the rewritten code
    std::size_t target;  // in the original code
  };

  std::size_t targetOf(std::size_t at, std::size_t length, JumpOperand jump);
  // Moves the run of instructions copied but not yet moved to where they belong: before
  // anything writes the rewritten code.
  void flush();
  void append(std::uint8_t byte, int line);
  // The last instruction copied becomes `fused`, keeping its operands and its line.
  void retag(Op fused);
  bool fuseWithLast(std::size_t at, Op op);
  // GET_PROPERTY after a local's read: GET_LOCAL_PROPERTY (after two: GET_LOCAL_LOCAL_PROPERTY),
  // which keeps GET_PROPERTY's operands and their lines (a trace names the line of the
  // last operand read).
  bool fuseLocalProperty(std::size_t at);
  bool fusePops(std::size_t at);
  bool fuseReturn(std::size_t at);
  void fuseSmallIntOperand(Op withSmallInt);
  void fuseLocalOperand(Op withLocal);
  bool fuseLocalIndex(std::size_t at);
  bool dropLastIf(Op op);
  bool fuseConditionalJump(std::size_t at, std::span<const std::pair<Op, Op>> fusions);
  // A compare-and-jump just made, with the instructions before it: two locals' reads, a
  // local's and a small int, or a test against nil become its operands
  // (JUMP_UNLESS_LESS_LL, LOOP_IF_LESS_LI, JUMP_UNLESS_NIL_L ...).
  void fuseJumpOperands();
  // A SET_LOCAL_POP just made, with the instructions before it: `x = x + n;` becomes
  // ADD_LOCAL_SMALL x n (SUB_LOCAL_SMALL for -), `c = a op b;` on locals ADD_LL_TO a b c,
  // `c = e op b;` ADD_L_TO b c, `c = a.f;` GET_LOCAL_PROPERTY_TO. These take the
  // statement's line (`line`, its POP's), but for a property's last byte.
  void fuseLocalStore(int line);
  // The last `count` instructions (none of them a jump) become `op` with `operands`.
  void replaceTail(std::size_t count, Op op, std::span<const std::uint8_t> operands, int line);
  void patch(const Jump& jump);

  FunctionProto* proto_ = nullptr;
  std::size_t written_ = 0;                // the rewritten code's length so far
  std::size_t reading_ = 0;                // the original instruction being read
  std::size_t moveFrom_ = 0, moveTo_ = 0;  // the run not yet moved: where it is, where it goes
  std::vector<std::uint8_t> isLabel_;      // by original offset: a jump lands there (or a label)
  std::vector<std::uint32_t> newOffset_;   // by original offset of each label: where it went
  std::vector<Emitted> emitted_;
  std::vector<Jump> jumps_;
};

// One function, with a fuser of its own.
void fuseInstructions(FunctionProto& proto, std::span<const int> labels);

}  // namespace kith::vm
