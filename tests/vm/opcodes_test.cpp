// The opcode table (vm/opcodes.h): every row's operand kinds agree with its byte count,
// and every jump is found by what is derived from the kinds — the fuser's remapping and
// the disassembler's targets read nothing else, so a jump declared wrongly would run
// to the wrong place after fusion.
#include "vm/opcodes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vm/disassembler.h"
#include "vm/object.h"
#include "vm/peephole.h"
#include "vm_test_support.h"

namespace kith::vm {
namespace {

// What is wrong with a row ("" when nothing): its kinds' sizes must sum to its byte
// count; an opcode named as a jump (...JUMP..., LOOP..., and TRY, FOR_IN) must have a
// jump operand, backward for LOOP..., and no other opcode may; the jump's offset must
// be the last operand (it counts from the instruction's end).
std::string problemWith(const OpInfo& row) {
  std::string_view name = row.name;
  if (row.format.bytes() != row.operandBytes)
    return "its operands take " + std::to_string(row.format.bytes()) + " bytes, not " + std::to_string(row.operandBytes);
  bool namedJump = name.find("JUMP") != std::string_view::npos || name.starts_with("LOOP") || name == "TRY" || name == "FOR_IN";
  JumpOperand jump = jumpOperandOf(row.format);
  if (namedJump != (jump.at != 0)) return namedJump ? "a jump without a jump operand" : "a jump operand in no jump";
  if (!jump.at) return "";
  if (jump.backward != name.starts_with("LOOP")) return "its jump counts the wrong way";
  if (jump.at + 2 != 1 + row.operandBytes) return "its jump offset is not the last operand";
  int jumps = 0;
  for (int i = 0; i < row.format.count; ++i) jumps += isJump(row.format.kinds[i]) ? 1 : 0;
  return jumps == 1 ? "" : "more than one jump operand";
}

TEST(OpTable, EveryRowsFormatAgreesWithItsByteCountAndName) {
  static_assert(static_cast<int>(std::size(kOpInfo)) == kOpCount);
  for (const OpInfo& row : kOpInfo) EXPECT_EQ(problemWith(row), "") << row.name;
}

// The check above fails for a row that declares its jump wrongly.
TEST(OpTable, AMisdeclaredJumpIsCaught) {
  using enum Operand;
  EXPECT_EQ(problemWith({"JUMP", 2, 0, OpFormat{count}}), "a jump without a jump operand");
  EXPECT_EQ(problemWith({"LOOP_IF_LESS", 2, -2, OpFormat{forwardJump}}), "its jump counts the wrong way");
  EXPECT_EQ(problemWith({"FOR_IN", 3, 1, OpFormat{exitJump, iterator}}), "its jump offset is not the last operand");
  EXPECT_EQ(problemWith({"TRY", 3, 0, OpFormat{forwardJump}}), "its operands take 2 bytes, not 3");
  EXPECT_EQ(problemWith({"ARRAY", 2, 1, OpFormat{backwardJump}}), "a jump operand in no jump");
}

// `op` with zero operands but its jump's offset.
std::vector<std::uint8_t> instruction(Op op, std::uint16_t offset) {
  std::vector<std::uint8_t> code(1 + static_cast<std::size_t>(opInfo(op).operandBytes), 0);
  code[0] = static_cast<std::uint8_t>(op);
  auto at = static_cast<std::size_t>(jumpOperand(op).at);
  code[at] = static_cast<std::uint8_t>(offset & 0xff);
  code[at + 1] = static_cast<std::uint8_t>(offset >> 8);
  return code;
}

std::size_t offsetOf(const std::vector<std::uint8_t>& code, std::size_t at) {
  auto operand = at + static_cast<std::size_t>(jumpOperand(static_cast<Op>(code[at])).at);
  return static_cast<std::size_t>(code[operand] | (code[operand + 1] << 8));
}

FunctionProto functionOf(std::vector<std::uint8_t> code) {
  FunctionProto proto;
  proto.code = std::move(code);
  proto.lines.assign(proto.code.size(), 1);
  return proto;
}

// Each jump over two GET_LOCALs (fused into one GET_LOCAL2, a byte shorter) still
// lands on its target; the listing shows the target.
TEST(OpTable, EveryJumpIsRemappedByTheFuserAndListedWithItsTarget) {
  testing::TestVM t;
  const std::vector<std::uint8_t> locals = {static_cast<std::uint8_t>(Op::GET_LOCAL), 1,
                                            static_cast<std::uint8_t>(Op::GET_LOCAL), 2};
  int tested = 0;
  for (int i = 0; i < kOpCount; ++i) {
    auto op = static_cast<Op>(i);
    JumpOperand jump = jumpOperand(op);
    if (!jump.at) continue;
    ++tested;
    // Forward: the jump, the locals, its target NIL. Backward: the locals, then the jump back to them.
    std::size_t length = 1 + static_cast<std::size_t>(opInfo(op).operandBytes);
    std::vector<std::uint8_t> jumping = instruction(op, static_cast<std::uint16_t>(jump.backward ? 4 + length : 4));
    std::vector<std::uint8_t> code = jump.backward ? locals : jumping;
    const std::vector<std::uint8_t>& then = jump.backward ? jumping : locals;
    code.insert(code.end(), then.begin(), then.end());
    code.push_back(static_cast<std::uint8_t>(Op::NIL));
    code.push_back(static_cast<std::uint8_t>(Op::RETURN));
    FunctionProto p = functionOf(code);
    p.constants.push_back(Value::nil());  // a constant operand (JUMP_UNLESS_LESS_K ...) names constant 0
    const int labels[] = {0};
    fuseInstructions(p, labels);
    std::size_t fusedAt = jump.backward ? 3 : 0;
    EXPECT_EQ(offsetOf(p.code, fusedAt), jump.backward ? 3 + length : 3) << opInfo(op).name;
    std::size_t next;
    std::string line = disassembleInstruction(t.vm(), p, fusedAt, next);
    EXPECT_TRUE(line.ends_with("-> " + std::to_string(jump.backward ? 0 : length + 3))) << line;
    EXPECT_EQ(next, fusedAt + length);
  }
  EXPECT_GT(tested, 0);
}

// A copied loop test gets caches of its own: renewal finds every cache operand.
TEST(OpTable, CacheOperandsAreWhereTheFormatSays) {
  EXPECT_EQ(cacheOperand(Op::GET_PROPERTY), 3);
  EXPECT_EQ(cacheOperand(Op::SET_PROPERTY), 3);
  EXPECT_EQ(cacheOperand(Op::INVOKE), 4);
  EXPECT_EQ(cacheOperand(Op::GET_SUPER), 0);
}

}  // namespace
}  // namespace kith::vm
