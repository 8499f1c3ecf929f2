#include "vm/compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vm/disassembler.h"
#include "vm/object.h"
#include "vm/opcodes.h"
#include "vm/peephole.h"
#include "vm_test_support.h"

namespace kith::vm {
namespace {

// The opcodes of `proto`, in order (operands skipped).
std::vector<Op> opcodes(const FunctionProto& proto) {
  std::vector<Op> ops;
  for (std::size_t at = 0; at < proto.code.size(); at += instructionLength(proto, at))
    ops.push_back(static_cast<Op>(proto.code[at]));
  return ops;
}

class CompilerTest : public ::testing::Test {
 protected:
  FunctionProto* compileOk(std::string_view source) {
    CompileResult r = compile(t_.vm(), source, "t.kith");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors.front());
    return r.script;
  }
  std::vector<std::string> errorsOf(std::string_view source) { return compile(t_.vm(), source, "t.kith").errors; }
  testing::TestVM t_;
};

TEST_F(CompilerTest, ArithmeticExpressionStatement) {
  FunctionProto* p = compileOk("1 + 2 * 3;");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::SMALL_INT, Op::SMALL_INT, Op::SMALL_INT, Op::MULTIPLY, Op::ADD, Op::POP,
                                          Op::RETURN_NIL}));
  EXPECT_EQ(p->maxStack, 4 + 2);  // slot 0 + three operands, plus the natives' headroom
}

TEST_F(CompilerTest, LargeIntegersAndFloatsAreConstants) {
  FunctionProto* p = compileOk("100000; 2.5; \"s\";");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::CONSTANT, Op::POP, Op::CONSTANT, Op::POP, Op::CONSTANT, Op::POP,
                                          Op::RETURN_NIL}));
  ASSERT_EQ(p->constants.size(), 3u);
  EXPECT_EQ(p->constants[0].asInt(), 100000);
  EXPECT_EQ(p->constants[1].asFloat(), 2.5);
  EXPECT_EQ(t_.vm().stringView(p->constants[2]), "s");
}

TEST_F(CompilerTest, GlobalsAndLocals) {
  FunctionProto* p = compileOk("let g = 1; { let l = g; l = 2; }");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::SMALL_INT, Op::DEFINE_GLOBAL, Op::GET_GLOBAL, Op::SMALL_INT,
                                          Op::SET_LOCAL_POP, Op::POP, Op::RETURN_NIL}));
}

// Two GET_LOCALs in a row are one GET_LOCAL2, but not across a loop's start (the
// backward jump lands between them); a condition's two locals go into its jump.
TEST_F(CompilerTest, PairsOfLocalReadsFuseUnlessALoopStartsBetween) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; a < b; }");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::SMALL_INT, Op::SMALL_INT, Op::GET_LOCAL2, Op::LESS, Op::POP_N,
                                          Op::RETURN_NIL}));
  FunctionProto* q = compileOk("{ let a = 1; let b = a; while (b < a) { b = b + 1; } }");
  EXPECT_EQ(opcodes(*q), (std::vector<Op>{Op::SMALL_INT, Op::GET_LOCAL, Op::JUMP_UNLESS_LESS_LL, Op::ADD_LOCAL_SMALL,
                                          Op::LOOP_IF_LESS_LL, Op::POP_N, Op::RETURN_NIL}));
}

// `+ n` and `- n` with a small int literal are one instruction each, with the local read
// before them too (ADD_LS); not when a jump lands on the operator (the 'and' below jumps
// past the literal to the ADD).
TEST_F(CompilerTest, SmallIntOperandsFuseIntoAddAndSubtract) {
  FunctionProto* p = compileOk("{ let a = 1; a + 2; a - 3; }");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::SMALL_INT, Op::ADD_LS, Op::POP, Op::SUB_LS, Op::POP_N, Op::RETURN_NIL}));
  FunctionProto* q = compileOk("{ let a = 1; a + (a and 2); }");
  std::vector<Op> ops = opcodes(*q);
  EXPECT_EQ(std::find(ops.begin(), ops.end(), Op::ADD_SMALL), ops.end());
}

// An assignment statement to a local is one SET_LOCAL_POP; an assignment used as a
// value keeps SET_LOCAL, and so does one a jump lands after (the POP is a jump target).
TEST_F(CompilerTest, AssignmentStatementsFuseTheirPop) {
  FunctionProto* p = compileOk("{ let a = 1; let b = a = 2; a = b; }");
  EXPECT_EQ(opcodes(*p), (std::vector<Op>{Op::SMALL_INT, Op::SMALL_INT, Op::SET_LOCAL, Op::GET_LOCAL,
                                          Op::SET_LOCAL_POP, Op::POP_N, Op::RETURN_NIL}));
  FunctionProto* q = compileOk("{ let a = 1; a = a > 0 and a; }");
  std::vector<Op> ops = opcodes(*q);
  EXPECT_NE(std::find(ops.begin(), ops.end(), Op::SET_LOCAL_POP), ops.end()) << "the 'and' lands before the store";
  FunctionProto* r = compileOk("{ let a = 1; a > 0 and (a = 2); }");
  std::vector<Op> rops = opcodes(*r);
  EXPECT_EQ(std::find(rops.begin(), rops.end(), Op::SET_LOCAL_POP), rops.end())
      << "the 'and' jumps past the store to the POP, so the POP must stay";
}

// Field and element assignment statements fuse their POP too (SET_PROPERTY_POP,
// SET_INDEX_POP), with the same exceptions: used as a value, or a jump lands on the POP.
TEST_F(CompilerTest, FieldAndElementAssignmentStatementsFuseTheirPop) {
  FunctionProto* p = compileOk("let o = nil; let a = nil; o.f = 1; a[0] = 2; let x = o.f = 3; let y = a[1] = 4;");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_PROPERTY_POP), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_INDEX_POP), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_PROPERTY), 1) << "o.f = 3 is a value";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_INDEX), 1) << "a[1] = 4 is a value";
  FunctionProto* q = compileOk("let o = nil; let a = nil; o and (o.f = 1); a and (a[0] = 2);");
  std::vector<Op> qops = opcodes(*q);
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::SET_PROPERTY_POP), 0) << "the 'and' jumps to the POP";
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::SET_INDEX_POP), 0) << "the 'and' jumps to the POP";
}

// `x = x + n;` is one ADD_LOCAL_SMALL; not when the local differs, when the sum is a
// value, or when a jump lands inside the three instructions.
TEST_F(CompilerTest, LocalIncrementStatementsAreOneInstruction) {
  FunctionProto* p = compileOk("{ let x = 0; let y = 0; x = x + 1; y = x + 1; let z = x = x + 2; z; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::ADD_LOCAL_SMALL), 1);
  FunctionProto* loop = compileOk("{ for (let i = 0; i < 3; i = i + 1) print(i); }");
  std::vector<Op> lops = opcodes(*loop);
  EXPECT_EQ(std::count(lops.begin(), lops.end(), Op::ADD_LOCAL_SMALL), 1) << "the loop's increment";
  FunctionProto* q = compileOk("{ let x = 0; x > 0 and (x = x + 1); }");
  std::vector<Op> qops = opcodes(*q);
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::ADD_LOCAL_SMALL), 0) << "the 'and' jumps to the POP";
}

// A while loop is inverted: its condition's code runs before the loop and again, copied,
// after the body, where LOOP_IF_TRUE jumps back; a compile error in it is reported once.
TEST_F(CompilerTest, WhileLoopsTestAtTheBottom) {
  FunctionProto* p = compileOk("{ let i = 0; while (i < 3) i = i + 1; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_UNLESS_LESS_LI), 1) << "the top test, fused";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::LOOP_IF_LESS_LI), 1) << "the bottom test, fused";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::LOOP), 0);
  FunctionProto* q = compileOk("{ let i = 0; let go = true; while (go) go = false; }");
  std::vector<Op> qops = opcodes(*q);
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::LOOP_IF_TRUE_L), 1) << "a local's test: one instruction";
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::JUMP_IF_FALSE_L), 1);
  EXPECT_EQ(errorsOf("let i = 0; while (i < ) { i = i + 1; }").size(), 1u);
}

// A for loop is inverted too: the increment's code is moved after the body and followed
// by the condition again; `continue` jumps forward to the increment.
TEST_F(CompilerTest, ForLoopsRunTheIncrementAndTestAtTheBottom) {
  FunctionProto* p = compileOk("{ for (let i = 0; i < f(3); i = g(i)) { if (i == 1) continue; h(i); } }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_UNLESS_LESS), 1) << "the top test";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::LOOP_IF_LESS), 1) << "the bottom test";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::LOOP), 0) << "continue goes forward, not back";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP), 1) << "the continue";
  auto body = std::find(ops.begin(), ops.end(), Op::JUMP_UNLESS_EQUAL_LI);
  auto increment = std::find(ops.begin(), ops.end(), Op::SET_LOCAL_POP);
  EXPECT_LT(body, increment) << "the increment follows the body";
  FunctionProto* endless = compileOk("{ for (;;) break; for (let i = 0; ; i = i + 1) break; }");
  std::vector<Op> eops = opcodes(*endless);
  EXPECT_EQ(std::count(eops.begin(), eops.end(), Op::LOOP), 2);
  EXPECT_EQ(std::count(eops.begin(), eops.end(), Op::ADD_LOCAL_SMALL), 1);
  // A lexical error in the increment: reported once.
  std::vector<std::string> errors = errorsOf("for (let i = 0; i < 3; i = i @ 1) {}");
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.front().find("unexpected character"), std::string::npos) << errors.front();
  EXPECT_EQ(std::count_if(errors.begin(), errors.end(),
                          [](const std::string& e) { return e.find("unexpected character") != std::string::npos; }),
            1);
  errors = errorsOf("for (let i = 0; i < 3; i = i + 1 2) {}");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors.front().find("expected ')' after the for clauses, found '2'"), std::string::npos) << errors.front();
  EXPECT_EQ(errorsOf("for (let i = 0; i < ; i = i + 1) {}").size(), 1u);
}

// A condition's comparison fuses with its jump (JUMP_UNLESS_...), and a top-level
// `and` chain in a condition compiles as one jump per operand, each fused.
TEST_F(CompilerTest, ConditionsJumpOnTheirComparisons) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; if (a < b) a = 0; if (a != b) a = 0; if (a) a = 0; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_UNLESS_LESS_LL), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_UNLESS_NOT_EQUAL), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_IF_FALSE_L), 1) << "if (a)";
  FunctionProto* q = compileOk("{ let i = 0; let go = true; while (go and i < 3 and i >= 0) i = i + 1; }");
  std::vector<Op> qops = opcodes(*q);
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::JUMP_IF_FALSE), 0) << "no value-keeping 'and'";
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::JUMP_IF_FALSE_L), 2) << "go, top and bottom";
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::JUMP_UNLESS_LESS_LI), 2) << "i < 3, top and bottom";
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::LOOP_IF_GREATER_EQUAL_LI), 1) << "the last test loops back";
  // A for loop's condition ends at ';': a chain there too, at the top and at the bottom.
  FunctionProto* f = compileOk("{ let go = true; for (let i = 0; go and i < 3; i = i + 1) go = true; }");
  std::vector<Op> fops = opcodes(*f);
  EXPECT_EQ(std::count(fops.begin(), fops.end(), Op::JUMP_IF_FALSE), 0) << "no value-keeping 'and'";
  EXPECT_EQ(std::count(fops.begin(), fops.end(), Op::JUMP_UNLESS_LESS_LI), 1) << "i < 3 at the top";
  EXPECT_EQ(std::count(fops.begin(), fops.end(), Op::LOOP_IF_LESS_LI), 1) << "i < 3 at the bottom";
  // Values, not jumps: `and` under an assignment, inside parentheses or in an argument.
  for (const char* source : {"{ let a = 1; if (a = a and a) a = 0; }", "{ let a = 1; if ((a and a)) a = 0; }",
                             "{ let a = 1; if (f(a and a)) a = 0; }"}) {
    std::vector<Op> nops = opcodes(*compileOk(source));
    EXPECT_EQ(std::count(nops.begin(), nops.end(), Op::JUMP_IF_FALSE), 1) << source;
  }
}

// `or` and `!` in a condition are jumps too: `a or b` jumps to the body when a holds,
// `!a` tests a with the branches swapped; at a loop's bottom the jumps to the body go
// back (LOOP) instead of forward.
TEST_F(CompilerTest, OrAndNotInConditionsAreJumps) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; if (a < b or b < a) a = 0; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_IF_TRUE), 0) << "no value-keeping 'or'";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP_UNLESS_LESS_LL), 2);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::JUMP), 1) << "a < b holds: on to the body";
  FunctionProto* w = compileOk("{ let a = 1; let b = 2; while (a < b or b) a = a + 1; }");
  std::vector<Op> wops = opcodes(*w);
  EXPECT_EQ(std::count(wops.begin(), wops.end(), Op::JUMP_IF_TRUE), 0);
  EXPECT_EQ(std::count(wops.begin(), wops.end(), Op::JUMP_UNLESS_LESS_LL), 2) << "a < b, top and bottom";
  EXPECT_EQ(std::count(wops.begin(), wops.end(), Op::JUMP), 1) << "to the body, at the top";
  EXPECT_EQ(std::count(wops.begin(), wops.end(), Op::LOOP), 1) << "back to the body, at the bottom";
  EXPECT_EQ(std::count(wops.begin(), wops.end(), Op::LOOP_IF_TRUE_L), 1) << "b, at the bottom";
  FunctionProto* n = compileOk("{ let a = 1; if (!a) a = 0; if (!!a) a = 0; let c = !a == false; }");
  std::vector<Op> nops = opcodes(*n);
  EXPECT_EQ(std::count(nops.begin(), nops.end(), Op::NOT), 2) << "one for if (!a), none for !!a, one for !a == false";
  FunctionProto* m = compileOk("{ let a = 1; let b = 2; if (a and b or !a and !b) a = 0; }");
  std::vector<Op> mops = opcodes(*m);
  EXPECT_EQ(std::count(mops.begin(), mops.end(), Op::JUMP_IF_FALSE), 0);
  EXPECT_EQ(std::count(mops.begin(), mops.end(), Op::JUMP_IF_TRUE), 0);
}

// In a value, `and` and `or` jump with the value they tested (JUMP_IF_FALSE,
// JUMP_IF_TRUE): `a and b or c` jumps from a to the `or`'s test, which tests a again,
// and from b past c; `!` is a NOT where the value is needed.
TEST_F(CompilerTest, AndOrInAValueKeepTheValueTheyJumpWith) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; let c = 3; let x = !a and b or c; }");
  std::string text = disassemble(t_.vm(), *p);
  for (const char* line : {"0009    | GET_LOCAL           1\n0011    | NOT\n0012    | JUMP_IF_FALSE       -> 18\n"
                           "0015    | POP\n0016    | GET_LOCAL           2\n0018    | JUMP_IF_TRUE        -> 24\n"
                           "0021    | POP\n0022    | GET_LOCAL           3\n0024    | POP_N               4\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

// A chain of `and`s or `or`s is no nesting, in a value as in a condition: 5,000
// operands compile (LANGUAGE.md: "nesting too deep" is for nested source).
TEST_F(CompilerTest, LongAndOrChainsAreNoNesting) {
  for (const char* op : {" and ", " or "}) {
    std::string chain = "a";
    for (int i = 0; i < 5000; ++i) chain += std::string(op) + "a";
    EXPECT_EQ(errorsOf("let a = 1; let x = " + chain + ";"), std::vector<std::string>{}) << op;
    EXPECT_EQ(errorsOf("let a = 1; if (" + chain + ") a = 2;"), std::vector<std::string>{}) << op;
  }
}

// `c = a op b;` on three locals is one instruction (ADD_LL_TO ...), and so is
// `c = e op b;` (ADD_L_TO ...); not when a jump lands between the arithmetic and the store.
TEST_F(CompilerTest, LocalArithmeticStatementsAreThreeAddress) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; let c = 0; c = a + b; c = a - b; c = b * b; c = a / b; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::ADD_LL_TO), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SUB_LL_TO), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::MUL_LL_TO), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_LOCAL_POP), 1) << "c = a / b";
  std::string text = disassemble(t_.vm(), *p);
  EXPECT_NE(text.find("ADD_LL_TO           1 2 -> 3"), std::string::npos) << text;
  FunctionProto* r = compileOk("{ let a = 1; let b = 2; let c = 0; c = a * 2 + b; c = 3 - b; c = c * b; }");
  std::vector<Op> rops = opcodes(*r);
  EXPECT_EQ(std::count(rops.begin(), rops.end(), Op::ADD_L_TO), 1);
  EXPECT_EQ(std::count(rops.begin(), rops.end(), Op::SUB_L_TO), 1);
  EXPECT_EQ(std::count(rops.begin(), rops.end(), Op::MUL_LL_TO), 1);
  EXPECT_EQ(r->maxStack, 1 + 3 + 2 + 2) << "slot 0, three locals, two operands, the natives' headroom";
  FunctionProto* q = compileOk("{ let a = 1; let c = 0; c = a and a * a; }");
  std::vector<Op> qops = opcodes(*q);
  EXPECT_EQ(std::count(qops.begin(), qops.end(), Op::MUL_LL_TO), 0) << "the 'and' lands on the store";
}

// `+ - *` on locals fuse with the reads: GET_LOCAL2 a b; MUL is MUL_LL a b, and
// GET_LOCAL b; ADD after a computed left operand is ADD_L b.
TEST_F(CompilerTest, ArithmeticOnLocalsFusesTheReads) {
  FunctionProto* p = compileOk("{ let a = 1; let b = 2; let c = a * b; let d = c + a * b; let e = 3 - a; }");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::MUL_LL), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::MUL_L), 1) << "c + a * b: a is read with c, b fuses";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SUB_L), 1) << "3 - a";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::MULTIPLY), 0);
}

TEST_F(CompilerTest, ClosuresCaptureLocalsAsUpvalues) {
  FunctionProto* p = compileOk("fn outer() { let n = 0; return fn () { n = n + 1; return n; }; }");
  ASSERT_EQ(p->functions.size(), 1u);
  const FunctionProto* outer = p->functions[0];
  ASSERT_EQ(outer->functions.size(), 1u);
  const FunctionProto* inner = outer->functions[0];
  EXPECT_EQ(inner->upvalueCount, 1);
  EXPECT_EQ(opcodes(*inner), (std::vector<Op>{Op::GET_UPVALUE, Op::ADD_SMALL, Op::SET_UPVALUE, Op::POP,
                                              Op::GET_UPVALUE, Op::RETURN, Op::RETURN_NIL}));
  // `n` is captured, so leaving its scope closes it instead of popping it.
  auto outerOps = opcodes(*outer);
  EXPECT_NE(std::find(outerOps.begin(), outerOps.end(), Op::CLOSURE), outerOps.end());
}

TEST_F(CompilerTest, MethodCallsAreInvokesWithCaches) {
  FunctionProto* p = compileOk("let a = nil; a.m(1, 2); a.f; a.f = 3;");
  auto ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::INVOKE), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::GET_PROPERTY), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::SET_PROPERTY_POP), 1) << "a statement: the store and its POP fused";
  EXPECT_EQ(p->caches.size(), 3u);
}

TEST_F(CompilerTest, InitializerReturnsThis) {
  FunctionProto* p = compileOk("class A { init() { } }");
  ASSERT_EQ(p->functions.size(), 1u);
  EXPECT_EQ(p->functions[0]->name, "A.init");
  EXPECT_EQ(opcodes(*p->functions[0]), (std::vector<Op>{Op::RETURN_LOCAL}));
}

TEST_F(CompilerTest, DisassemblyShowsLinesAndNames) {
  FunctionProto* p = compileOk("let x = 1;\nprint(x);\n");
  std::string text = disassemble(t_.vm(), *p);
  EXPECT_NE(text.find("== <script> (t.kith)"), std::string::npos) << text;
  EXPECT_NE(text.find("0000    1 SMALL_INT"), std::string::npos) << text;
  EXPECT_NE(text.find("DEFINE_GLOBAL"), std::string::npos) << text;
  EXPECT_NE(text.find("'print'"), std::string::npos) << text;
  EXPECT_NE(text.find("   2 GET_GLOBAL"), std::string::npos) << text;
}

// Every compile error the compiler (and lexer) reports, with the position it names.
TEST_F(CompilerTest, EveryErrorMessage) {
  struct Case {
    const char* source;
    const char* error;  // the whole "t.kith:L:C: error: ..." line, or its start
  };
  const Case cases[] = {
      {"\"abc", "t.kith:1:1: error: unterminated string"},
      {"/* open", "t.kith:1:1: error: unterminated block comment"},
      {"let a = 1 @ 2;", "t.kith:1:11: error: unexpected character"},
      {"0x;", "t.kith:1:1: error: hexadecimal literal needs digits after '0x'"},
      {"1e+;", "t.kith:1:1: error: exponent needs digits"},
      {"12ab;", "t.kith:1:1: error: invalid character in number literal"},
      {"let x = ;", "t.kith:1:9: error: expected an expression, found ';'"},
      {"1 + 2 = 3;", "t.kith:1:7: error: invalid assignment target"},
      {"let a = 1; let a = 2;", "t.kith:1:16: error: 'a' is already declared in this scope"},
      {"fn f(a, a) {}", "t.kith:1:9: error: 'a' is already declared in this scope"},
      {"{ let a = a; }", "t.kith:1:11: error: can't read local variable 'a' in its own initializer"},
      {"fn f() { class A {} }", "t.kith:1:10: error: classes are declared at top level"},
      {"class A < A {}", "t.kith:1:11: error: a class can't inherit from itself"},
      {"class A { field x, x; }", "t.kith:1:20: error: field 'x' is already declared"},
      {"class A { field x; } class B < A { field x; }", "t.kith:1:42: error: field 'x' is already declared in superclass 'A'"},
      {"class A { m() {} m() {} }", "t.kith:1:18: error: method 'm' is already declared in this class"},
      {"class A { 1; }", "t.kith:1:11: error: expected 'field' or a method in the class body, found '1'"},
      {"break;", "t.kith:1:1: error: 'break' outside a loop"},
      {"continue;", "t.kith:1:1: error: 'continue' outside a loop"},
      {"return 1;", "t.kith:1:1: error: can't return from top-level code"},
      {"class A { init() { return 1; } }", "t.kith:1:20: error: can't return a value from 'init'"},
      {"print(this);", "t.kith:1:7: error: can't use 'this' outside of a method"},
      {"super.m();", "t.kith:1:1: error: can't use 'super' outside of a method"},
      {"class A { m() { super.m(); } }", "t.kith:1:17: error: can't use 'super' in a class without a superclass"},
      {"9223372036854775808;", "t.kith:1:1: error: integer literal out of range: 9223372036854775808"},
      {"0x1_0000_0000_0000_0000;", "t.kith:1:1: error: integer literal out of range"},
      {"\"\\q\";", "t.kith:1:1: error: invalid escape sequence '\\q' in string"},
      {"\"\\u{110000}\";", "t.kith:1:1: error: invalid unicode escape in string"},
      {"\"\\u{D800}\";", "t.kith:1:1: error: invalid unicode escape in string"},
      {"print(1)\nprint(2);", "t.kith:1:9: error: expected ';' after the expression"},
      {"if 1 {}", "t.kith:1:4: error: expected '(' after 'if', found '1'"},
      {"while (true {}", "t.kith:1:13: error: expected ')' after the condition, found '{'"},
      {"new 3();", "t.kith:1:5: error: expected a class name after 'new', found '3'"},
      {"let;", "t.kith:1:4: error: expected a variable name after 'let', found ';'"},
      {"fn (a {}", "t.kith:1:7: error: expected ')' after parameters, found '{'"},
      {"try {} x", "t.kith:1:8: error: expected 'catch' after the try block, found 'x'"},
      {"{ let a = 1;", "t.kith:1:13: error: expected '}' after the block, found end of file"},
      {"[1, 2;", "t.kith:1:6: error: expected ']' after the array elements, found ';'"},
      {"a.;", "t.kith:1:3: error: expected a property name after '.', found ';'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> errors = errorsOf(c.source);
    ASSERT_FALSE(errors.empty()) << c.source;
    EXPECT_EQ(errors.front().substr(0, std::string(c.error).size()), c.error) << "source: " << c.source;
  }
}

TEST_F(CompilerTest, LimitsAreErrorsNotCrashes) {
  std::string locals = "fn f() {";
  for (int i = 0; i < 300; ++i) locals += " let v" + std::to_string(i) + " = 0;";
  locals += " }";
  auto e = errorsOf(locals);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.front().find("too many local variables"), std::string::npos);

  std::string params = "fn f(";
  for (int i = 0; i < 256; ++i) params += (i ? ", p" : "p") + std::to_string(i);
  e = errorsOf(params + ") {}");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.front().find("can't have more than 255 parameters"), std::string::npos);

  std::string args = "print(";
  for (int i = 0; i < 256; ++i) args += i ? ", 0" : "0";
  e = errorsOf(args + ");");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.front().find("can't pass more than 255 arguments"), std::string::npos);

  std::string jump = "if (true) {";
  for (int i = 0; i < 20000; ++i) jump += " x;";
  e = errorsOf(jump + " }");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.front().find("too much code to jump over"), std::string::npos);
}

// Past a limit, each later declaration would repeat its error: 300 locals give one
// error, not 44 (100,000 once gave 99,745); the next function reports its own.
TEST_F(CompilerTest, ALimitPassedIsReportedOncePerFunction) {
  std::string locals;
  for (int i = 0; i < 300; ++i) locals += " let v" + std::to_string(i) + " = 0;";
  std::string source = "fn f() {" + locals + " } fn g() {" + locals + " }";
  auto e = errorsOf(source);
  ASSERT_EQ(e.size(), 2u);
  // Slot 0 is the callee's: v255 is the 256th.
  EXPECT_EQ(e[0], "t.kith:1:" + std::to_string(source.find("v255") + 1) +
                      ": error: too many local variables in one function (256 at most)");
  EXPECT_NE(e[1].find("too many local variables"), std::string::npos);
  // Once reported, the limit hides no other error: a later statement's mistake shows.
  e = errorsOf("fn f() {" + locals + " let w = ; }");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(e[1].find("expected an expression, found ';'"), std::string::npos);
}

// As Clang's -ferror-limit: the first kMaxErrorsShown errors, with their excerpts,
// and a count of the rest, which the compiler still finds to the end of the file.
TEST_F(CompilerTest, ErrorsPastTheLimitAreCountedNotShown) {
  std::string source;
  for (int i = 0; i < 1000; ++i) source += "let = ;\n";
  CompileResult r = compile(t_.vm(), source, "t.kith");
  EXPECT_EQ(r.script, nullptr);
  ASSERT_EQ(r.errors.size(), kMaxErrorsShown);
  EXPECT_EQ(r.excerpts.size(), kMaxErrorsShown);
  EXPECT_EQ(r.errors.back(), "t.kith:20:5: error: expected a variable name after 'let', found '='");
  EXPECT_EQ(r.errorsNotShown, 980u);
  std::vector<std::string> report = r.reportLines();
  EXPECT_EQ(report.size(), 3 * kMaxErrorsShown + 1);
  EXPECT_EQ(report.back(), "t.kith: 980 more errors not shown (the first 20 are)");

  source = "";
  for (std::size_t i = 0; i <= kMaxErrorsShown; ++i) source += "let = ;\n";
  r = compile(t_.vm(), source, "t.kith");
  EXPECT_EQ(r.errorsNotShown, 1u);
  EXPECT_EQ(r.reportLines().back(), "t.kith: 1 more error not shown (the first 20 are)");
  r = compile(t_.vm(), "let = ;", "t.kith");
  EXPECT_EQ(r.reportLines().size(), 3u);  // under the limit: no count line
}

TEST_F(CompilerTest, RecoversAndReportsEveryError) {
  auto errors = errorsOf("let a = ;\nlet b = 1\nlet c = 2;\nprint(this);\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "t.kith:1:9: error: expected an expression, found ';'");
  EXPECT_EQ(errors[1], "t.kith:2:10: error: expected ';' after the variable declaration");
  EXPECT_EQ(errors[2], "t.kith:4:7: error: can't use 'this' outside of a method");
}

// `obj.f = new C(...)` builds the object near obj (NEW_NEAR, the allocation hint);
// a nested `new` in its arguments and any other `new` stay plain NEW.
TEST_F(CompilerTest, ANewObjectAssignedToAFieldIsHintedNearTheReceiver) {
  FunctionProto* p = compileOk("class C { field x, f; init(x) { this.x = x; } } let o = new C(nil); o.f = new C(new C(1)); let y = new C(2);");
  std::vector<Op> ops = opcodes(*p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::NEW_NEAR), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Op::NEW), 3);
  auto near = std::find(ops.begin(), ops.end(), Op::NEW_NEAR);
  ASSERT_NE(near, ops.end());
  EXPECT_EQ(*(near + 1), Op::SET_PROPERTY_POP);
}

}  // namespace
}  // namespace kith::vm
