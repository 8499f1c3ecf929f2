#include "vm/compiler.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vm/code_emitter.h"
#include "vm/compiler_scratch.h"
#include "vm/jump_list.h"
#include "vm/lexer.h"
#include "vm/object.h"
#include "vm/opcodes.h"
#include "vm/vm.h"

namespace kith::vm {
namespace {

// --- compiler state ------------------------------------------------------------------

enum class Precedence {
  none, assignment, orP, andP, equality, comparison, bitOr, bitXor, bitAnd, shift, term, factor,
  unary, call, primary,
};

enum class FunctionKind { script, function, method, initializer };

struct Local {
  std::string_view name;
  int depth;  // -1 while its initializer is compiled
  bool captured;
};

struct UpvalueRef {
  std::uint8_t index;
  bool isLocal;
};

struct LoopState {
  LoopState* enclosing;
  int continueTarget;  // a code offset to LOOP back to; -1: forward, to a point not yet emitted
  ScratchVector<int> continueJumps;  // with continueTarget -1: the forward jumps to patch there
  std::size_t localCount;  // locals that live outside the loop body
  int tryDepth;
  ScratchVector<int> breakJumps;
};

struct FunctionState {
  FunctionState* enclosing;
  FunctionCode code;
  FunctionKind kind;
  ScratchVector<Local> locals;
  ScratchVector<UpvalueRef> upvalues;
  int scopeDepth = 0;
  LoopState* loop = nullptr;
  int tryDepth = 0;
  unsigned limitsReported = 0;  // a bit per Limit whose error this function has given
};

struct ClassState {
  ClassState* enclosing;
  ClassInfo* klass;
  bool hasSuperclass;
};

// LANGUAGE.md: source nested deeper than 1,000 levels (parentheses, brackets, blocks,
// statement bodies, unary operators, function literals, in any mix) is the compile
// error "nesting too deep". The parser is recursive descent, so this bounds its C++
// stack; kMaxRecursion bounds what nests without a level of its own (a = b = c ...).
constexpr int kMaxNesting = 1000;
constexpr int kMaxRecursion = 4 * kMaxNesting;
struct NestingTooDeep {};  // abandons the compilation: the error is already recorded

constexpr std::size_t kInitialCodeBytes = 64;
constexpr std::size_t kMaxLocals = 256;
constexpr std::size_t kMaxUpvalues = 256;
constexpr int kMaxArgs = 255;

class Compiler final : private LimitReporter {
 public:
  Compiler(VM& vm, std::string_view source, std::string_view file, CompilerScratch& scratch)
      : vm_(vm), lexer_(source), file_(file), scratch_(scratch), code_(vm, scratch, *this),
        topLevelNames_(ScratchAllocator<std::string_view>(&scratch)) {}

  CompileResult compileScript() {
    FunctionProto* proto = nullptr;
    try {
      FunctionState script = newFunctionState(FunctionKind::script, "<script>");
      beginFunction(script);
      advance();
      while (!check(TokenType::eof)) declaration();
      proto = endFunction();
    } catch (const NestingTooDeep&) {
    }
    CompileResult result;
    result.errors = std::move(errors_);
    result.errorPositions = std::move(errorPositions_);
    result.errorsNotShown = errorsNotShown_;
    result.outOfMemory = outOfMemory_;
    if (result.errors.empty()) result.script = proto;
    return result;
  }

 private:
  // --- tokens ------------------------------------------------------------------------
  Token scanToken() {
    for (;;) {
      Token t = lexer_.next();
      if (t.type != TokenType::error) return t;
      errorAt(t, std::string(t.text));
    }
  }
  void advance() {
    previous_ = current_;
    code_.atLine(previous_.line);
    if (hasLookahead_) {
      current_ = lookahead_;
      hasLookahead_ = false;
    } else {
      current_ = scanToken();
    }
  }
  const Token& peekNext() {
    if (!hasLookahead_) {
      lookahead_ = scanToken();
      hasLookahead_ = true;
    }
    return lookahead_;
  }
  bool check(TokenType type) const { return current_.type == type; }
  bool match(TokenType type) {
    if (!check(type)) return false;
    advance();
    return true;
  }
  void consume(TokenType type, const char* message) {
    if (check(type)) {
      advance();
      return;
    }
    if (type == TokenType::semicolon && current_.line != previous_.line) {
      // A missing ';' at the end of a line: point just after the previous token.
      Token after = previous_;
      after.column += static_cast<int>(previous_.text.size());
      errorAt(after, message);
      return;
    }
    errorAtCurrent(message);
  }

  // --- nesting ---------------------------------------------------------------------------
  // One level of nesting while it lives (see kMaxNesting). `counter` is nesting_ for
  // a syntactic level, recursion_ for any recursive parse.
  class Level {
   public:
    Level(Compiler& c, int& counter, int limit) : counter_(counter) {
      if (++counter_ > limit) c.tooDeep();
    }
    ~Level() { --counter_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

   private:
    int& counter_;
  };
  Level nestedLevel() { return Level(*this, nesting_, kMaxNesting); }
  [[noreturn]] void tooDeep() {
    addError(current_.line, current_.column, "nesting too deep");
    throw NestingTooDeep{};
  }

  // --- errors ------------------------------------------------------------------------
  // One error line, with its position for the source excerpt; the same error at the
  // same place again (two unclosed blocks both ending at end of file) is not repeated.
  // Past kMaxErrorsShown an error is only counted (CompileResult::errorsNotShown).
  void addError(int line, int column, const std::string& message) {
    std::string text = std::string(file_) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                       ": error: " + message;
    if (text == lastError_) return;
    lastError_ = text;
    if (errors_.size() == kMaxErrorsShown) {
      ++errorsNotShown_;
      return;
    }
    errors_.push_back(std::move(text));
    errorPositions_.push_back({line, column});
  }
  void errorAt(const Token& token, const std::string& message) {
    if (panic_) return;
    panic_ = true;
    addError(token.line, token.column, message);
  }
  void error(const std::string& message) { errorAt(previous_, message); }
  // A mistake in meaning, not syntax (a redeclaration, 'this' outside a method...):
  // the parser is not lost, so it reports and carries on without skipping ahead.
  void semanticError(const Token& token, const std::string& message) {
    if (panic_) return;
    addError(token.line, token.column, message);
  }
  void semanticError(const std::string& message) { semanticError(previous_, message); }
  // The error of a limit passed in function `f` (see Limit), the first time only.
  void limitError(FunctionState& f, Limit limit, const Token& at, const std::string& message) {
    FunctionState* owner = &f;
    if (isProgramWide(limit))
      while (owner->enclosing) owner = owner->enclosing;
    const unsigned bit = 1u << static_cast<unsigned>(limit);
    if (panic_ || (owner->limitsReported & bit)) return;
    owner->limitsReported |= bit;
    errorAt(at, message);
  }
  void limitError(Limit limit, const std::string& message) { limitError(*fn_, limit, previous_, message); }
  void limitPassed(Limit limit, const std::string& message) override {
    if (limit == Limit::constantsMemory) outOfMemory_ = true;  // a runtime failure, not the source's
    limitError(limit, message);
  }
  void errorAtCurrent(const std::string& message) {
    std::string text = message;
    text += ", found ";
    if (current_.type == TokenType::eof) {
      text += "end of file";
    } else {
      text += '\'';
      text.append(current_.text);
      text += '\'';
    }
    errorAt(current_, text);
  }
  // Skips to a statement boundary after an error, so one mistake reports once.
  void synchronize() {
    panic_ = false;
    while (!check(TokenType::eof)) {
      if (previous_.type == TokenType::semicolon) return;
      switch (current_.type) {
        case TokenType::kwClass: case TokenType::kwFn: case TokenType::kwLet: case TokenType::kwFor:
        case TokenType::kwIf: case TokenType::kwWhile: case TokenType::kwReturn: case TokenType::kwThrow:
        case TokenType::kwTry: case TokenType::kwBreak: case TokenType::kwContinue: case TokenType::rightBrace:
        case TokenType::kwImport:
          return;
        default:
          advance();
      }
    }
  }

  // --- emitting ------------------------------------------------------------------------
  // What to emit is decided here; how, by the emitter (vm/code_emitter.h).
  FunctionProto* proto() { return fn_->code.proto; }
  int symbolFor(std::string_view name) {
    int s = vm_.symbol(name);
    if (s > 0xffff) limitError(Limit::names, "too many distinct names in the program");
    return s;
  }

  // --- functions --------------------------------------------------------------------
  FunctionState newFunctionState(FunctionKind kind, std::string name) {
    FunctionProto* proto = vm_.newProto();
    FunctionState state{fn_, FunctionCode{proto, 1, ScratchVector<int>(ScratchAllocator<int>(&scratch_))}, kind,
                        ScratchVector<Local>(ScratchAllocator<Local>(&scratch_)),
                        ScratchVector<UpvalueRef>(ScratchAllocator<UpvalueRef>(&scratch_))};
    proto->name = std::move(name);
    proto->file = std::string(file_);
    proto->isInitializer = kind == FunctionKind::initializer;
    proto->maxStack = 1;
    // Most functions are short: room for their code at once, not a vector growing
    // through every power of two.
    proto->code.reserve(kInitialCodeBytes);
    proto->lines.reserve(kInitialCodeBytes);
    // Slot 0 holds the receiver in methods (named "this") and the callee elsewhere
    // (a name no identifier can spell).
    state.locals.push_back(Local{kind == FunctionKind::method || kind == FunctionKind::initializer ? "this" : " callee", 0, false});
    return state;
  }
  // Makes `state` the current function; endFunction restores the enclosing one.
  void beginFunction(FunctionState& state) {
    fn_ = &state;
    code_.target(&state.code);
  }
  FunctionProto* endFunction() {
    emitReturn();
    FunctionProto* p = proto();
    code_.finish(errors_.empty());
    p->upvalueCount = static_cast<int>(fn_->upvalues.size());
    p->maxStack += 2;  // headroom: natives may push a little above the frame
    fn_ = fn_->enclosing;
    code_.target(fn_ ? &fn_->code : nullptr);
    return p;
  }
  void emitReturn() {
    if (fn_->kind == FunctionKind::initializer) code_.emitOpU8(Op::GET_LOCAL, 0);
    else code_.emitOp(Op::NIL);
    code_.emitOp(Op::RETURN);
  }

  void function(FunctionKind kind, std::string name) {
    auto level = nestedLevel();
    FunctionState state = newFunctionState(kind, std::move(name));
    state.enclosing = fn_;
    beginFunction(state);
    beginScope();
    consume(TokenType::leftParen, "expected '(' before parameters");
    if (!check(TokenType::rightParen)) {
      do {
        if (proto()->arity == kMaxArgs) errorAtCurrent("a function can't have more than 255 parameters");
        ++proto()->arity;
        consume(TokenType::identifier, "expected a parameter name");
        declareLocal(previous_);
        markInitialized();
        code_.adjustStack(1);
      } while (match(TokenType::comma));
    }
    consume(TokenType::rightParen, "expected ')' after parameters");
    consume(TokenType::leftBrace, "expected '{' before the function body");
    block();
    ScratchVector<UpvalueRef> upvalues = state.upvalues;
    FunctionProto* compiled = endFunction();
    FunctionProto* parent = proto();
    parent->functions.push_back(compiled);
    if (parent->functions.size() > 0xffff) limitError(Limit::functions, "too many functions in one function");
    code_.emitOpU16(Op::CLOSURE, static_cast<int>(parent->functions.size() - 1));
    for (const UpvalueRef& u : upvalues) {
      code_.emitByte(u.isLocal ? 1 : 0);
      code_.emitByte(u.index);
    }
  }

  // --- scopes and variables --------------------------------------------------------------
  void beginScope() { ++fn_->scopeDepth; }
  void endScope() {
    --fn_->scopeDepth;
    while (!fn_->locals.empty() && fn_->locals.back().depth > fn_->scopeDepth) {
      code_.emitOp(fn_->locals.back().captured ? Op::CLOSE_UPVALUE : Op::POP);
      fn_->locals.pop_back();
    }
  }
  // Pops (without forgetting) the locals above `keep`, for break and continue.
  void emitPopsTo(std::size_t keep) {
    for (std::size_t i = fn_->locals.size(); i > keep; --i) {
      code_.emitOp(fn_->locals[i - 1].captured ? Op::CLOSE_UPVALUE : Op::POP);
    }
  }
  bool isGlobalScope() const { return fn_->kind == FunctionKind::script && fn_->scopeDepth == 0; }

  void declareLocal(const Token& name) {
    for (std::size_t i = fn_->locals.size(); i-- > 0;) {
      const Local& l = fn_->locals[i];
      if (l.depth != -1 && l.depth < fn_->scopeDepth) break;
      if (l.name == name.text) {
        semanticError(name, "'" + std::string(name.text) + "' is already declared in this scope");
        break;
      }
    }
    if (fn_->locals.size() >= kMaxLocals) {
      limitError(*fn_, Limit::locals, name, "too many local variables in one function (256 at most)");
      return;
    }
    fn_->locals.push_back(Local{name.text, -1, false});
  }
  void markInitialized() {
    if (!fn_->locals.empty()) fn_->locals.back().depth = fn_->scopeDepth;
  }
  // A global declared at top level: redeclaring it in the same (global) scope is an error.
  int declareGlobal(const Token& name) {
    if (!topLevelNames_.insert(name.text).second)
      semanticError(name, "'" + std::string(name.text) + "' is already declared in this scope");
    return globalIndex(name.text);
  }
  int globalIndex(std::string_view name) {
    int slot = vm_.globalSlot(name);
    if (slot > 0xffff) limitError(Limit::globals, "too many global variables");
    return slot;
  }

  int resolveLocal(FunctionState* f, std::string_view name, const Token& at) {
    for (std::size_t i = f->locals.size(); i-- > 0;) {
      if (f->locals[i].name == name) {
        if (f->locals[i].depth == -1)
          semanticError(at, "can't read local variable '" + std::string(name) + "' in its own initializer");
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  int addUpvalue(FunctionState* f, std::uint8_t index, bool isLocal, const Token& at) {
    for (std::size_t i = 0; i < f->upvalues.size(); ++i)
      if (f->upvalues[i].index == index && f->upvalues[i].isLocal == isLocal) return static_cast<int>(i);
    if (f->upvalues.size() >= kMaxUpvalues) {
      limitError(*f, Limit::upvalues, at, "too many captured variables in one function");
      return 0;
    }
    f->upvalues.push_back(UpvalueRef{index, isLocal});
    return static_cast<int>(f->upvalues.size() - 1);
  }
  int resolveUpvalue(FunctionState* f, std::string_view name, const Token& at) {
    if (!f->enclosing) return -1;
    int local = resolveLocal(f->enclosing, name, at);
    if (local != -1) {
      f->enclosing->locals[static_cast<std::size_t>(local)].captured = true;
      return addUpvalue(f, static_cast<std::uint8_t>(local), true, at);
    }
    int up = resolveUpvalue(f->enclosing, name, at);
    if (up != -1) return addUpvalue(f, static_cast<std::uint8_t>(up), false, at);
    return -1;
  }
  void namedVariable(const Token& name, bool canAssign) {
    Op getOp, setOp;
    int arg = resolveLocal(fn_, name.text, name);
    if (arg != -1) {
      getOp = Op::GET_LOCAL, setOp = Op::SET_LOCAL;
    } else if ((arg = resolveUpvalue(fn_, name.text, name)) != -1) {
      getOp = Op::GET_UPVALUE, setOp = Op::SET_UPVALUE;
    } else {
      arg = globalIndex(name.text);
      getOp = Op::GET_GLOBAL, setOp = Op::SET_GLOBAL;
    }
    bool wide = getOp == Op::GET_GLOBAL;
    if (canAssign && match(TokenType::equal)) {
      expression();
      wide ? code_.emitOpU16(setOp, arg) : code_.emitOpU8(setOp, arg);
    } else {
      wide ? code_.emitOpU16(getOp, arg) : code_.emitOpU8(getOp, arg);
      nameCallee(name.text);
    }
  }

  // A call names its callee when the callee is a variable or property read just
  // before its '(': "cannot call 'x', a value of type int" (CALL's second operand).
  // The name is interned only when a call follows: most reads are not callees.
  void nameCallee(std::string_view name) {
    calleeName_ = name;
    calleeFn_ = fn_;
    calleeEnd_ = proto()->code.size();
  }
  std::uint16_t calleeNameHere() {
    if (calleeFn_ != fn_ || calleeEnd_ != proto()->code.size()) return kNoCalleeName;
    int symbol = symbolFor(calleeName_);
    return symbol < kNoCalleeName ? static_cast<std::uint16_t>(symbol) : kNoCalleeName;
  }

  // --- declarations and statements ------------------------------------------------------
  void declaration() {
    if (match(TokenType::kwClass)) {
      classDeclaration();
    } else if (check(TokenType::kwFn) && peekNext().type == TokenType::identifier) {
      advance();
      fnDeclaration();
    } else if (match(TokenType::kwLet)) {
      letDeclaration();
    } else {
      statement();
    }
    if (panic_) synchronize();
  }

  void letDeclaration() {
    consume(TokenType::identifier, "expected a variable name after 'let'");
    Token name = previous_;
    bool global = isGlobalScope();
    int slot = global ? declareGlobal(name) : -1;
    if (!global) declareLocal(name);
    if (match(TokenType::equal)) expression();
    else code_.emitOp(Op::NIL);
    consume(TokenType::semicolon, "expected ';' after the variable declaration");
    if (global) code_.emitOpU16(Op::DEFINE_GLOBAL, slot);
    else markInitialized();
  }

  void fnDeclaration() {
    consume(TokenType::identifier, "expected a function name");
    Token name = previous_;
    if (isGlobalScope()) {
      int slot = declareGlobal(name);
      function(FunctionKind::function, std::string(name.text));
      code_.emitOpU16(Op::DEFINE_GLOBAL, slot);
    } else {
      declareLocal(name);
      markInitialized();  // the function may call itself
      function(FunctionKind::function, std::string(name.text));
    }
  }

  void classDeclaration() {
    Token keyword = previous_;
    consume(TokenType::identifier, "expected a class name");
    Token name = previous_;
    // Compiled on regardless (nothing runs when there are errors), so the
    // class body's own mistakes are reported too.
    if (!isGlobalScope()) semanticError(keyword, "classes are declared at top level");
    int slot = declareGlobal(name);
    ClassInfo* klass = vm_.newClass(std::string(name.text));
    ClassState state{class_, klass, false};
    class_ = &state;
    ClassInfo* knownSuper = nullptr;
    if (match(TokenType::less)) {
      consume(TokenType::identifier, "expected a superclass name after '<'");
      Token superName = previous_;
      if (superName.text == name.text) semanticError(superName, "a class can't inherit from itself");
      knownSuper = vm_.compiledClass(superName.text);
      namedVariable(superName, false);
      state.hasSuperclass = true;
    }
    code_.emitOp(Op::CLASS);
    code_.emitU16(static_cast<int>(klass->id));
    code_.emitByte(state.hasSuperclass ? 1 : 0);
    if (state.hasSuperclass) code_.adjustStack(-1);
    consume(TokenType::leftBrace, "expected '{' before the class body");
    ScratchNameSet methodNames{ScratchAllocator<std::string_view>(&scratch_)};
    while (!check(TokenType::rightBrace) && !check(TokenType::eof)) {
      if (match(TokenType::kwField)) {
        do {
          consume(TokenType::identifier, "expected a field name");
          Token field = previous_;
          int sym = symbolFor(field.text);
          bool duplicate = false;
          for (int s : klass->ownFieldSymbols) duplicate |= s == sym;
          if (duplicate) {
            semanticError(field, "field '" + std::string(field.text) + "' is already declared");
          } else {
            for (ClassInfo* k = knownSuper; k; k = k->superclass) {
              bool inSuper = false;
              for (int s : k->ownFieldSymbols) inSuper |= s == sym;
              if (inSuper) {
                semanticError(field, "field '" + std::string(field.text) + "' is already declared in superclass '" + k->name + "'");
                break;
              }
            }
            klass->ownFieldSymbols.push_back(sym);
          }
        } while (match(TokenType::comma));
        consume(TokenType::semicolon, "expected ';' after field declarations");
      } else if (match(TokenType::identifier)) {
        Token method = previous_;
        if (!methodNames.insert(method.text).second)
          semanticError(method, "method '" + std::string(method.text) + "' is already declared in this class");
        FunctionKind kind = method.text == "init" ? FunctionKind::initializer : FunctionKind::method;
        function(kind, std::string(name.text) + "." + std::string(method.text));
        code_.emitOpU16(Op::METHOD, symbolFor(method.text));
      } else {
        errorAtCurrent("expected 'field' or a method in the class body");
        advance();
        if (panic_) synchronizeInClass();
      }
    }
    consume(TokenType::rightBrace, "expected '}' after the class body");
    code_.emitOpU16(Op::DEFINE_GLOBAL, slot);
    class_ = class_->enclosing;
  }
  // Recovery inside a class body: skip to the next member or the closing brace.
  void synchronizeInClass() {
    panic_ = false;
    while (!check(TokenType::eof) && !check(TokenType::rightBrace) && !check(TokenType::kwField) &&
           !(check(TokenType::identifier) && peekNext().type == TokenType::leftParen))
      advance();
  }

  void statement() {
    Level recursion(*this, recursion_, kMaxRecursion);
    if (match(TokenType::kwImport)) importStatement();
    else if (match(TokenType::kwIf)) ifStatement();
    else if (match(TokenType::kwWhile)) whileStatement();
    else if (match(TokenType::kwFor)) forStatement();
    else if (match(TokenType::kwReturn)) returnStatement();
    else if (match(TokenType::kwBreak)) breakStatement();
    else if (match(TokenType::kwContinue)) continueStatement();
    else if (match(TokenType::kwThrow)) throwStatement();
    else if (match(TokenType::kwTry)) tryStatement();
    else if (match(TokenType::leftBrace)) {
      auto level = nestedLevel();
      beginScope();
      block();
      endScope();
    } else {
      expressionStatement();
    }
  }

  void block() {
    while (!check(TokenType::rightBrace) && !check(TokenType::eof)) declaration();
    consume(TokenType::rightBrace, "expected '}' after the block");
  }

  // The body of if/else/while/for: any statement, in a scope of its own.
  void body() {
    auto level = nestedLevel();
    beginScope();
    if (check(TokenType::kwLet) || check(TokenType::kwClass) ||
        (check(TokenType::kwFn) && peekNext().type == TokenType::identifier))
      declaration();  // pointless but harmless: the variable dies with the body
    else
      statement();
    endScope();
  }

  void expressionStatement() {
    expression();
    consume(TokenType::semicolon, "expected ';' after the expression");
    code_.emitOp(Op::POP);
  }

  void ifStatement() {
    consume(TokenType::leftParen, "expected '(' after 'if'");
    Condition condition = conditionClause();
    consume(TokenType::rightParen, "expected ')' after the condition");
    goIfTrue(condition);
    body();
    if (match(TokenType::kwElse)) {
      int elseJump = code_.emitJump(Op::JUMP);
      code_.patchJumps(condition.whenFalse);
      body();
      code_.patchJump(elseJump);
    } else {
      code_.patchJumps(condition.whenFalse);
    }
  }

  LoopState beginLoop(int continueTarget) {
    LoopState loop{fn_->loop, continueTarget, ScratchVector<int>(ScratchAllocator<int>(&scratch_)), fn_->locals.size(),
                   fn_->tryDepth, ScratchVector<int>(ScratchAllocator<int>(&scratch_))};
    return loop;
  }
  void endLoop(LoopState& loop) {
    code_.patchJumps(loop.breakJumps);
    fn_->loop = loop.enclosing;
  }

  // Inverted, as compilers do: the condition once before the loop, and again after
  // the body, where LOOP_IF_TRUE jumps back while it holds — one instruction an
  // iteration where a test at the top needs its jump out and the LOOP back. The
  // bottom test is a copy of the top one's code; `continue` goes to the top test,
  // which is equivalent.
  void whileStatement() {
    int start = code_.loopTarget();
    consume(TokenType::leftParen, "expected '(' after 'while'");
    LoopCondition condition = loopCondition();
    consume(TokenType::rightParen, "expected ')' after the condition");
    goIfTrue(condition.jumps);
    int bodyStart = code_.loopTarget();
    LoopState loop = beginLoop(start);
    fn_->loop = &loop;
    body();
    if (errors_.empty()) emitBottomTest(condition, bodyStart);
    else code_.emitLoop(start);
    code_.patchJumps(condition.jumps.whenFalse);
    endLoop(loop);
  }

  // Inverted too: init; the condition; then body, increment and the condition again at
  // the bottom, jumping back to the body. The increment is compiled where it stands
  // and its code moved after the body; `continue` jumps forward to it.
  void forStatement() {
    consume(TokenType::leftParen, "expected '(' after 'for'");
    if (check(TokenType::identifier) && peekNext().type == TokenType::kwIn) {
      forInStatement();
      return;
    }
    beginScope();
    if (match(TokenType::semicolon)) {
    } else if (match(TokenType::kwLet)) {
      consume(TokenType::identifier, "expected a variable name after 'let'");
      declareLocal(previous_);
      if (match(TokenType::equal)) expression();
      else code_.emitOp(Op::NIL);
      consume(TokenType::semicolon, "expected ';' after the loop variable");
      markInitialized();
    } else {
      expressionStatement();
    }
    int start = code_.loopTarget();
    bool hasCondition = !match(TokenType::semicolon);
    LoopCondition condition{newCondition(), code_.newCodeBlock(), newJumpList(), newJumpList(), 0, 0};
    if (hasCondition) {
      condition = loopCondition();
      consume(TokenType::semicolon, "expected ';' after the loop condition");
      goIfTrue(condition.jumps);
    }
    CodeBlock increment = code_.newCodeBlock();
    if (!check(TokenType::rightParen)) {
      int incrementStart = code_.here();
      expression();
      code_.emitOp(Op::POP);
      increment = code_.cutCode(incrementStart);
    }
    if (!check(TokenType::rightParen)) skipToCloseParen("expected ')' after the for clauses");
    else advance();
    int bodyStart = code_.loopTarget();
    LoopState loop = beginLoop(-1);
    fn_->loop = &loop;
    body();
    code_.patchJumps(loop.continueJumps);
    code_.pasteCode(increment);
    if (!hasCondition) code_.emitLoop(bodyStart);
    else if (errors_.empty()) emitBottomTest(condition, bodyStart);
    else code_.emitLoop(start);
    code_.patchJumps(condition.jumps.whenFalse);
    endLoop(loop);
    endScope();
  }
  // Recovery when a for loop's clauses do not end at ')': reports, then skips to the
  // ')' that closes them (or the end of the file), so the body parses as one.
  void skipToCloseParen(const char* message) {
    errorAtCurrent(message);
    for (int depth = 0; !check(TokenType::eof) && (depth > 0 || !check(TokenType::rightParen)); advance()) {
      if (check(TokenType::leftParen) || check(TokenType::leftBracket) || check(TokenType::leftBrace)) ++depth;
      if (check(TokenType::rightParen) || check(TokenType::rightBracket) || check(TokenType::rightBrace)) --depth;
    }
    match(TokenType::rightParen);
  }

  // A loop's condition: as compiled at the top (`jumps`, the test there adds to it),
  // and its code before the test, which the bottom test copies, with its pending jumps
  // (as offsets into that code).
  struct LoopCondition {
    Condition jumps;
    CodeBlock code;
    JumpList trueJumps, falseJumps;
    int negations, negatedLine;
  };
  LoopCondition loopCondition() {
    int start = code_.here();
    Condition c = conditionClause();
    LoopCondition loop{c, code_.copyCode(start, code_.here()), c.whenTrue, c.whenFalse, c.negations, c.negatedLine};
    for (int& j : loop.trueJumps) j -= start;
    for (int& j : loop.falseJumps) j -= start;
    return loop;
  }
  // An inverted loop's bottom test: the condition's code again, its jumps taken when
  // it holds turned into LOOPs back to the body, those taken when it fails joining the
  // loop's exits, and its last operand tested by LOOP_IF_TRUE.
  void emitBottomTest(LoopCondition& condition, int bodyStart) {
    int start = code_.pasteCode(condition.code);
    code_.renewCaches(start);
    code_.adjustStack(1);  // the last operand's value (the top test recorded the peak)
    for (int j : condition.trueJumps) code_.turnIntoLoop(start + j, bodyStart);
    for (int j : condition.falseJumps) condition.jumps.whenFalse.push_back(start + j);
    code_.emitNots(condition.negations % 2, condition.negatedLine);
    code_.emitOp(Op::LOOP_IF_TRUE);
    code_.emitLoopOffset(bodyStart);
  }

  // for (x in array) body: hidden locals hold the array and the next index;
  // FOR_IN pushes the next element (a fresh `x` per iteration) or leaves the loop.
  void forInStatement() {
    consume(TokenType::identifier, "expected a loop variable");
    Token variable = previous_;
    consume(TokenType::kwIn, "expected 'in'");
    beginScope();
    expression();
    fn_->locals.push_back(Local{" array", fn_->scopeDepth, false});
    code_.emitOpU16(Op::SMALL_INT, 0);
    fn_->locals.push_back(Local{" index", fn_->scopeDepth, false});
    if (fn_->locals.size() > kMaxLocals) limitError(Limit::locals, "too many local variables in one function (256 at most)");
    consume(TokenType::rightParen, "expected ')' after the for-in clause");
    int arraySlot = static_cast<int>(fn_->locals.size()) - 2;
    int start = code_.loopTarget();
    LoopState loop = beginLoop(start);
    fn_->loop = &loop;
    code_.emitOpU8(Op::FOR_IN, arraySlot);
    code_.emitU16(0xffff);
    int exitJump = code_.here() - 2;
    beginScope();
    declareLocal(variable);
    markInitialized();
    body();
    endScope();
    code_.emitLoop(start);
    code_.patchJump(exitJump);  // the exit path pushes no element: the depth is back where it was
    endLoop(loop);
    endScope();
  }

  void breakStatement() {
    if (!fn_->loop) {
      semanticError("'break' outside a loop");
    } else {
      int depth = code_.stackDepth();
      for (int i = fn_->tryDepth; i > fn_->loop->tryDepth; --i) code_.emitOp(Op::END_TRY);
      emitPopsTo(fn_->loop->localCount);
      fn_->loop->breakJumps.push_back(code_.emitJump(Op::JUMP));
      code_.resetStackDepth(depth);
    }
    consume(TokenType::semicolon, "expected ';' after 'break'");
  }

  void continueStatement() {
    if (!fn_->loop) {
      semanticError("'continue' outside a loop");
    } else {
      int depth = code_.stackDepth();
      for (int i = fn_->tryDepth; i > fn_->loop->tryDepth; --i) code_.emitOp(Op::END_TRY);
      emitPopsTo(fn_->loop->localCount);
      if (fn_->loop->continueTarget >= 0) code_.emitLoop(fn_->loop->continueTarget);
      else fn_->loop->continueJumps.push_back(code_.emitJump(Op::JUMP));
      code_.resetStackDepth(depth);
    }
    consume(TokenType::semicolon, "expected ';' after 'continue'");
  }

  void returnStatement() {
    if (fn_->kind == FunctionKind::script) semanticError("can't return from top-level code");
    int depth = code_.stackDepth();
    if (match(TokenType::semicolon)) {
      emitReturn();
    } else {
      if (fn_->kind == FunctionKind::initializer) semanticError("can't return a value from 'init'");
      expression();
      consume(TokenType::semicolon, "expected ';' after the return value");
      code_.emitOp(Op::RETURN);
    }
    code_.resetStackDepth(depth);
  }

  // import "path"; — CONSTANT path, IMPORT (runs the module's top-level code as a
  // call, leaving its nil result, or nil when already imported), POP.
  void importStatement() {
    Token keyword = previous_;
    if (!isGlobalScope()) semanticError(keyword, "'import' is only allowed at top level");
    consume(TokenType::string, "expected a file path string after 'import'");
    if (previous_.type == TokenType::string) stringLiteral();
    consume(TokenType::semicolon, "expected ';' after the import");
    code_.emitOp(Op::IMPORT);
    code_.emitOp(Op::POP);
  }

  void throwStatement() {
    expression();
    consume(TokenType::semicolon, "expected ';' after the thrown value");
    code_.emitOp(Op::THROW);
  }

  void tryStatement() {
    consume(TokenType::leftBrace, "expected '{' after 'try'");
    int depth = code_.stackDepth();
    int handler = code_.emitJump(Op::TRY);
    ++fn_->tryDepth;
    beginScope();
    block();
    endScope();
    --fn_->tryDepth;
    code_.emitOp(Op::END_TRY);
    int skipCatch = code_.emitJump(Op::JUMP);
    code_.patchJump(handler);
    code_.resetStackDepth(depth);
    code_.adjustStack(1);  // the VM pushes the exception
    consume(TokenType::kwCatch, "expected 'catch' after the try block");
    consume(TokenType::leftParen, "expected '(' after 'catch'");
    beginScope();
    consume(TokenType::identifier, "expected a name for the caught value");
    declareLocal(previous_);
    markInitialized();
    consume(TokenType::rightParen, "expected ')' after the catch variable");
    consume(TokenType::leftBrace, "expected '{' after 'catch (...)'");
    beginScope();
    block();
    endScope();
    endScope();
    code_.patchJump(skipCatch);
  }

  // --- expressions and conditions ---------------------------------------------------------
  // One Pratt parser (as in clox) for values and conditions alike. `and`, `or` and `!`
  // compile to jump lists and pending NOTs (vm/jump_list.h, after Lua's expdesc in
  // lcode.c), settled by what the expression is for: goIfTrue for a condition, which
  // only decides jumps (Lua's luaK_goiftrue: a comparison tested by a jump fuses with
  // it later, JUMP_UNLESS_LESS ..., in fuseInstructions), toValue for a value.

  JumpList newJumpList() { return JumpList(ScratchAllocator<int>(&scratch_)); }
  Condition newCondition() { return Condition{newJumpList(), newJumpList()}; }

  void expression() { valueAt(Precedence::assignment); }
  // The value of the expression parsed at `precedence`.
  void valueAt(Precedence precedence) {
    Condition c = expressionAt(precedence, Purpose::value);
    toValue(c);
  }
  // The whole condition of an if, while or for: an assignment is allowed at its top.
  Condition conditionClause() { return expressionAt(Precedence::assignment, Purpose::truth); }

  static Precedence infixPrecedence(TokenType t) {
    switch (t) {
      case TokenType::leftParen: case TokenType::dot: case TokenType::leftBracket: return Precedence::call;
      case TokenType::kwOr: case TokenType::pipePipe: return Precedence::orP;
      case TokenType::kwAnd: case TokenType::ampAmp: return Precedence::andP;
      case TokenType::equalEqual: case TokenType::bangEqual: return Precedence::equality;
      case TokenType::less: case TokenType::lessEqual: case TokenType::greater: case TokenType::greaterEqual:
        return Precedence::comparison;
      case TokenType::pipe: return Precedence::bitOr;
      case TokenType::caret: return Precedence::bitXor;
      case TokenType::ampersand: return Precedence::bitAnd;
      case TokenType::shiftLeft: case TokenType::shiftRight: case TokenType::shiftRightLogical: return Precedence::shift;
      case TokenType::plus: case TokenType::minus: return Precedence::term;
      case TokenType::star: case TokenType::slash: case TokenType::percent: return Precedence::factor;
      default: return Precedence::none;
    }
  }

  // The expression at `precedence`, compiled for `purpose`; its jumps and NOTs still
  // pending. `and` and `or` are left-associative here: their jumps gather in one list.
  Condition expressionAt(Precedence precedence, Purpose purpose) {
    Level recursion(*this, recursion_, kMaxRecursion);
    Condition c = newCondition();
    bool canAssign = precedence <= Precedence::assignment;
    if (match(TokenType::bang) || match(TokenType::kwNot)) {
      auto level = nestedLevel();
      c = expressionAt(Precedence::unary, purpose);
      ++c.negations;
      c.negatedLine = previous_.line;
    } else {
      advance();
      if (!prefix(previous_.type, canAssign)) {
        expectedExpression();
        return c;
      }
    }
    while (precedence <= infixPrecedence(current_.type)) {
      advance();
      switch (previous_.type) {
        case TokenType::kwAnd: case TokenType::ampAmp: {
          goIfTrue(c, purpose);
          Condition right = expressionAt(Precedence::equality, purpose);
          right.whenFalse.insert(right.whenFalse.begin(), c.whenFalse.begin(), c.whenFalse.end());
          c = std::move(right);
          break;
        }
        case TokenType::kwOr: case TokenType::pipePipe: {
          goIfFalse(c, purpose);
          Condition right = expressionAt(Precedence::andP, purpose);
          right.whenTrue.insert(right.whenTrue.begin(), c.whenTrue.begin(), c.whenTrue.end());
          c = std::move(right);
          break;
        }
        default:
          // An operand of a tighter operator is a value. Only a negation can be pending
          // then: the jumps of `and` and `or` only come before looser operators.
          emitNegations(c);
          infix(previous_.type, canAssign);
      }
    }
    if (canAssign) rejectAssignment();
    return c;
  }

  // The NOTs a negated value still needs: all of them for its value, one or none for
  // its truth.
  void emitNegations(Condition& c, bool truthOnly = false) {
    if (!c.negations) return;  // the common case: nothing to emit
    code_.emitNots(truthOnly ? c.negations % 2 : c.negations, c.negatedLine);
    c.negations = 0;
  }
  // `and`'s left operand: the code after this runs when the condition holds; the jumps
  // taken when it fails join `whenFalse`. For its truth, the value on the stack (if
  // any) is tested and popped; for a value, JUMP_IF_FALSE jumps with the value kept,
  // as Lua's TESTSET: the value of `a and b` is a's when a fails.
  void goIfTrue(Condition& c, Purpose purpose = Purpose::truth) {
    if (purpose == Purpose::value) return testKeeping(c, Op::JUMP_IF_FALSE, c.whenTrue, c.whenFalse);
    if (c.valueOnStack) {
      emitNegations(c, true);
      c.whenFalse.push_back(code_.emitJump(Op::POP_JUMP_IF_FALSE));
      c.valueOnStack = false;
    }
    code_.patchJumps(c.whenTrue);
    c.whenTrue.clear();
  }
  // The other way round, for `or`: the code after this runs when the condition fails;
  // the jumps taken when it holds join `whenTrue` — for its truth plain JUMPs (so a
  // copy of them can become LOOPs), for a value JUMP_IF_TRUE, keeping it.
  void goIfFalse(Condition& c, Purpose purpose = Purpose::truth) {
    if (purpose == Purpose::value) return testKeeping(c, Op::JUMP_IF_TRUE, c.whenFalse, c.whenTrue);
    if (c.valueOnStack) {
      emitNegations(c, true);
      int skip = code_.emitJump(Op::POP_JUMP_IF_FALSE);
      c.whenTrue.push_back(code_.emitJump(Op::JUMP));
      code_.patchJump(skip);
      c.valueOnStack = false;
    }
    code_.patchJumps(c.whenFalse);
    c.whenFalse.clear();
  }
  // A value's test by `jump`, which keeps the value when it jumps (it joins `taken`)
  // and leaves it to be popped when it does not. The jumps of `arriving` carry a value
  // to be tested again: they land on the test.
  void testKeeping(Condition& c, Op jump, JumpList& arriving, JumpList& taken) {
    emitNegations(c);
    code_.patchJumps(arriving);
    arriving.clear();
    taken.push_back(code_.emitJump(jump));
    code_.emitOp(Op::POP);
    c.valueOnStack = false;
  }
  // An expression compiled for its value, made one (Lua's exp2reg): its pending NOTs,
  // then its jumps land here with the value each kept. Lua also loads true or false
  // for jumps that carry no value (a comparison's); compiled for a value, `and` and
  // `or` only make jumps that keep it, which the fuzz corpus and the workloads showed
  // cost no more.
  void toValue(Condition& c) {
    emitNegations(c);
    if (!c.whenFalse.empty()) code_.patchJumps(c.whenFalse);
    if (!c.whenTrue.empty()) code_.patchJumps(c.whenTrue);
  }

  // --- prefix and infix operators -------------------------------------------------------
  void expectedExpression() {
    errorAt(previous_, previous_.type == TokenType::eof ? "expected an expression, found end of file"
                                                        : "expected an expression, found '" + std::string(previous_.text) + "'");
  }
  // After an expression that could have been an assignment target and was not: `a + b = c`.
  void rejectAssignment() {
    if (!check(TokenType::equal)) return;
    errorAt(current_, "invalid assignment target");
    advance();
    expression();
  }

  bool prefix(TokenType type, bool canAssign) {
    switch (type) {
      case TokenType::leftParen: {
        auto level = nestedLevel();
        expression();
        consume(TokenType::rightParen, "expected ')' after the expression");
        return true;
      }
      case TokenType::minus: case TokenType::tilde: {  // `!` is expressionAt's
        auto level = nestedLevel();
        valueAt(Precedence::unary);
        code_.emitOp(type == TokenType::minus ? Op::NEGATE : Op::BIT_NOT);
        return true;
      }
      case TokenType::identifier: namedVariable(previous_, canAssign); return true;
      case TokenType::string: stringLiteral(); return true;
      case TokenType::integer: integerLiteral(); return true;
      case TokenType::floating: floatLiteral(); return true;
      case TokenType::kwNil: code_.emitOp(Op::NIL); return true;
      case TokenType::kwTrue: code_.emitOp(Op::TRUE); return true;
      case TokenType::kwFalse: code_.emitOp(Op::FALSE); return true;
      case TokenType::kwThis:
        if (!class_) semanticError("can't use 'this' outside of a method");
        else namedVariable(previous_, false);
        return true;
      case TokenType::kwSuper: superExpression(); return true;
      case TokenType::leftBracket: {
        auto level = nestedLevel();
        arrayLiteral();
        return true;
      }
      case TokenType::kwFn: function(FunctionKind::function, "<anonymous>"); return true;
      case TokenType::kwNew: newExpression(); return true;
      default: return false;
    }
  }

  void infix(TokenType type, bool canAssign) {
    switch (type) {
      case TokenType::leftParen: {
        auto level = nestedLevel();
        std::uint16_t callee = calleeNameHere();  // before the arguments' code
        int argc = argumentList();
        code_.emitOpU8(Op::CALL, argc);
        code_.emitU16(callee);
        code_.adjustStack(-argc);
        return;
      }
      case TokenType::dot: dot(canAssign); return;
      case TokenType::leftBracket: {
        auto level = nestedLevel();
        expression();
        consume(TokenType::rightBracket, "expected ']' after the index");
        if (canAssign && match(TokenType::equal)) {
          expression();
          code_.emitOp(Op::SET_INDEX);
        } else {
          code_.emitOp(Op::GET_INDEX);
        }
        return;
      }
      default: break;
    }
    // Binary operators are left-associative: the right operand binds one level tighter.
    Precedence p = infixPrecedence(type);
    valueAt(static_cast<Precedence>(static_cast<int>(p) + 1));
    switch (type) {
      case TokenType::equalEqual: code_.emitOp(Op::EQUAL); break;
      case TokenType::bangEqual: code_.emitOp(Op::NOT_EQUAL); break;
      case TokenType::less: code_.emitOp(Op::LESS); break;
      case TokenType::lessEqual: code_.emitOp(Op::LESS_EQUAL); break;
      case TokenType::greater: code_.emitOp(Op::GREATER); break;
      case TokenType::greaterEqual: code_.emitOp(Op::GREATER_EQUAL); break;
      case TokenType::pipe: code_.emitOp(Op::BIT_OR); break;
      case TokenType::caret: code_.emitOp(Op::BIT_XOR); break;
      case TokenType::ampersand: code_.emitOp(Op::BIT_AND); break;
      case TokenType::shiftLeft: code_.emitOp(Op::SHIFT_LEFT); break;
      case TokenType::shiftRight: code_.emitOp(Op::SHIFT_RIGHT); break;
      case TokenType::shiftRightLogical: code_.emitOp(Op::SHIFT_RIGHT_LOGICAL); break;
      case TokenType::plus: code_.emitOp(Op::ADD); break;
      case TokenType::minus: code_.emitOp(Op::SUBTRACT); break;
      case TokenType::star: code_.emitOp(Op::MULTIPLY); break;
      case TokenType::slash: code_.emitOp(Op::DIVIDE); break;
      case TokenType::percent: code_.emitOp(Op::MODULO); break;
      default: break;
    }
  }

  int argumentList() {
    int argc = 0;
    if (!check(TokenType::rightParen)) {
      do {
        expression();
        if (argc == kMaxArgs) error("can't pass more than 255 arguments");
        else ++argc;
      } while (match(TokenType::comma));
    }
    consume(TokenType::rightParen, "expected ')' after the arguments");
    return argc;
  }

  void dot(bool canAssign) {
    // After '.', a keyword is a property name too: LANGUAGE.md's `lib.fn(...)`.
    if (current_.type >= TokenType::kwLet && current_.type <= TokenType::kwImport) advance();
    else consume(TokenType::identifier, "expected a property name after '.'");
    std::string_view property = previous_.text;
    int sym = symbolFor(property);
    if (canAssign && match(TokenType::equal)) {
      newNearReceiver_ = check(TokenType::kwNew);  // obj.f = new C(...): build it near obj
      expression();
      code_.emitOpU16(Op::SET_PROPERTY, sym);
      code_.emitU16(code_.newCache());
    } else if (match(TokenType::leftParen)) {
      int argc = argumentList();
      code_.emitOpU16(Op::INVOKE, sym);
      code_.emitByte(static_cast<std::uint8_t>(argc));
      code_.emitU16(code_.newCache());
      code_.adjustStack(-argc);
    } else {
      code_.emitOpU16(Op::GET_PROPERTY, sym);
      code_.emitU16(code_.newCache());
      nameCallee(property);
    }
  }

  void superExpression() {
    Token keyword = previous_;
    if (!class_) semanticError(keyword, "can't use 'super' outside of a method");
    else if (!class_->hasSuperclass) semanticError(keyword, "can't use 'super' in a class without a superclass");
    consume(TokenType::dot, "expected '.' after 'super'");
    consume(TokenType::identifier, "expected a method name after 'super.'");
    int sym = symbolFor(previous_.text);
    if (!class_) return;
    Token self{TokenType::kwThis, "this", keyword.line, keyword.column};
    namedVariable(self, false);
    int classId = static_cast<int>(class_->klass->id);
    if (match(TokenType::leftParen)) {
      int argc = argumentList();
      code_.emitOpU16(Op::SUPER_INVOKE, classId);
      code_.emitU16(sym);
      code_.emitByte(static_cast<std::uint8_t>(argc));
      code_.adjustStack(-argc);
    } else {
      code_.emitOpU16(Op::GET_SUPER, classId);
      code_.emitU16(sym);
    }
  }

  void newExpression() {
    const bool nearReceiver = std::exchange(newNearReceiver_, false);
    consume(TokenType::identifier, "expected a class name after 'new'");
    namedVariable(previous_, false);
    consume(TokenType::leftParen, "expected '(' after the class name");
    int argc = argumentList();
    code_.emitOpU8(nearReceiver ? Op::NEW_NEAR : Op::NEW, argc);
    code_.adjustStack(-argc);
  }

  void arrayLiteral() {
    int count = 0;
    if (!check(TokenType::rightBracket)) {
      do {
        if (check(TokenType::rightBracket)) break;  // a trailing comma
        expression();
        if (++count > 0xffff) error("too many elements in an array literal");
      } while (match(TokenType::comma));
    }
    consume(TokenType::rightBracket, "expected ']' after the array elements");
    code_.emitOpU16(Op::ARRAY, count);
    code_.adjustStack(-count);
  }

  void integerLiteral() {
    std::string_view text = previous_.text;
    std::uint64_t value = 0;
    bool overflow = false;
    if (text.size() > 1 && (text[1] == 'x' || text[1] == 'X')) {
      // Hexadecimal literals denote a 64-bit pattern, as in Java: 0xFFFFFFFFFFFFFFFF is -1.
      for (char c : text.substr(2)) {
        if (c == '_') continue;
        int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (value >> 60) overflow = true;
        value = value << 4 | static_cast<std::uint64_t>(digit);
      }
    } else {
      for (char c : text) {
        if (c == '_') continue;
        auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (static_cast<std::uint64_t>(INT64_MAX) - digit) / 10) overflow = true;
        value = value * 10 + digit;
      }
    }
    if (overflow) {
      semanticError("integer literal out of range: " + std::string(text));
      return code_.emitOp(Op::NIL);
    }
    auto v = static_cast<std::int64_t>(value);
    if (v >= INT16_MIN && v <= INT16_MAX) {
      code_.emitOpU16(Op::SMALL_INT, static_cast<int>(static_cast<std::uint16_t>(v)));
    } else {
      code_.emitOpU16(Op::CONSTANT, code_.makeConstant(Value::integer(v)));
    }
  }

  void floatLiteral() {
    std::string digits;
    for (char c : previous_.text)
      if (c != '_') digits += c;
    double d = std::strtod(digits.c_str(), nullptr);  // overflow gives inf, as in Java's parser
    code_.emitOpU16(Op::CONSTANT, code_.makeConstant(Value::floating(d)));
  }

  void stringLiteral() {
    std::string_view raw = previous_.text.substr(1, previous_.text.size() - 2);
    ScratchString out{ScratchAllocator<char>(&scratch_)};
    for (std::size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++i >= raw.size()) break;
      switch (raw[i]) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '0': out += '\0'; break;
        case 'u': {
          std::size_t close = raw.find('}', i);
          std::uint32_t code = 0;
          bool ok = i + 1 < raw.size() && raw[i + 1] == '{' && close != std::string_view::npos &&
                    close > i + 2 && close - i - 2 <= 6;
          if (ok) {
            for (std::size_t k = i + 2; k < close; ++k) {
              char h = raw[k];
              int digit = (h >= '0' && h <= '9') ? h - '0'
                          : ((h | 0x20) >= 'a' && (h | 0x20) <= 'f') ? (h | 0x20) - 'a' + 10 : -1;
              if (digit < 0) ok = false;
              code = code * 16 + static_cast<std::uint32_t>(digit < 0 ? 0 : digit);
            }
          }
          if (!ok || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            semanticError("invalid unicode escape in string (write \\u{HEX}, up to 10FFFF)");
            return code_.emitOp(Op::NIL);
          }
          appendUtf8(out, code);
          i = close;
          break;
        }
        default:
          semanticError(std::string("invalid escape sequence '\\") + raw[i] + "' in string");
          return code_.emitOp(Op::NIL);
      }
    }
    code_.emitOpU16(Op::CONSTANT, code_.stringConstant(std::string_view(out.data(), out.size())));
  }

  static void appendUtf8(ScratchString& out, std::uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  VM& vm_;
  Lexer lexer_;
  std::string_view file_;
  CompilerScratch& scratch_;
  CodeEmitter code_;
  Token current_, previous_, lookahead_;
  bool hasLookahead_ = false;
  bool panic_ = false;
  int nesting_ = 0;    // syntactic levels open (kMaxNesting)
  int recursion_ = 0;  // recursive parse calls open (kMaxRecursion)
  std::vector<std::string> errors_;             // the first kMaxErrorsShown
  std::vector<SourcePosition> errorPositions_;  // where each of errors_ is
  std::size_t errorsNotShown_ = 0;              // errors found past them
  std::string lastError_;                       // the last error found, shown or not
  bool outOfMemory_ = false;                    // CompileResult::outOfMemory
  FunctionState* fn_ = nullptr;
  ClassState* class_ = nullptr;
  std::string_view calleeName_;            // see nameCallee (a token's text: the source outlives it)
  const void* calleeFn_ = nullptr;
  std::size_t calleeEnd_ = 0;
  bool newNearReceiver_ = false;  // the next `new` is the right side of obj.f = ... (NEW_NEAR)
  ScratchNameSet topLevelNames_;
};

}  // namespace

CompileResult compile(VM& vm, std::string_view source, std::string_view fileName, CompilerHeap heap) {
  std::unique_ptr<CompilerScratch> scratch = makeCompilerScratch(heap);
  CompileResult result;
  {
    Compiler compiler(vm, source, fileName, *scratch);
    result = compiler.compileScript();
  }
  result.fileName = std::string(fileName);
  SourceLines lines(source);
  for (const SourcePosition& at : result.errorPositions) result.excerpts.push_back(lines.excerpt(at));
  result.scratch = scratch->stats();
  return result;  // a region's chunks go back to the system here, all at once
}

}  // namespace kith::vm
