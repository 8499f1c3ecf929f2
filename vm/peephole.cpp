#include "vm/peephole.h"

#include <cassert>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "vm/object.h"
#include "vm/opcodes.h"

namespace kith::vm {
namespace {

std::size_t u16At(const std::vector<std::uint8_t>& code, std::size_t at) {
  return static_cast<std::size_t>(code[at] | (code[at + 1] << 8));
}

int operandBytes(Op op) { return kOpInfo[static_cast<int>(op)].operandBytes; }

// Where a jump keeps its u16 offset (bytes after the opcode; 0: not a jump) and which
// way it counts. The offset is always the last operand: it counts from the
// instruction's end.
struct JumpOperand {
  int at = 0;
  bool backward = false;
};
JumpOperand jumpOperand(Op op) {
  switch (op) {
    case Op::JUMP: case Op::JUMP_IF_FALSE: case Op::JUMP_IF_TRUE: case Op::POP_JUMP_IF_FALSE: case Op::TRY:
    case Op::JUMP_UNLESS_LESS: case Op::JUMP_UNLESS_LESS_EQUAL: case Op::JUMP_UNLESS_GREATER:
    case Op::JUMP_UNLESS_GREATER_EQUAL: case Op::JUMP_UNLESS_EQUAL: case Op::JUMP_UNLESS_NOT_EQUAL:
      return {1, false};
    case Op::FOR_IN: return {2, false};
    case Op::LOOP: case Op::LOOP_IF_TRUE: case Op::LOOP_IF_LESS: case Op::LOOP_IF_LESS_EQUAL:
    case Op::LOOP_IF_GREATER: case Op::LOOP_IF_GREATER_EQUAL:
      return {1, true};
    default: return {};
  }
}

// A comparison (or a constant) then a conditional jump: one instruction that compares
// and jumps (or always jumps).
constexpr std::pair<Op, Op> kJumpUnless[] = {
    {Op::FALSE, Op::JUMP},
    {Op::LESS, Op::JUMP_UNLESS_LESS},       {Op::LESS_EQUAL, Op::JUMP_UNLESS_LESS_EQUAL},
    {Op::GREATER, Op::JUMP_UNLESS_GREATER}, {Op::GREATER_EQUAL, Op::JUMP_UNLESS_GREATER_EQUAL},
    {Op::EQUAL, Op::JUMP_UNLESS_EQUAL},     {Op::NOT_EQUAL, Op::JUMP_UNLESS_NOT_EQUAL}};
constexpr std::pair<Op, Op> kLoopIf[] = {
    {Op::TRUE, Op::LOOP},
    {Op::LESS, Op::LOOP_IF_LESS}, {Op::LESS_EQUAL, Op::LOOP_IF_LESS_EQUAL},
    {Op::GREATER, Op::LOOP_IF_GREATER}, {Op::GREATER_EQUAL, Op::LOOP_IF_GREATER_EQUAL}};
// A store then POP (an assignment statement).
constexpr std::pair<Op, Op> kStorePop[] = {
    {Op::SET_LOCAL, Op::SET_LOCAL_POP}, {Op::SET_PROPERTY, Op::SET_PROPERTY_POP}, {Op::SET_INDEX, Op::SET_INDEX_POP}};
// Arithmetic with its operands read from locals or given as a small int.
struct ArithmeticFusion {
  Op op, bothLocals, rightLocal, smallInt;  // smallInt COUNT_: none
};
constexpr ArithmeticFusion kArithmetic[] = {
    {Op::ADD, Op::ADD_LL, Op::ADD_L, Op::ADD_SMALL},
    {Op::SUBTRACT, Op::SUB_LL, Op::SUB_L, Op::SUB_SMALL},
    {Op::MULTIPLY, Op::MUL_LL, Op::MUL_L, Op::COUNT_}};
// Local arithmetic then a store to a local: three-address arithmetic.
constexpr std::pair<Op, Op> kArithmeticStore[] = {
    {Op::ADD_LL, Op::ADD_LL_TO}, {Op::SUB_LL, Op::SUB_LL_TO}, {Op::MUL_LL, Op::MUL_LL_TO},
    {Op::ADD_L, Op::ADD_L_TO},   {Op::SUB_L, Op::SUB_L_TO},   {Op::MUL_L, Op::MUL_L_TO}};

constexpr std::size_t kUnmapped = std::numeric_limits<std::size_t>::max();

// One pass over the input: each instruction is copied, or fused into the instruction
// copied before it. Fusing never lengthens an instruction, and a fused instruction
// starts where its first part did, so every jump target keeps an offset to map to.
class Fuser {
 public:
  Fuser(const FunctionProto& proto, std::span<const int> labels)
      : proto_(proto), in_(proto.code), inLines_(proto.lines), isLabel_(in_.size() + 1, false),
        newOffset_(in_.size() + 1, kUnmapped) {
    for (int label : labels)
      if (label >= 0 && static_cast<std::size_t>(label) <= in_.size()) isLabel_[static_cast<std::size_t>(label)] = true;
    for (std::size_t at = 0; at < in_.size();) {
      std::size_t length = instructionLength(proto_, at);
      JumpOperand jump = jumpOperand(static_cast<Op>(in_[at]));
      if (jump.at) isLabel_[targetOf(at, length, jump)] = true;
      at += length;
    }
  }

  void run() {
    for (std::size_t at = 0; at < in_.size();) {
      std::size_t length = instructionLength(proto_, at);
      auto op = static_cast<Op>(in_[at]);
      newOffset_[at] = out_.size();
      if (emitted_.empty() || isLabel_[at] || !fuse(at, op)) copy(at, length, op);
      at += length;
    }
    newOffset_[in_.size()] = out_.size();
    for (const Jump& jump : jumps_) patch(jump);
  }

  std::vector<std::uint8_t> takeCode() { return std::move(out_); }
  std::vector<int> takeLines() { return std::move(outLines_); }

 private:
  struct Emitted {
    std::size_t at;  // in the output
    Op op;
    bool atLabel;    // a jump lands where it starts
  };
  struct Jump {
    std::size_t at;      // the jump instruction, in the output
    std::size_t target;  // in the input
  };

  std::size_t targetOf(std::size_t at, std::size_t length, JumpOperand jump) const {
    std::size_t offset = u16At(in_, at + static_cast<std::size_t>(jump.at));
    std::size_t target = jump.backward ? at + length - offset : at + length + offset;
    assert(target <= in_.size());
    return target;
  }

  void append(std::uint8_t byte, int line) {
    out_.push_back(byte);
    outLines_.push_back(line);
  }
  void copy(std::size_t at, std::size_t length, Op op) {
    emitted_.push_back({out_.size(), op, isLabel_[at]});
    JumpOperand jump = jumpOperand(op);
    if (jump.at) jumps_.push_back({out_.size(), targetOf(at, length, jump)});
    for (std::size_t i = at; i < at + length; ++i) append(in_[i], inLines_[i]);
  }
  // The last instruction copied becomes `fused`, keeping its operands and its line.
  void retag(Op fused) {
    emitted_.back().op = fused;
    out_[emitted_.back().at] = static_cast<std::uint8_t>(fused);
  }

  bool fuse(std::size_t at, Op op) {
    Emitted& last = emitted_.back();
    switch (op) {
      case Op::GET_LOCAL:
        if (last.op != Op::GET_LOCAL) return false;
        retag(Op::GET_LOCAL2);
        append(in_[at + 1], inLines_[at + 1]);
        return true;
      case Op::ADD: case Op::SUBTRACT: case Op::MULTIPLY:
        for (const ArithmeticFusion& f : kArithmetic) {
          if (f.op != op) continue;
          if (last.op == Op::GET_LOCAL2) retag(f.bothLocals);
          else if (last.op == Op::GET_LOCAL) retag(f.rightLocal);
          else if (last.op == Op::SMALL_INT && f.smallInt != Op::COUNT_) retag(f.smallInt);
          else return false;
          return true;
        }
        return false;
      case Op::POP:
        for (auto [store, storePop] : kStorePop) {
          if (last.op != store) continue;
          retag(storePop);
          if (storePop == Op::SET_LOCAL_POP) fuseLocalStore(inLines_[at]);
          return true;
        }
        return false;
      // A test of a constant that never jumps goes, with the constant (`while (true)`).
      case Op::POP_JUMP_IF_FALSE: return dropLastIf(Op::TRUE) || fuseConditionalJump(at, kJumpUnless);
      case Op::LOOP_IF_TRUE: return dropLastIf(Op::FALSE) || fuseConditionalJump(at, kLoopIf);
      default: return false;
    }
  }

  bool dropLastIf(Op op) {
    if (emitted_.back().op != op) return false;
    out_.resize(emitted_.back().at);
    outLines_.resize(emitted_.back().at);
    emitted_.pop_back();
    return true;
  }

  template <std::size_t N>
  bool fuseConditionalJump(std::size_t at, const std::pair<Op, Op> (&fusions)[N]) {
    for (auto [compare, fused] : fusions) {
      if (emitted_.back().op != compare) continue;
      retag(fused);
      jumps_.push_back({emitted_.back().at, targetOf(at, 3, jumpOperand(static_cast<Op>(in_[at])))});
      append(in_[at + 1], inLines_[at + 1]);
      append(in_[at + 2], inLines_[at + 2]);
      return true;
    }
    return false;
  }

  // A SET_LOCAL_POP just made, with the instructions before it: `x = x + n;` becomes
  // ADD_LOCAL_SMALL x n, `c = a op b;` on locals ADD_LL_TO a b c, `c = e op b;`
  // ADD_L_TO b c. These take the statement's line (`line`, its POP's).
  void fuseLocalStore(int line) {
    std::size_t n = emitted_.size();
    const Emitted& store = emitted_[n - 1];
    if (store.atLabel || n < 2) return;
    std::uint8_t target = out_[store.at + 1];
    if (n >= 3) {
      const Emitted& add = emitted_[n - 2];
      const Emitted& get = emitted_[n - 3];
      if (get.op == Op::GET_LOCAL && add.op == Op::ADD_SMALL && !add.atLabel && out_[get.at + 1] == target) {
        const std::uint8_t operands[] = {target, out_[add.at + 1], out_[add.at + 2]};
        replaceTail(3, Op::ADD_LOCAL_SMALL, operands, line);
        return;
      }
    }
    const Emitted& arithmetic = emitted_[n - 2];
    for (auto [plain, storing] : kArithmeticStore) {
      if (arithmetic.op != plain) continue;
      const auto count = static_cast<std::size_t>(operandBytes(plain));
      std::uint8_t operands[3];
      for (std::size_t i = 0; i < count; ++i) operands[i] = out_[arithmetic.at + 1 + i];
      operands[count] = target;
      replaceTail(2, storing, std::span<const std::uint8_t>(operands, count + 1), line);
      return;
    }
  }
  // The last `count` instructions (none of them a jump) become `op` with `operands`.
  void replaceTail(std::size_t count, Op op, std::span<const std::uint8_t> operands, int line) {
    Emitted first = emitted_[emitted_.size() - count];
    emitted_.resize(emitted_.size() - count);
    out_.resize(first.at);
    outLines_.resize(first.at);
    emitted_.push_back({first.at, op, first.atLabel});
    append(static_cast<std::uint8_t>(op), line);
    for (std::uint8_t b : operands) append(b, line);
  }

  void patch(const Jump& jump) {
    auto op = static_cast<Op>(out_[jump.at]);
    JumpOperand operand = jumpOperand(op);
    std::size_t end = jump.at + 1 + static_cast<std::size_t>(operandBytes(op));
    std::size_t target = newOffset_[jump.target];
    assert(target != kUnmapped);
    std::size_t offset = operand.backward ? end - target : target - end;
    assert(offset <= 0xffff);  // fusing only ever shortens a jump
    std::size_t at = jump.at + static_cast<std::size_t>(operand.at);
    out_[at] = static_cast<std::uint8_t>(offset & 0xff);
    out_[at + 1] = static_cast<std::uint8_t>((offset >> 8) & 0xff);
  }

  const FunctionProto& proto_;
  const std::vector<std::uint8_t>& in_;
  const std::vector<int>& inLines_;
  std::vector<bool> isLabel_;          // by input offset: a jump lands there
  std::vector<std::size_t> newOffset_;  // by input offset of each instruction: where it went
  std::vector<std::uint8_t> out_;
  std::vector<int> outLines_;
  std::vector<Emitted> emitted_;
  std::vector<Jump> jumps_;
};

}  // namespace

std::size_t instructionLength(const FunctionProto& proto, std::size_t at) {
  auto op = static_cast<Op>(proto.code[at]);
  std::size_t length = 1 + static_cast<std::size_t>(operandBytes(op));
  if (op == Op::CLOSURE) length += 2 * static_cast<std::size_t>(proto.functions[u16At(proto.code, at + 1)]->upvalueCount);
  return length;
}

void fuseInstructions(FunctionProto& proto, std::span<const int> labels) {
  Fuser fuser(proto, labels);
  fuser.run();
  proto.code = fuser.takeCode();
  proto.lines = fuser.takeLines();
}

}  // namespace kith::vm
