// The compiler's last step over a finished function: common instruction sequences
// become one instruction each (the fused opcodes in vm/opcodes.h), so the emitter
// itself only ever writes plain instructions. A sequence fuses only when no jump lands
// inside it; jump offsets and the line table are rebuilt for the shorter code.
#pragma once

#include <cstddef>
#include <span>

namespace kith::vm {

struct FunctionProto;

// The length in bytes of the instruction at `at` (CLOSURE carries two bytes per upvalue).
std::size_t instructionLength(const FunctionProto& proto, std::size_t at);

// Rewrites proto.code and proto.lines in place. Besides every jump's target, the
// offsets in `labels` are kept as instruction boundaries nothing fuses across (where
// a loop starts, say). The code must be complete: every jump patched.
void fuseInstructions(FunctionProto& proto, std::span<const int> labels);

}  // namespace kith::vm
