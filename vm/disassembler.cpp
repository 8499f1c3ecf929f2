#include "vm/disassembler.h"

#include <cstdio>
#include <optional>
#include <string_view>

#include "vm/object.h"
#include "vm/opcodes.h"
#include "vm/utf8.h"
#include "vm/vm.h"

namespace kith::vm {
namespace {

// Text as a Kith string literal would write it, with the control characters
// escaped (C0, DEL and C1 as \u{...}), so a listing shows every byte and sends a
// terminal no escape sequence; a byte that is not UTF-8 shows as \xHH.
std::string escapedText(std::string_view text) {
  std::string out;
  char code[16];
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    std::optional<Utf8Character> character = decodeUtf8(text.substr(i));
    if (!character) {
      std::snprintf(code, sizeof code, "\\x%02X", static_cast<unsigned char>(c));
      out += code;
      ++i;
      continue;
    }
    char32_t u = character->code;
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\0') out += "\\0";
    else if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (u < 0x20 || (u >= 0x7f && u < 0xa0)) {
      std::snprintf(code, sizeof code, "\\u{%X}", static_cast<unsigned>(u));
      out += code;
    } else {
      out.append(text, i, character->length);
    }
    i += character->length;
  }
  return out;
}

std::string constantText(VM& vm, Value v) {
  if (vm.isKind(v, ObjectKind::string)) return "\"" + escapedText(vm.stringView(v)) + "\"";
  return vm.toDisplayString(v);
}

// One operand as the listing shows it, by its kind (vm/opcodes.h); `next` is the
// instruction's end, which a closure's captures move on. Empty: nothing to show.
std::string operandText(VM& vm, const FunctionProto& proto, Operand kind, std::size_t at, bool first,
                        std::size_t& next) {
  const auto& code = proto.code;
  auto u8 = [&](std::size_t i) { return static_cast<unsigned>(code[i]); };
  unsigned value = operandSize(kind) == 1 ? u8(at) : u8(at) | (u8(at + 1) << 8);
  std::string number = std::to_string(value);
  switch (kind) {
    case Operand::slot: case Operand::upvalue: case Operand::count: case Operand::values: return number;
    case Operand::target: return "-> " + number;
    case Operand::iterator: return "slot " + number;
    case Operand::argc: return first ? number : "(" + number + " args)";  // after a name, it says what it is
    case Operand::hasSuperclass: return value ? "< super" : "";
    case Operand::smallInt: return std::to_string(static_cast<std::int16_t>(value));
    case Operand::constant: return number + " " + constantText(vm, proto.constants[value]);
    case Operand::global: return number + " '" + vm.globalName(value) + "'";
    case Operand::symbol: return "'" + vm.symbolName(static_cast<int>(value)) + "'";
    case Operand::calleeName: return value == kNoCalleeName ? "" : "'" + vm.symbolName(static_cast<int>(value)) + "'";
    case Operand::cache: return "cache " + number;
    case Operand::classId: return vm.classById(value)->name;
    case Operand::forwardJump: return "-> " + std::to_string(next + value);
    case Operand::exitJump: return "exit -> " + std::to_string(next + value);
    case Operand::backwardJump: return "-> " + std::to_string(next - value);
    case Operand::closure: {
      const FunctionProto* fn = proto.functions[value];
      std::string out = number + " <fn " + fn->name + ">";
      for (int i = 0; i < fn->upvalueCount; ++i) {
        out += std::string(i ? ", " : " captures ") + (u8(next) ? "local " : "upvalue ") + std::to_string(u8(next + 1));
        next += 2;
      }
      return out;
    }
  }
  return number;
}

}  // namespace

std::string disassembleInstruction(VM& vm, const FunctionProto& proto, std::size_t offset, std::size_t& next) {
  const auto& code = proto.code;
  char prefix[32];
  bool sameLine = offset > 0 && proto.lines[offset] == proto.lines[offset - 1];
  if (sameLine) std::snprintf(prefix, sizeof prefix, "%04zu    | ", offset);
  else std::snprintf(prefix, sizeof prefix, "%04zu %4d ", offset, proto.lines[offset]);
  std::string out = prefix;
  auto op = static_cast<Op>(code[offset]);
  if (static_cast<int>(op) >= kOpCount) {
    next = offset + 1;
    return out + "<bad opcode " + std::to_string(code[offset]) + ">";
  }
  const OpInfo& info = opInfo(op);
  char name[32];
  std::snprintf(name, sizeof name, "%-19s", info.name);  // a column
  out += name;
  next = offset + 1 + static_cast<std::size_t>(info.operandBytes);
  for (int i = 0; i < info.format.count; ++i) {
    std::size_t at = offset + static_cast<std::size_t>(info.format.offsetOf(i));
    std::string text = operandText(vm, proto, info.format.kinds[i], at, i == 0, next);
    if (!text.empty()) out += " " + text;  // a space after longer names too
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string disassemble(VM& vm, const FunctionProto& proto) {
  std::string out = "== " + proto.name + " (" + escapedText(proto.file) + ") arity " + std::to_string(proto.arity) +
                    ", max stack " + std::to_string(proto.maxStack) + " ==\n";
  for (std::size_t offset = 0; offset < proto.code.size();) {
    std::size_t next;
    out += disassembleInstruction(vm, proto, offset, next) + "\n";
    offset = next;
  }
  for (const FunctionProto* fn : proto.functions) out += "\n" + disassemble(vm, *fn);
  return out;
}

}  // namespace kith::vm
