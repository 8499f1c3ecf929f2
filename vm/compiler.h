// The compiler: one pass from source to bytecode (a Pratt parser, as in clox).
// Conditions compile to jump lists (vm/jump_list.h, after Lua's lcode.c); the emitter
// writes plain instructions and fuseInstructions (vm/peephole.h) fuses each finished
// function. Its temporary data — scopes, locals tables, upvalue lists, jump lists,
// the top-level name set — lives in a scratch heap (vm/compiler_scratch.h): by default
// a ZoneHeap region over the system allocator, released in one step when
// compilation ends; `heap` picks another (vm/compiler_heap.h) for the experiment.
// What outlives compilation — FunctionProtos, ClassInfos (method area) and string
// constants (VM heap objects) — belongs to the VM.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vm/compiler_scratch.h"
#include "vm/source_excerpt.h"

namespace kith::vm {

class VM;
struct FunctionProto;

struct CompileResult {
  FunctionProto* script = nullptr;  // nullptr when there were errors
  std::vector<std::string> errors;  // "FILE:LINE:COL: error: MESSAGE", in source order
  std::vector<SourcePosition> errorPositions;      // where each error is
  std::vector<std::vector<std::string>> excerpts;  // each error's source lines (sourceExcerpt)
  ScratchStats scratch;             // the bytes the scratch heap held
  // Among the errors, "out of memory while compiling": the heap could not hold a
  // constant. A runtime failure, not the source's (kith run exits 70 for it, not 65).
  bool outOfMemory = false;

  // What stderr shows: each error line followed by its excerpt's lines.
  std::vector<std::string> reportLines() const {
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      lines.push_back(errors[i]);
      if (i < excerpts.size()) lines.insert(lines.end(), excerpts[i].begin(), excerpts[i].end());
    }
    return lines;
  }
};

CompileResult compile(VM& vm, std::string_view source, std::string_view fileName,
                      CompilerHeap heap = CompilerHeap::zone);

}  // namespace kith::vm
