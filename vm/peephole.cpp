#include "vm/peephole.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "vm/object.h"
#include "vm/opcodes.h"

namespace kith::vm {
namespace {

std::size_t u16At(const std::vector<std::uint8_t>& code, std::size_t at) {
  return static_cast<std::size_t>(code[at] | (code[at + 1] << 8));
}

int operandBytes(Op op) { return opInfo(op).operandBytes; }

inline std::size_t lengthAt(const FunctionProto& proto, std::size_t at) {
  auto op = static_cast<Op>(proto.code[at]);
  std::size_t length = 1 + static_cast<std::size_t>(operandBytes(op));
  if (op == Op::CLOSURE) [[unlikely]]  // closureIsTheOnlyVariableLength()
    length += 2 * static_cast<std::size_t>(proto.functions[u16At(proto.code, at + 1)]->upvalueCount);
  return length;
}

// lengthAt tests the opcode, not the format, for the instructions of variable length.
constexpr bool closureIsTheOnlyVariableLength() {
  for (int op = 0; op < kOpCount; ++op) {
    const OpFormat& format = kOpInfo[op].format;
    for (int i = 0; i < format.count; ++i)
      if (format.kinds[i] == Operand::closure && (static_cast<Op>(op) != Op::CLOSURE || i != 0)) return false;
  }
  return opInfo(Op::CLOSURE).format.kinds[0] == Operand::closure;
}
static_assert(closureIsTheOnlyVariableLength());

// The instructions that may fuse into the one before them (fuseWithLast's cases).
constexpr bool fusesWithLastOf(Op op) {
  switch (op) {
    case Op::GET_LOCAL: case Op::GET_PROPERTY: case Op::GET_INDEX: case Op::ADD: case Op::SUBTRACT: case Op::MULTIPLY: case Op::POP:
    case Op::POP_JUMP_IF_FALSE: case Op::LOOP_IF_TRUE: case Op::RETURN:
      return true;
    default: return false;
  }
}
constexpr auto kFusesWithLast = [] {
  std::array<bool, kOpCount> table{};
  for (int op = 0; op < kOpCount; ++op) table[static_cast<std::size_t>(op)] = fusesWithLastOf(static_cast<Op>(op));
  return table;
}();

// A comparison (or a constant, or a local's value) then a conditional jump: one
// instruction that compares and jumps (or always jumps, or tests the local).
constexpr std::pair<Op, Op> kJumpUnless[] = {
    {Op::FALSE, Op::JUMP}, {Op::GET_LOCAL, Op::JUMP_IF_FALSE_L},
    {Op::LESS, Op::JUMP_UNLESS_LESS},       {Op::LESS_EQUAL, Op::JUMP_UNLESS_LESS_EQUAL},
    {Op::GREATER, Op::JUMP_UNLESS_GREATER}, {Op::GREATER_EQUAL, Op::JUMP_UNLESS_GREATER_EQUAL},
    {Op::EQUAL, Op::JUMP_UNLESS_EQUAL},     {Op::NOT_EQUAL, Op::JUMP_UNLESS_NOT_EQUAL}};
constexpr std::pair<Op, Op> kLoopIf[] = {
    {Op::TRUE, Op::LOOP}, {Op::GET_LOCAL, Op::LOOP_IF_TRUE_L},
    {Op::LESS, Op::LOOP_IF_LESS}, {Op::LESS_EQUAL, Op::LOOP_IF_LESS_EQUAL},
    {Op::GREATER, Op::LOOP_IF_GREATER}, {Op::GREATER_EQUAL, Op::LOOP_IF_GREATER_EQUAL},
    {Op::EQUAL, Op::LOOP_IF_EQUAL}, {Op::NOT_EQUAL, Op::LOOP_IF_NOT_EQUAL}};
// A fused compare-and-jump whose operands were two locals (GET_LOCAL2 a b), a local and
// a small int (GET_LOCAL a; SMALL_INT n), something and nil (NIL), or a local and nil
// (GET_LOCAL a; NIL): the operands go into the instruction.
struct OperandJump {
  Op jump, locals, localAndSmallInt, nil, localAndNil, constant = Op::COUNT_;  // COUNT_: none
};
constexpr Op kNone = Op::COUNT_;
constexpr OperandJump kOperandJumps[] = {
    {Op::JUMP_UNLESS_LESS, Op::JUMP_UNLESS_LESS_LL, Op::JUMP_UNLESS_LESS_LI, kNone, kNone, Op::JUMP_UNLESS_LESS_K},
    {Op::JUMP_UNLESS_LESS_EQUAL, Op::JUMP_UNLESS_LESS_EQUAL_LL, Op::JUMP_UNLESS_LESS_EQUAL_LI, kNone, kNone,
     Op::JUMP_UNLESS_LESS_EQUAL_K},
    {Op::JUMP_UNLESS_GREATER, Op::JUMP_UNLESS_GREATER_LL, Op::JUMP_UNLESS_GREATER_LI, kNone, kNone,
     Op::JUMP_UNLESS_GREATER_K},
    {Op::JUMP_UNLESS_GREATER_EQUAL, Op::JUMP_UNLESS_GREATER_EQUAL_LL, Op::JUMP_UNLESS_GREATER_EQUAL_LI, kNone, kNone,
     Op::JUMP_UNLESS_GREATER_EQUAL_K},
    {Op::JUMP_UNLESS_EQUAL, kNone, Op::JUMP_UNLESS_EQUAL_LI, Op::JUMP_UNLESS_NIL, Op::JUMP_UNLESS_NIL_L},
    {Op::JUMP_UNLESS_NOT_EQUAL, kNone, Op::JUMP_UNLESS_NOT_EQUAL_LI, Op::JUMP_IF_NIL, Op::JUMP_IF_NIL_L},
    {Op::LOOP_IF_LESS, Op::LOOP_IF_LESS_LL, Op::LOOP_IF_LESS_LI, kNone, kNone, Op::LOOP_IF_LESS_K},
    {Op::LOOP_IF_LESS_EQUAL, Op::LOOP_IF_LESS_EQUAL_LL, Op::LOOP_IF_LESS_EQUAL_LI, kNone, kNone, Op::LOOP_IF_LESS_EQUAL_K},
    {Op::LOOP_IF_GREATER, Op::LOOP_IF_GREATER_LL, Op::LOOP_IF_GREATER_LI, kNone, kNone, Op::LOOP_IF_GREATER_K},
    {Op::LOOP_IF_GREATER_EQUAL, Op::LOOP_IF_GREATER_EQUAL_LL, Op::LOOP_IF_GREATER_EQUAL_LI, kNone, kNone,
     Op::LOOP_IF_GREATER_EQUAL_K},
    {Op::LOOP_IF_EQUAL, kNone, kNone, Op::LOOP_IF_NIL, Op::LOOP_IF_NIL_L},
    {Op::LOOP_IF_NOT_EQUAL, kNone, kNone, Op::LOOP_UNLESS_NIL, Op::LOOP_UNLESS_NIL_L}};
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

}  // namespace

// One pass over the code, rewriting it in place: each instruction is moved down, or
// fused into the instruction before it. Fusing never lengthens an instruction, so the
// rewritten code never overtakes what is still to be read, and a fused instruction
// starts where its first part did, so every jump target keeps an offset to map to.
// Instructions are moved a run at a time: only when a fusion is about to write.
void InstructionFuser::fuse(FunctionProto& proto, std::span<const int> labels) {
  proto_ = &proto;
  std::size_t size = proto.code.size();
  isLabel_.assign(size + 1, 0);
  newOffset_.resize(size + 1);
  emitted_.clear();
  jumps_.clear();
  written_ = moveFrom_ = moveTo_ = 0;
  for (int label : labels)
    if (label >= 0 && static_cast<std::size_t>(label) <= size) isLabel_[static_cast<std::size_t>(label)] = 1;
  for (std::size_t at = 0; at < size;) {
    std::size_t length = lengthAt(proto, at);
    auto op = static_cast<Op>(proto.code[at]);
    bool atLabel = isLabel_[at] != 0;
    if (atLabel) newOffset_[at] = static_cast<std::uint32_t>(written_);
    reading_ = at;
    if (kFusesWithLast[static_cast<std::size_t>(op)] && !atLabel && !emitted_.empty() && fuseWithLast(at, op)) {
      moveFrom_ = at + length;
      moveTo_ = written_;
    } else {  // copied: moved down with its run by the next flush
      emitted_.push_back({written_, op, atLabel});
      JumpOperand jump = jumpOperand(op);
      if (jump.at) jumps_.push_back({written_, targetOf(at, length, jump)});
      written_ += length;
    }
    at += length;
  }
  reading_ = size;
  flush();
  newOffset_[size] = static_cast<std::uint32_t>(written_);
  for (const Jump& jump : jumps_) patch(jump);
  proto.code.resize(written_);
  proto.lines.resize(written_);
}

// A forward jump's target becomes a label here, before the pass gets there; a backward
// jump's must have been one from the start.
std::size_t InstructionFuser::targetOf(std::size_t at, std::size_t length, JumpOperand jump) {
  std::size_t offset = u16At(proto_->code, at + static_cast<std::size_t>(jump.at));
  std::size_t target = jump.backward ? at + length - offset : at + length + offset;
  assert(target < isLabel_.size());
  assert(!jump.backward || target == 0 || isLabel_[target]);
  isLabel_[target] = 1;
  return target;
}

void InstructionFuser::flush() {
  std::size_t count = reading_ - moveFrom_;
  if (moveTo_ != moveFrom_ && count) {
    std::memmove(&proto_->code[moveTo_], &proto_->code[moveFrom_], count);
    std::memmove(&proto_->lines[moveTo_], &proto_->lines[moveFrom_], count * sizeof(int));
  }
  moveFrom_ = reading_;
  moveTo_ += count;
}

void InstructionFuser::append(std::uint8_t byte, int line) {
  proto_->code[written_] = byte;
  proto_->lines[written_] = line;
  ++written_;
}

void InstructionFuser::retag(Op fused) {
  flush();
  emitted_.back().op = fused;
  proto_->code[emitted_.back().at] = static_cast<std::uint8_t>(fused);
}

bool InstructionFuser::fuseWithLast(std::size_t at, Op op) {
  const Emitted& last = emitted_.back();
  switch (op) {
    case Op::GET_LOCAL:
      if (last.op != Op::GET_LOCAL) return false;
      retag(Op::GET_LOCAL2);
      append(proto_->code[at + 1], proto_->lines[at + 1]);
      return true;
    case Op::GET_PROPERTY: return fuseLocalProperty(at);
    case Op::RETURN: return fuseReturn(at);
    case Op::GET_INDEX: return fuseLocalIndex(at);
    case Op::ADD: case Op::SUBTRACT: case Op::MULTIPLY:
      for (const ArithmeticFusion& f : kArithmetic) {
        if (f.op != op) continue;
        if (last.op == Op::GET_LOCAL2) retag(f.bothLocals);
        else if (last.op == Op::GET_LOCAL) fuseLocalOperand(f.rightLocal);
        else if (last.op == Op::SMALL_INT && f.smallInt != Op::COUNT_) fuseSmallIntOperand(f.smallInt);
        else return false;
        return true;
      }
      return false;
    case Op::POP:
      for (auto [store, storePop] : kStorePop) {
        if (last.op != store) continue;
        retag(storePop);
        if (storePop == Op::SET_LOCAL_POP) fuseLocalStore(proto_->lines[at]);
        return true;
      }
      return fusePops(at);
    // A test of a constant that never jumps goes, with the constant (`while (true)`).
    case Op::POP_JUMP_IF_FALSE: return dropLastIf(Op::TRUE) || fuseConditionalJump(at, kJumpUnless);
    case Op::LOOP_IF_TRUE: return dropLastIf(Op::FALSE) || fuseConditionalJump(at, kLoopIf);
    default: return false;
  }
}

bool InstructionFuser::fuseLocalProperty(std::size_t at) {
  const Op last = emitted_.back().op;
  const std::size_t length = lengthAt(*proto_, at);  // before the rewritten code may reach `at`
  if (last == Op::GET_LOCAL2) retag(Op::GET_LOCAL_LOCAL_PROPERTY);
  else if (last == Op::GET_LOCAL) retag(Op::GET_LOCAL_PROPERTY);
  else return false;
  for (std::size_t i = 1; i < length; ++i) append(proto_->code[at + i], proto_->lines[at + i]);
  return true;
}

// GET_LOCAL x then ADD, SUBTRACT or MULTIPLY: ADD_L x (SUB_L, MUL_L); CONSTANT k; MUL_L x:
// MUL_KL k x, whose operands keep their lines.
void InstructionFuser::fuseLocalOperand(Op withLocal) {
  retag(withLocal);
  std::size_t n = emitted_.size();
  const Emitted local = emitted_[n - 1];
  if (withLocal != Op::MUL_L || local.atLabel || n < 2 || emitted_[n - 2].op != Op::CONSTANT) return;
  const Emitted constant = emitted_[n - 2];
  auto& code = proto_->code;
  auto& lines = proto_->lines;
  const std::uint8_t bytes[] = {code[constant.at + 1], code[constant.at + 2], code[local.at + 1]};
  const int byteLines[] = {lines[constant.at + 1], lines[constant.at + 2], lines[local.at + 1]};
  emitted_.resize(n - 2);
  emitted_.push_back({constant.at, Op::MUL_KL, constant.atLabel});
  written_ = constant.at;
  append(static_cast<std::uint8_t>(Op::MUL_KL), lines[constant.at]);
  for (std::size_t i = 0; i < 3; ++i) append(bytes[i], byteLines[i]);
}

// SMALL_INT n then ADD or SUBTRACT: ADD_SMALL n (SUB_SMALL); after GET_LOCAL x, ADD_LS x n
// (SUB_LS), whose operands keep their lines.
void InstructionFuser::fuseSmallIntOperand(Op withSmallInt) {
  retag(withSmallInt);
  std::size_t n = emitted_.size();
  const Emitted small = emitted_[n - 1];
  if (small.atLabel || n < 2 || emitted_[n - 2].op != Op::GET_LOCAL) return;
  const Emitted get = emitted_[n - 2];
  auto& code = proto_->code;
  auto& lines = proto_->lines;
  const std::uint8_t bytes[] = {code[get.at + 1], code[small.at + 1], code[small.at + 2]};
  const int byteLines[] = {lines[get.at + 1], lines[small.at + 1], lines[small.at + 2]};
  Op fused = withSmallInt == Op::ADD_SMALL ? Op::ADD_LS : Op::SUB_LS;
  emitted_.resize(n - 2);
  emitted_.push_back({get.at, fused, get.atLabel});
  written_ = get.at;
  append(static_cast<std::uint8_t>(fused), lines[get.at]);
  for (std::size_t i = 0; i < 3; ++i) append(bytes[i], byteLines[i]);
}

// GET_LOCAL i; GET_INDEX: GET_INDEX_L i; GET_LOCAL2 a i; GET_INDEX: GET_INDEX_LL a i. The
// last byte takes GET_INDEX's line (a trace names the line of the last byte read).
bool InstructionFuser::fuseLocalIndex(std::size_t at) {
  Op last = emitted_.back().op;
  if (last != Op::GET_LOCAL && last != Op::GET_LOCAL2) return false;
  retag(last == Op::GET_LOCAL ? Op::GET_INDEX_L : Op::GET_INDEX_LL);
  proto_->lines[written_ - 1] = proto_->lines[at];
  return true;
}

// NIL; RETURN and GET_LOCAL; RETURN: one instruction, whose last byte takes the RETURN's
// line (a step limit's trace names the line of the last byte read).
bool InstructionFuser::fuseReturn(std::size_t at) {
  Op last = emitted_.back().op;
  if (last != Op::NIL && last != Op::GET_LOCAL) return false;
  retag(last == Op::NIL ? Op::RETURN_NIL : Op::RETURN_LOCAL);
  proto_->lines[written_ - 1] = proto_->lines[at];
  return true;
}

// POP after POP: POP_N 2; after POP_N n (n below 255): POP_N n + 1, the same length.
bool InstructionFuser::fusePops(std::size_t at) {
  const Emitted& last = emitted_.back();
  if (last.op == Op::POP) {
    retag(Op::POP_N);
    append(2, proto_->lines[at]);
    return true;
  }
  if (last.op != Op::POP_N || proto_->code[last.at + 1] == 255) return false;
  flush();
  ++proto_->code[last.at + 1];
  return true;
}

bool InstructionFuser::dropLastIf(Op op) {
  if (emitted_.back().op != op) return false;
  flush();
  written_ = emitted_.back().at;
  emitted_.pop_back();
  return true;
}

bool InstructionFuser::fuseConditionalJump(std::size_t at, std::span<const std::pair<Op, Op>> fusions) {
  for (auto [compare, fused] : fusions) {
    if (emitted_.back().op != compare) continue;
    retag(fused);
    std::size_t length = lengthAt(*proto_, at);
    jumps_.push_back({emitted_.back().at, targetOf(at, length, jumpOperand(static_cast<Op>(proto_->code[at])))});
    for (std::size_t i = 1; i < length; ++i) append(proto_->code[at + i], proto_->lines[at + i]);
    fuseJumpOperands();
    return true;
  }
  return false;
}

void InstructionFuser::fuseJumpOperands() {
  std::size_t n = emitted_.size();
  const Emitted& jump = emitted_[n - 1];
  if (jump.atLabel || n < 2) return;
  const OperandJump* fusion = nullptr;
  for (const OperandJump& f : kOperandJumps)
    if (f.jump == jump.op) fusion = &f;
  if (!fusion) return;
  const auto& code = proto_->code;
  const auto& lines = proto_->lines;
  const Emitted& before = emitted_[n - 2];
  // The operands' bytes, with their lines, then the jump's offset.
  std::uint8_t bytes[5];
  int byteLines[5];
  std::size_t count = 0, replaced;
  auto take = [&](std::size_t at) {
    bytes[count] = code[at];
    byteLines[count++] = lines[at];
  };
  Op fused;
  bool localBefore = n >= 3 && !before.atLabel && emitted_[n - 3].op == Op::GET_LOCAL;
  if (before.op == Op::NIL && fusion->nil != kNone) {
    if (localBefore) take(emitted_[n - 3].at + 1);
    fused = localBefore ? fusion->localAndNil : fusion->nil;
    replaced = localBefore ? 3 : 2;
  } else if (before.op == Op::GET_LOCAL2 && fusion->locals != kNone) {
    take(before.at + 1);
    take(before.at + 2);
    fused = fusion->locals;
    replaced = 2;
  } else if (before.op == Op::CONSTANT && fusion->constant != kNone) {
    take(before.at + 1);
    take(before.at + 2);
    fused = fusion->constant;
    replaced = 2;
  } else if (before.op == Op::SMALL_INT && localBefore && fusion->localAndSmallInt != kNone) {
    take(emitted_[n - 3].at + 1);
    take(before.at + 1);
    take(before.at + 2);
    fused = fusion->localAndSmallInt;
    replaced = 3;
  } else {
    return;
  }
  take(jump.at + 1);
  take(jump.at + 2);
  Emitted first = emitted_[n - replaced];
  int line = lines[first.at];
  emitted_.resize(n - replaced);
  written_ = first.at;
  emitted_.push_back({first.at, fused, first.atLabel});
  jumps_.back().at = first.at;
  append(static_cast<std::uint8_t>(fused), line);
  for (std::size_t i = 0; i < count; ++i) append(bytes[i], byteLines[i]);
}

void InstructionFuser::fuseLocalStore(int line) {
  std::size_t n = emitted_.size();
  const Emitted& store = emitted_[n - 1];
  if (store.atLabel || n < 2) return;
  const auto& code = proto_->code;
  std::uint8_t target = code[store.at + 1];
  const Emitted& arithmetic = emitted_[n - 2];
  if ((arithmetic.op == Op::ADD_LS || arithmetic.op == Op::SUB_LS) && code[arithmetic.at + 1] == target) {
    const std::uint8_t operands[] = {target, code[arithmetic.at + 2], code[arithmetic.at + 3]};
    replaceTail(2, arithmetic.op == Op::ADD_LS ? Op::ADD_LOCAL_SMALL : Op::SUB_LOCAL_SMALL, operands, line);
    return;
  }
  if (arithmetic.op == Op::GET_LOCAL_PROPERTY) {  // the target's byte is read last: GET_PROPERTY's line
    const std::uint8_t operands[] = {code[arithmetic.at + 1], code[arithmetic.at + 2], code[arithmetic.at + 3],
                                     code[arithmetic.at + 4], code[arithmetic.at + 5], target};
    int propertyLine = proto_->lines[arithmetic.at + 5];
    replaceTail(2, Op::GET_LOCAL_PROPERTY_TO, operands, line);
    proto_->lines[written_ - 1] = propertyLine;
    return;
  }
  for (auto [plain, storing] : kArithmeticStore) {
    if (arithmetic.op != plain) continue;
    const auto count = static_cast<std::size_t>(operandBytes(plain));
    std::uint8_t operands[3];
    for (std::size_t i = 0; i < count; ++i) operands[i] = code[arithmetic.at + 1 + i];
    operands[count] = target;
    replaceTail(2, storing, std::span<const std::uint8_t>(operands, count + 1), line);
    return;
  }
}

void InstructionFuser::replaceTail(std::size_t count, Op op, std::span<const std::uint8_t> operands, int line) {
  Emitted first = emitted_[emitted_.size() - count];
  emitted_.resize(emitted_.size() - count);
  written_ = first.at;
  emitted_.push_back({first.at, op, first.atLabel});
  append(static_cast<std::uint8_t>(op), line);
  for (std::uint8_t b : operands) append(b, line);
}

void InstructionFuser::patch(const Jump& jump) {
  auto& code = proto_->code;
  auto op = static_cast<Op>(code[jump.at]);
  JumpOperand operand = jumpOperand(op);
  std::size_t end = jump.at + 1 + static_cast<std::size_t>(operandBytes(op));
  std::size_t target = newOffset_[jump.target];
  std::size_t offset = operand.backward ? end - target : target - end;
  assert(offset <= 0xffff);  // fusing only ever shortens a jump
  std::size_t at = jump.at + static_cast<std::size_t>(operand.at);
  code[at] = static_cast<std::uint8_t>(offset & 0xff);
  code[at + 1] = static_cast<std::uint8_t>((offset >> 8) & 0xff);
}

std::size_t instructionLength(const FunctionProto& proto, std::size_t at) { return lengthAt(proto, at); }

void fuseInstructions(FunctionProto& proto, std::span<const int> labels) { InstructionFuser().fuse(proto, labels); }

}  // namespace kith::vm
