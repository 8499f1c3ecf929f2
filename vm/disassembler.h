// `kith disasm`: the bytecode of a compiled script, one instruction per line with
// its offset and source line, each nested function after its parent.
#pragma once

#include <string>

namespace kith::vm {

class VM;
struct FunctionProto;

std::string disassemble(VM& vm, const FunctionProto& proto);
// One instruction at `offset`; sets `next` to the following instruction's offset.
std::string disassembleInstruction(VM& vm, const FunctionProto& proto, std::size_t offset, std::size_t& next);

}  // namespace kith::vm
