// The compiler: one pass from source to bytecode (a Pratt parser, as in clox).
// Expressions compile to jump lists (vm/jump_list.h, after Lua's lcode.c), settled as
// a condition's jumps or as a value; the parser decides what to emit and the emitter
// (vm/code_emitter.h) writes it, plain instructions that fuseInstructions
// (vm/peephole.h) fuses in each finished function. Its temporary data — scopes, locals tables, upvalue lists, jump lists,
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

// The errors a compilation reports, as Clang's -ferror-limit: a file with an error on
// each of 100,000 lines gives the first ones and a count of the rest, not 10 MB of
// stderr. The compiler still reads to the end, so the count is of every error found.
inline constexpr std::size_t kMaxErrorsShown = 20;

struct CompileResult {
  FunctionProto* script = nullptr;  // nullptr when there were errors
  std::vector<std::string> errors;  // "FILE:LINE:COL: error: MESSAGE", in source order; the first kMaxErrorsShown
  std::vector<SourcePosition> errorPositions;      // where each error is
  std::vector<std::vector<std::string>> excerpts;  // each error's source lines (SourceLines::excerpt)
  std::size_t errorsNotShown = 0;   // errors found after the first kMaxErrorsShown
  std::string fileName;             // the FILE of the error lines
  ScratchStats scratch;             // the bytes the scratch heap held
  // Among the errors, "out of memory while compiling": the heap could not hold a
  // constant. A runtime failure, not the source's (kith run exits 70 for it, not 65).
  bool outOfMemory = false;

  // What stderr shows: each error line followed by its excerpt's lines, then, past
  // the limit, "FILE: N more errors not shown (the first 20 are)".
  std::vector<std::string> reportLines() const {
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      lines.push_back(errors[i]);
      if (i < excerpts.size()) lines.insert(lines.end(), excerpts[i].begin(), excerpts[i].end());
    }
    if (errorsNotShown > 0)
      lines.push_back(fileName + ": " + std::to_string(errorsNotShown) + " more error" + (errorsNotShown == 1 ? "" : "s") +
                      " not shown (the first " + std::to_string(kMaxErrorsShown) + " are)");
    return lines;
  }
};

CompileResult compile(VM& vm, std::string_view source, std::string_view fileName,
                      CompilerHeap heap = CompilerHeap::zone);

}  // namespace kith::vm
