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

}  // namespace

std::string disassembleInstruction(VM& vm, const FunctionProto& proto, std::size_t offset, std::size_t& next) {
  const auto& code = proto.code;
  auto u8 = [&](std::size_t at) { return static_cast<unsigned>(code[at]); };
  auto u16 = [&](std::size_t at) { return static_cast<unsigned>(code[at] | (code[at + 1] << 8)); };
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
  const OpInfo& info = kOpInfo[static_cast<int>(op)];
  char name[32];
  std::snprintf(name, sizeof name, "%-19s ", info.name);  // a column, and a space after longer names
  out += name;
  std::size_t a = offset + 1;
  next = a + static_cast<std::size_t>(info.operandBytes);
  switch (op) {
    case Op::CONSTANT: out += std::to_string(u16(a)) + " " + constantText(vm, proto.constants[u16(a)]); break;
    case Op::SMALL_INT: case Op::ADD_SMALL: case Op::SUB_SMALL:
      out += std::to_string(static_cast<std::int16_t>(u16(a)));
      break;
    case Op::CALL:
      out += std::to_string(u8(a));
      if (u16(a + 1) != kNoCalleeName) out += " '" + vm.symbolName(u16(a + 1)) + "'";
      break;
    case Op::GET_LOCAL: case Op::SET_LOCAL: case Op::SET_LOCAL_POP: case Op::GET_UPVALUE: case Op::SET_UPVALUE:
    case Op::NEW: case Op::NEW_NEAR:
      out += std::to_string(u8(a));
      break;
    case Op::GET_LOCAL2: case Op::ADD_LL: case Op::SUB_LL: case Op::MUL_LL:
      out += std::to_string(u8(a)) + " " + std::to_string(u8(a + 1));
      break;
    case Op::ADD_LL_TO: case Op::SUB_LL_TO: case Op::MUL_LL_TO:
      out += std::to_string(u8(a)) + " " + std::to_string(u8(a + 1)) + " -> " + std::to_string(u8(a + 2));
      break;
    case Op::ADD_L_TO: case Op::SUB_L_TO: case Op::MUL_L_TO:
      out += std::to_string(u8(a)) + " -> " + std::to_string(u8(a + 1));
      break;
    case Op::ADD_L: case Op::SUB_L: case Op::MUL_L: out += std::to_string(u8(a)); break;
    case Op::ADD_LOCAL_SMALL:
      out += std::to_string(u8(a)) + " " + std::to_string(static_cast<std::int16_t>(u16(a + 1)));
      break;
    case Op::GET_GLOBAL: case Op::SET_GLOBAL: case Op::DEFINE_GLOBAL:
      out += std::to_string(u16(a)) + " '" + vm.globalName(u16(a)) + "'";
      break;
    case Op::GET_PROPERTY: case Op::SET_PROPERTY: case Op::SET_PROPERTY_POP:
      out += "'" + vm.symbolName(static_cast<int>(u16(a))) + "' cache " + std::to_string(u16(a + 2));
      break;
    case Op::METHOD: out += "'" + vm.symbolName(static_cast<int>(u16(a))) + "'"; break;
    case Op::INVOKE:
      out += "'" + vm.symbolName(static_cast<int>(u16(a))) + "' (" + std::to_string(u8(a + 2)) + " args) cache " +
             std::to_string(u16(a + 3));
      break;
    case Op::GET_SUPER:
      out += vm.classById(u16(a))->name + " '" + vm.symbolName(static_cast<int>(u16(a + 2))) + "'";
      break;
    case Op::SUPER_INVOKE:
      out += vm.classById(u16(a))->name + " '" + vm.symbolName(static_cast<int>(u16(a + 2))) + "' (" +
             std::to_string(u8(a + 4)) + " args)";
      break;
    case Op::JUMP: case Op::JUMP_IF_FALSE: case Op::JUMP_IF_TRUE: case Op::POP_JUMP_IF_FALSE: case Op::TRY:
    case Op::JUMP_UNLESS_LESS: case Op::JUMP_UNLESS_LESS_EQUAL: case Op::JUMP_UNLESS_GREATER:
    case Op::JUMP_UNLESS_GREATER_EQUAL: case Op::JUMP_UNLESS_EQUAL: case Op::JUMP_UNLESS_NOT_EQUAL:
      out += "-> " + std::to_string(next + u16(a));
      break;
    case Op::LOOP: case Op::LOOP_IF_TRUE: case Op::LOOP_IF_LESS: case Op::LOOP_IF_LESS_EQUAL:
    case Op::LOOP_IF_GREATER: case Op::LOOP_IF_GREATER_EQUAL: out += "-> " + std::to_string(next - u16(a)); break;
    case Op::FOR_IN: out += "slot " + std::to_string(u8(a)) + " exit -> " + std::to_string(next + u16(a + 1)); break;
    case Op::CLASS: out += vm.classById(u16(a))->name + (u8(a + 2) ? " < super" : ""); break;
    case Op::ARRAY: out += std::to_string(u16(a)); break;
    case Op::CLOSURE: {
      const FunctionProto* fn = proto.functions[u16(a)];
      out += std::to_string(u16(a)) + " <fn " + fn->name + ">";
      for (int i = 0; i < fn->upvalueCount; ++i) {
        out += std::string(i ? ", " : " captures ") + (u8(next) ? "local " : "upvalue ") + std::to_string(u8(next + 1));
        next += 2;
      }
      break;
    }
    default: break;
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
