// The compiler's code emitter: it writes one function's bytecode at a time — plain
// instructions with their source lines, forward jumps and their patching, jumps back,
// constants and inline caches, the stack depth from which maxStack comes — and moves
// code for loop inversion (a loop's bottom test is a copy of its top test's code, a
// for-increment compiled before the body is moved after it). The parser
// (vm/compiler.cpp) decides what to emit; this file knows how. It writes plain
// instructions only: fuseInstructions (vm/peephole.h) fuses a finished function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vm/compiler_scratch.h"
#include "vm/jump_list.h"
#include "vm/object.h"
#include "vm/opcodes.h"
#include "vm/peephole.h"
#include "vm/value.h"

namespace kith::vm {

class VM;

// The limits whose error would repeat at every later declaration once passed (a
// local, a constant, a jump...): each is reported once per function, or once per
// program for the program-wide ones (names, globals, the heap for constants).
enum class Limit : unsigned { jump, loopBody, constants, propertyAccesses, functions, locals, upvalues,
                              names, globals, constantsMemory };
constexpr bool isProgramWide(Limit l) { return l >= Limit::names; }

// Where the emitter reports a limit its function passed (the parser, which knows
// whether the error was given already and where the source is).
class LimitReporter {
 public:
  virtual void limitPassed(Limit limit, const std::string& message) = 0;

 protected:
  ~LimitReporter() = default;
};

// One function's code while it is emitted.
struct FunctionCode {
  FunctionProto* proto;
  int stackDepth = 1;            // slot 0: the callee or `this`
  ScratchVector<int> loopStarts;  // code offsets nothing fuses across (fuseInstructions' labels)
};

// Code compiled in one place and emitted in another: a for loop's increment, a loop
// condition's copy at the bottom. Jumps inside a block are relative, so it runs the
// same wherever it lands.
struct CodeBlock {
  ScratchVector<std::uint8_t> code;
  ScratchVector<int> lines;
};

class CodeEmitter {
 public:
  CodeEmitter(VM& vm, CompilerScratch& scratch, LimitReporter& limits)
      : vm_(vm), scratch_(scratch), limits_(limits) {}

  // The function emitted into from now on (nullptr: none).
  void target(FunctionCode* function) { fn_ = function; }
  // The source line of what is emitted next.
  void atLine(int line) { line_ = line; }

  FunctionProto& proto() { return *fn_->proto; }
  int here() const { return static_cast<int>(fn_->proto->code.size()); }
  int stackDepth() const { return fn_->stackDepth; }
  // After code that leaves the function or the loop (break, return...): the depth the
  // code after it starts from.
  void resetStackDepth(int depth) { fn_->stackDepth = depth; }
  void adjustStack(int delta) {
    fn_->stackDepth += delta;
    if (fn_->stackDepth > fn_->proto->maxStack) fn_->proto->maxStack = fn_->stackDepth;
  }

  void emitByte(std::uint8_t b) {
    fn_->proto->code.push_back(b);
    fn_->proto->lines.push_back(line_);
  }
  void emitU16(int v) {
    emitByte(static_cast<std::uint8_t>(v & 0xff));
    emitByte(static_cast<std::uint8_t>((v >> 8) & 0xff));
  }
  void emitOp(Op op) {
    emitByte(static_cast<std::uint8_t>(op));
    adjustStack(opInfo(op).stackEffect);
  }
  void emitOpU8(Op op, int operand) {
    emitOp(op);
    emitByte(static_cast<std::uint8_t>(operand));
  }
  void emitOpU16(Op op, int operand) {
    emitOp(op);
    emitU16(operand);
  }
  // `count` NOTs, at `line` (a negated operand's: where its `!` belongs).
  void emitNots(int count, int line);

  // --- jumps ------------------------------------------------------------------------
  // A forward jump; returns where its offset goes, for patchJump.
  int emitJump(Op op) {
    emitOp(op);
    emitU16(0xffff);
    return here() - 2;
  }
  // Points the forward jump whose offset is at `at` to the end of the code.
  void patchJump(int at);
  void patchJumps(const JumpList& jumps) {
    for (int j : jumps) patchJump(j);
  }
  // Where a loop starts: kept an instruction boundary, so the code before the loop
  // never fuses into its first test.
  int loopTarget() {
    fn_->loopStarts.push_back(here());
    return here();
  }
  void emitLoop(int start) {
    emitOp(Op::LOOP);
    emitLoopOffset(start);
  }
  // The backward offset after a loop instruction's opcode: from past its operand to `start`.
  void emitLoopOffset(int start);
  // The forward JUMP whose offset is at `at` becomes a LOOP back to `start`.
  void turnIntoLoop(int at, int start);

  // --- constants and caches ------------------------------------------------------------
  int makeConstant(Value v);
  int stringConstant(std::string_view text);
  int newCache();

  // --- moving code -----------------------------------------------------------------------
  CodeBlock newCodeBlock() {
    return CodeBlock{ScratchVector<std::uint8_t>(ScratchAllocator<std::uint8_t>(&scratch_)),
                     ScratchVector<int>(ScratchAllocator<int>(&scratch_))};
  }
  CodeBlock copyCode(int from, int to);
  // Takes the code from `from` to the end out of the function (the stack depth is the caller's).
  CodeBlock cutCode(int from);
  // Appends `block` (the stack depth is the caller's); returns where it starts.
  int pasteCode(const CodeBlock& block);
  // The instructions with an inline cache from `from` on get caches of their own (a copy
  // of code must not share the original's).
  void renewCaches(int from);

  // The function's code is complete: fuses it (only complete code has every jump
  // patched, so not after errors).
  void finish(bool complete) {
    if (complete) fuser_.fuse(*fn_->proto, fn_->loopStarts);
  }

 private:
  void writeU16(std::size_t at, std::size_t value) {
    fn_->proto->code[at] = static_cast<std::uint8_t>(value & 0xff);
    fn_->proto->code[at + 1] = static_cast<std::uint8_t>((value >> 8) & 0xff);
  }

  VM& vm_;
  CompilerScratch& scratch_;
  LimitReporter& limits_;
  FunctionCode* fn_ = nullptr;
  int line_ = 0;
  InstructionFuser fuser_;
};

}  // namespace kith::vm
