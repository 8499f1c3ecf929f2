// `import "path.kith";` (LANGUAGE.md, Modules): which files have been imported,
// where an import's path points, and compiling the file it names. Running the
// module's top-level code is the interpreter's part (OP_IMPORT calls it like a
// function of no arguments, so its frames appear in stack traces).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

namespace kith::vm {

class VM;
struct CallFrame;
struct FunctionProto;

// Compile errors in an imported file: the runner prints them and exits 65, as
// for the main script. Unwinds the interpreter like ExitRequest.
struct ImportCompileError {
  std::vector<std::string> report;  // CompileResult::reportLines: errors with their excerpts
  bool outOfMemory = false;         // CompileResult::outOfMemory
};

class ModuleLoader {
 public:
  // The main script counts as imported, so a cycle back to it does nothing.
  void noteMainScript(const std::string& path);
  // The module `path` (as written) names, imported from a file at `importerFile`:
  // its compiled top-level code, or nullptr when that file was imported already (or
  // is being imported: a cycle). A missing or unreadable file throws the runtime
  // error "cannot import 'PATH': REASON"; compile errors throw ImportCompileError,
  // and the file is not counted as imported (nor are its constants kept).
  FunctionProto* load(VM& vm, const std::string& path, const std::string& importerFile);
  // The module load() returned last now runs in frames[frame].
  void started(std::size_t frame);
  // Whether any module may still be running (then unwinding asks unwound()).
  bool running() const { return !running_.empty(); }
  // An exception dropped frames[from, to): a module whose top-level code was among
  // them (or never started) failed, and is forgotten, so that importing it again
  // runs it again. The globals it defined before the error stay defined.
  void unwound(const CallFrame* frames, std::size_t from, std::size_t to);
  // A file `refusal` gives a reason for is not imported: the runtime error
  // "cannot import 'PATH': REASON" (VMOptions::importRefusal).
  void setRefusal(std::function<std::string(const std::string& path)> refusal) { refusal_ = std::move(refusal); }

 private:
  // A module load() returned, until an unwinding finds it finished or failed.
  struct Running {
    FunctionProto* module;
    std::string resolved;
    std::size_t frame;  // kNotStarted until started()
  };
  static constexpr std::size_t kNotStarted = SIZE_MAX;

  std::unordered_set<std::string> imported_;  // resolved (real) paths
  std::function<std::string(const std::string& path)> refusal_;
  std::vector<Running> running_;
};

}  // namespace kith::vm
