#include "vm/code_emitter.h"

#include "vm/vm.h"

namespace kith::vm {

void CodeEmitter::emitNots(int count, int line) {
  for (int i = 0; i < count; ++i) {
    emitOp(Op::NOT);
    fn_->proto->lines.back() = line;
  }
}

void CodeEmitter::patchJump(int at) {
  std::size_t jump = fn_->proto->code.size() - static_cast<std::size_t>(at) - 2;
  if (jump > 0xffff) limits_.limitPassed(Limit::jump, "too much code to jump over");
  writeU16(static_cast<std::size_t>(at), jump);
}

void CodeEmitter::emitLoopOffset(int start) {
  std::size_t offset = fn_->proto->code.size() - static_cast<std::size_t>(start) + 2;
  if (offset > 0xffff) limits_.limitPassed(Limit::loopBody, "loop body too large");
  emitU16(static_cast<int>(offset));
}

void CodeEmitter::turnIntoLoop(int at, int start) {
  fn_->proto->code[static_cast<std::size_t>(at - 1)] = static_cast<std::uint8_t>(Op::LOOP);
  std::size_t offset = static_cast<std::size_t>(at + 2 - start);
  if (offset > 0xffff) limits_.limitPassed(Limit::loopBody, "loop body too large");
  writeU16(static_cast<std::size_t>(at), offset);
}

int CodeEmitter::makeConstant(Value v) {
  auto& constants = fn_->proto->constants;
  for (std::size_t i = 0; i < constants.size(); ++i) {  // reuse numbers
    const Value& c = constants[i];
    // Same bits: the same int or float (0.0 and -0.0 stay apart); boxed ints by value.
    bool same = c.sameAs(v) ? !v.isObject() : (c.isBoxedInt() && v.isBoxedInt() && c.asInt() == v.asInt());
    if (same) return static_cast<int>(i);
  }
  if (constants.size() > 0xffff) {
    limits_.limitPassed(Limit::constants, "too many constants in one function");
    return 0;
  }
  constants.push_back(v);
  if (v.isObject() || v.isBoxedInt()) vm_.rootConstant(v);
  return static_cast<int>(constants.size() - 1);
}

int CodeEmitter::stringConstant(std::string_view text) {
  auto& constants = fn_->proto->constants;
  for (std::size_t i = 0; i < constants.size(); ++i)
    if (vm_.isKind(constants[i], ObjectKind::string) && vm_.stringView(constants[i]) == text)
      return static_cast<int>(i);
  if (constants.size() > 0xffff) {
    limits_.limitPassed(Limit::constants, "too many constants in one function");
    return 0;
  }
  try {
    // The string joins the constants (a root) at once: std::string copy first,
    // because `text` may come from the scratch heap, never from the VM heap.
    Value s = vm_.newString(text);
    constants.push_back(s);
    vm_.rootConstant(s);
  } catch (const KithThrow&) {
    vm_.clearException();
    limits_.limitPassed(Limit::constantsMemory,
                        "out of memory while compiling: the heap is too small for the program's constants");
    constants.push_back(Value::nil());
  }
  return static_cast<int>(constants.size() - 1);
}

int CodeEmitter::newCache() {
  auto& caches = fn_->proto->caches;
  if (caches.size() > 0xffff) {
    limits_.limitPassed(Limit::propertyAccesses, "too many property accesses in one function");
    return 0;
  }
  caches.emplace_back();
  return static_cast<int>(caches.size() - 1);
}

CodeBlock CodeEmitter::copyCode(int from, int to) {
  CodeBlock block = newCodeBlock();
  auto& code = fn_->proto->code;
  auto& lines = fn_->proto->lines;
  block.code.assign(code.begin() + from, code.begin() + to);
  block.lines.assign(lines.begin() + from, lines.begin() + to);
  return block;
}

CodeBlock CodeEmitter::cutCode(int from) {
  CodeBlock block = copyCode(from, here());
  fn_->proto->code.resize(static_cast<std::size_t>(from));
  fn_->proto->lines.resize(static_cast<std::size_t>(from));
  return block;
}

int CodeEmitter::pasteCode(const CodeBlock& block) {
  int start = here();
  fn_->proto->code.insert(fn_->proto->code.end(), block.code.begin(), block.code.end());
  fn_->proto->lines.insert(fn_->proto->lines.end(), block.lines.begin(), block.lines.end());
  return start;
}

void CodeEmitter::renewCaches(int from) {
  FunctionProto& p = *fn_->proto;
  for (auto at = static_cast<std::size_t>(from); at < p.code.size(); at += instructionLength(p, at)) {
    int operand = cacheOperand(static_cast<Op>(p.code[at]));
    if (operand) writeU16(at + static_cast<std::size_t>(operand), static_cast<std::size_t>(newCache()));
  }
}

}  // namespace kith::vm
