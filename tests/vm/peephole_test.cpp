#include "vm/peephole.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "vm/object.h"
#include "vm/opcodes.h"

namespace kith::vm {
namespace {

std::uint8_t op(Op o) { return static_cast<std::uint8_t>(o); }

// A function of `code` whose byte i comes from source line 100 + i.
FunctionProto functionOf(std::initializer_list<std::uint8_t> code) {
  FunctionProto proto;
  proto.code = code;
  for (std::size_t i = 0; i < proto.code.size(); ++i) proto.lines.push_back(100 + static_cast<int>(i));
  return proto;
}

TEST(Peephole, FusesAComparisonWithItsJumpAndShortensTheJump) {
  FunctionProto p = functionOf({op(Op::GET_GLOBAL), 1, 0, op(Op::GET_LOCAL), 2, op(Op::LESS),
                                op(Op::POP_JUMP_IF_FALSE), 4, 0,  // to the RETURN at 13
                                op(Op::GET_LOCAL), 1, op(Op::POP), op(Op::NIL), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::GET_GLOBAL), 1, 0, op(Op::GET_LOCAL), 2,
                                               op(Op::JUMP_UNLESS_LESS), 4, 0, op(Op::GET_LOCAL), 1, op(Op::POP),
                                               op(Op::NIL), op(Op::RETURN)}));
  // A fused opcode keeps its first part's line; operands keep their own.
  EXPECT_EQ(p.lines, (std::vector<int>{100, 101, 102, 103, 104, 105, 107, 108, 109, 110, 111, 112, 113}));
}

TEST(Peephole, NothingFusesAcrossAJumpTargetOrALabel) {
  FunctionProto jumpedInto = functionOf({op(Op::TRUE), op(Op::JUMP_IF_FALSE), 2, 0,  // to the second GET_LOCAL
                                         op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::POP)});
  std::vector<std::uint8_t> before = jumpedInto.code;
  fuseInstructions(jumpedInto, {});
  EXPECT_EQ(jumpedInto.code, before);

  FunctionProto labelled = functionOf({op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::POP)});
  before = labelled.code;
  const int labels[] = {2};
  fuseInstructions(labelled, labels);
  EXPECT_EQ(labelled.code, before);
  fuseInstructions(labelled, {});
  EXPECT_EQ(labelled.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL2), 1, 2, op(Op::POP)}));
}

TEST(Peephole, LoopsBackOverFusedCode) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::ADD), op(Op::SET_LOCAL), 1,
                                op(Op::POP),                                          // c = a + b;
                                op(Op::GET_LOCAL), 1, op(Op::SMALL_INT), 10, 0, op(Op::LESS),
                                op(Op::LOOP_IF_TRUE), 17, 0,                          // back to 0
                                op(Op::NIL), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::ADD_LL_TO), 1, 2, 1, op(Op::LOOP_IF_LESS_LI), 1, 10, 0, 10, 0,
                                               op(Op::RETURN_NIL)}));
  // A three-address instruction takes its statement's line (the POP's) throughout.
  EXPECT_EQ(std::vector<int>(p.lines.begin(), p.lines.begin() + 4), (std::vector<int>{107, 107, 107, 107}));
}

TEST(Peephole, LocalIncrementNeedsTheSameLocal) {
  FunctionProto same = functionOf({op(Op::GET_LOCAL), 3, op(Op::SMALL_INT), 1, 0, op(Op::ADD), op(Op::SET_LOCAL), 3,
                                   op(Op::POP), op(Op::RETURN)});
  fuseInstructions(same, {});
  EXPECT_EQ(same.code, (std::vector<std::uint8_t>{op(Op::ADD_LOCAL_SMALL), 3, 1, 0, op(Op::RETURN)}));
  FunctionProto other = functionOf({op(Op::GET_LOCAL), 3, op(Op::SMALL_INT), 1, 0, op(Op::ADD), op(Op::SET_LOCAL), 4,
                                    op(Op::POP), op(Op::RETURN)});
  fuseInstructions(other, {});
  EXPECT_EQ(other.code, (std::vector<std::uint8_t>{op(Op::ADD_LS), 3, 1, 0, op(Op::SET_LOCAL_POP), 4, op(Op::RETURN)}));
}

// A property of a local: one instruction with GET_PROPERTY's operands and their lines;
// after two local reads one too, which pushes the first local and the second's property.
TEST(Peephole, APropertyOfALocalIsOneInstruction) {
  FunctionProto one = functionOf({op(Op::GET_LOCAL), 3, op(Op::GET_PROPERTY), 7, 0, 2, 0, op(Op::RETURN)});
  fuseInstructions(one, {});
  EXPECT_EQ(one.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL_PROPERTY), 3, 7, 0, 2, 0, op(Op::RETURN)}));
  EXPECT_EQ(one.lines, (std::vector<int>{100, 101, 103, 104, 105, 106, 107}));
  FunctionProto two = functionOf({op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 3, op(Op::GET_PROPERTY), 7, 0, 2, 0,
                                  op(Op::ADD), op(Op::RETURN)});
  fuseInstructions(two, {});
  EXPECT_EQ(two.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL_LOCAL_PROPERTY), 1, 3, 7, 0, 2, 0, op(Op::ADD),
                                                 op(Op::RETURN)}));
  EXPECT_EQ(two.lines, (std::vector<int>{100, 101, 103, 105, 106, 107, 108, 109, 110}));
  FunctionProto computed = functionOf({op(Op::GET_GLOBAL), 1, 0, op(Op::GET_PROPERTY), 7, 0, 2, 0, op(Op::RETURN)});
  std::vector<std::uint8_t> before = computed.code;
  fuseInstructions(computed, {});
  EXPECT_EQ(computed.code, before);
}

// A compare-and-jump takes its operands in: two locals, or a local and a small int; the
// jump is remapped (a loop's back to its start), and other operands are left as they were.
TEST(Peephole, ACompareAndJumpTakesLocalAndSmallIntOperands) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::LESS),
                                op(Op::POP_JUMP_IF_FALSE), 9, 0,                            // to the NIL at 17
                                op(Op::GET_LOCAL), 1, op(Op::SMALL_INT), 0xfe, 0xff, op(Op::GREATER_EQUAL),
                                op(Op::LOOP_IF_TRUE), 17, 0,                                // back to 0
                                op(Op::NIL), op(Op::RETURN)});
  const int labels[] = {0};
  fuseInstructions(p, labels);
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::JUMP_UNLESS_LESS_LL), 1, 2, 6, 0,
                                               op(Op::LOOP_IF_GREATER_EQUAL_LI), 1, 0xfe, 0xff, 11, 0,
                                               op(Op::RETURN_NIL)}));
  // The opcode takes the first part's line; the operands and the offset keep theirs.
  EXPECT_EQ(p.lines, (std::vector<int>{100, 101, 103, 106, 107, 108, 109, 111, 112, 115, 116, 118}));
  FunctionProto computed = functionOf({op(Op::GET_LOCAL), 1, op(Op::CONSTANT), 0, 0, op(Op::EQUAL),
                                       op(Op::POP_JUMP_IF_FALSE), 0, 0, op(Op::SMALL_INT), 1, 0, op(Op::GET_LOCAL), 1,
                                       op(Op::LESS), op(Op::POP_JUMP_IF_FALSE), 0, 0, op(Op::RETURN)});
  fuseInstructions(computed, {});
  EXPECT_EQ(computed.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL), 1, op(Op::CONSTANT), 0, 0,
                                                      op(Op::JUMP_UNLESS_EQUAL), 0, 0, op(Op::SMALL_INT), 1, 0,
                                                      op(Op::GET_LOCAL), 1, op(Op::JUMP_UNLESS_LESS), 0, 0,
                                                      op(Op::RETURN)}));
}

// A test against nil is one instruction, of a local's value (_L) or of the top's; a loop's
// bottom test `a != b` fuses as its other comparisons do.
TEST(Peephole, TestsAgainstNilAreOneInstruction) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 1, op(Op::NIL), op(Op::EQUAL),
                                op(Op::POP_JUMP_IF_FALSE), 8, 0,                 // to the RETURN at 15
                                op(Op::GET_GLOBAL), 1, 0, op(Op::NIL), op(Op::NOT_EQUAL),
                                op(Op::LOOP_IF_TRUE), 15, 0,                      // back to 0
                                op(Op::RETURN)});
  const int labels[] = {0};
  fuseInstructions(p, labels);
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::JUMP_UNLESS_NIL_L), 1, 6, 0, op(Op::GET_GLOBAL), 1, 0,
                                               op(Op::LOOP_UNLESS_NIL), 10, 0, op(Op::RETURN)}));
  FunctionProto q = functionOf({op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::NOT_EQUAL),
                                op(Op::LOOP_IF_TRUE), 8, 0, op(Op::RETURN)});
  fuseInstructions(q, labels);
  EXPECT_EQ(q.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL2), 1, 2, op(Op::LOOP_IF_NOT_EQUAL), 6, 0,
                                               op(Op::RETURN)}));
}

// POPs in a row are one POP_N, of at most 255; a POP a jump lands on starts a new one.
TEST(Peephole, PopsInARowAreOneInstruction) {
  FunctionProto p;
  p.code.assign(257, op(Op::POP));
  p.code.push_back(op(Op::RETURN));
  p.lines.assign(p.code.size(), 1);
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::POP_N), 255, op(Op::POP_N), 2, op(Op::RETURN)}));
  FunctionProto q = functionOf({op(Op::TRUE), op(Op::JUMP_IF_FALSE), 2, 0,  // to the third POP
                                op(Op::POP), op(Op::POP), op(Op::POP), op(Op::POP), op(Op::RETURN)});
  fuseInstructions(q, {});
  EXPECT_EQ(q.code, (std::vector<std::uint8_t>{op(Op::TRUE), op(Op::JUMP_IF_FALSE), 2, 0, op(Op::POP_N), 2,
                                               op(Op::POP_N), 2, op(Op::RETURN)}));
}

// NIL; RETURN and GET_LOCAL; RETURN are one instruction, its last byte on the RETURN's
// line; not when a jump lands on the RETURN.
TEST(Peephole, ReturnsOfNilAndOfALocalAreOneInstruction) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 2, op(Op::RETURN), op(Op::NIL), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::RETURN_LOCAL), 2, op(Op::RETURN_NIL)}));
  EXPECT_EQ(p.lines, (std::vector<int>{100, 102, 104}));
  FunctionProto q = functionOf({op(Op::TRUE), op(Op::JUMP_IF_FALSE), 1, 0,  // to the RETURN
                                op(Op::NIL), op(Op::RETURN)});
  std::vector<std::uint8_t> before = q.code;
  fuseInstructions(q, {});
  EXPECT_EQ(q.code, before);
}

// `c = o.f;` on locals is one instruction, whose target byte keeps the property's line;
// `x = x - n;` is one too.
TEST(Peephole, StoresOfAPropertyOrADecrementToALocalAreOneInstruction) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 3, op(Op::GET_PROPERTY), 7, 0, 2, 0, op(Op::SET_LOCAL), 4,
                                op(Op::POP), op(Op::GET_LOCAL), 4, op(Op::SMALL_INT), 1, 0, op(Op::SUBTRACT),
                                op(Op::SET_LOCAL), 4, op(Op::POP), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL_PROPERTY_TO), 3, 7, 0, 2, 0, 4,
                                               op(Op::SUB_LOCAL_SMALL), 4, 1, 0, op(Op::RETURN)}));
  EXPECT_EQ(p.lines, (std::vector<int>{109, 109, 109, 109, 109, 109, 106, 118, 118, 118, 118, 119}));
  FunctionProto q = functionOf({op(Op::GET_LOCAL), 4, op(Op::SMALL_INT), 0xff, 0xff, op(Op::ADD), op(Op::RETURN)});
  fuseInstructions(q, {});
  EXPECT_EQ(q.code, (std::vector<std::uint8_t>{op(Op::ADD_LS), 4, 0xff, 0xff, op(Op::RETURN)}));
  EXPECT_EQ(q.lines, (std::vector<int>{100, 101, 103, 104, 106}));
}

// An element at a local index is one instruction, and with the array in a local too;
// the last byte keeps GET_INDEX's line.
TEST(Peephole, AnElementAtALocalIndexIsOneInstruction) {
  FunctionProto p = functionOf({op(Op::GET_GLOBAL), 1, 0, op(Op::GET_LOCAL), 2, op(Op::GET_INDEX), op(Op::GET_LOCAL),
                                1, op(Op::GET_LOCAL), 2, op(Op::GET_INDEX), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::GET_GLOBAL), 1, 0, op(Op::GET_INDEX_L), 2, op(Op::GET_INDEX_LL),
                                               1, 2, op(Op::RETURN)}));
  EXPECT_EQ(p.lines, (std::vector<int>{100, 101, 102, 103, 105, 106, 107, 110, 111}));
}

// A condition that is a local's value is one instruction at the top and at the bottom.
TEST(Peephole, TestsOfALocalsTruthAreOneInstruction) {
  FunctionProto p = functionOf({op(Op::GET_LOCAL), 1, op(Op::POP_JUMP_IF_FALSE), 5, 0,  // to the RETURN at 10
                                op(Op::GET_LOCAL), 2, op(Op::LOOP_IF_TRUE), 10, 0,       // back to 0
                                op(Op::RETURN)});
  const int labels[] = {0};
  fuseInstructions(p, labels);
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::JUMP_IF_FALSE_L), 1, 4, 0, op(Op::LOOP_IF_TRUE_L), 2, 8, 0,
                                               op(Op::RETURN)}));
}

// A constant before a comparison's jump, or before MUL_L, goes into the instruction.
TEST(Peephole, ConstantOperandsGoIntoTheInstruction) {
  FunctionProto p = functionOf({op(Op::GET_GLOBAL), 1, 0, op(Op::CONSTANT), 2, 0, op(Op::GREATER),
                                op(Op::POP_JUMP_IF_FALSE), 7, 0,  // to the RETURN at 17
                                op(Op::CONSTANT), 3, 0, op(Op::GET_LOCAL), 4, op(Op::MULTIPLY), op(Op::POP),
                                op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::GET_GLOBAL), 1, 0, op(Op::JUMP_UNLESS_GREATER_K), 2, 0, 5, 0,
                                               op(Op::MUL_KL), 3, 0, 4, op(Op::POP), op(Op::RETURN)}));
}

// `while (true)`: the top test never jumps, so it goes; the bottom test always loops.
TEST(Peephole, TestsOfConstantsFold) {
  FunctionProto p = functionOf({op(Op::TRUE), op(Op::POP_JUMP_IF_FALSE), 11, 0,  // to the NIL at 15
                                op(Op::GET_LOCAL), 1, op(Op::POP),                 // the body, at 4
                                op(Op::TRUE), op(Op::LOOP_IF_TRUE), 7, 0,          // back to 4
                                op(Op::FALSE), op(Op::POP_JUMP_IF_FALSE), 0, 0,    // if (false): to the NIL
                                op(Op::NIL), op(Op::RETURN)});
  const int labels[] = {0, 4};
  fuseInstructions(p, labels);
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::GET_LOCAL), 1, op(Op::POP), op(Op::LOOP), 6, 0, op(Op::JUMP),
                                               0, 0, op(Op::RETURN_NIL)}));
}

TEST(Peephole, ForInExitsAndTryHandlersAreRemapped) {
  FunctionProto p = functionOf({op(Op::TRY), 6, 0,  // to the NIL at 9
                                op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::END_TRY), op(Op::POP),
                                op(Op::NIL), op(Op::RETURN)});
  fuseInstructions(p, {});
  EXPECT_EQ(p.code, (std::vector<std::uint8_t>{op(Op::TRY), 5, 0, op(Op::GET_LOCAL2), 1, 2, op(Op::END_TRY),
                                               op(Op::POP), op(Op::RETURN_NIL)}));
  FunctionProto loop = functionOf({op(Op::FOR_IN), 1, 8, 0,  // exit to the NIL at 12
                                   op(Op::GET_LOCAL), 1, op(Op::GET_LOCAL), 2, op(Op::POP), op(Op::LOOP), 12, 0,
                                   op(Op::NIL), op(Op::RETURN)});
  fuseInstructions(loop, {});
  EXPECT_EQ(loop.code, (std::vector<std::uint8_t>{op(Op::FOR_IN), 1, 7, 0, op(Op::GET_LOCAL2), 1, 2, op(Op::POP),
                                                  op(Op::LOOP), 11, 0, op(Op::RETURN_NIL)}));
}

}  // namespace
}  // namespace kith::vm
