#include "vm/module_loader.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "vm/compiler.h"
#include "vm/source_file.h"
#include "vm/vm.h"

namespace kith::vm {

namespace {

// Files are the same when their resolved paths are (symlinks and `..` followed).
bool resolvedPath(const std::string& path, std::string& resolved, std::string& error) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer)) {
    error = std::strerror(errno);
    return false;
  }
  resolved = buffer;
  return true;
}

}  // namespace

void ModuleLoader::noteMainScript(const std::string& path) {
  std::string resolved, error;
  if (resolvedPath(path, resolved, error)) imported_.insert(resolved);
}

FunctionProto* ModuleLoader::load(VM& vm, const std::string& path, const std::string& importerFile) {
  namespace fs = std::filesystem;
  // Relative to the importing file's folder; shown to the user in that spelling.
  fs::path written(path);
  std::string located =
      written.is_absolute() ? path : (fs::path(importerFile).parent_path() / written).lexically_normal().string();
  // A C path ends at its first NUL: "x.kith\0junk" would import x.kith.
  if (path.find('\0') != std::string::npos) vm.throwError("cannot import: the path contains a NUL byte");
  std::string resolved, error;
  if (path.empty()) error = "empty path";
  // What is not a regular file is refused before resolving: /dev/stdin resolves to a
  // pipe or terminal whose name is no file at all.
  else if (isRegularSourceFile(located, error)) resolvedPath(located, resolved, error);
  if (error.empty() && refusal_) error = refusal_(located);
  if (!error.empty()) vm.throwError("cannot import '" + path + "': " + error);
  if (imported_.count(resolved)) return nullptr;
  std::optional<std::string> source = readSourceFile(located, error);
  if (!source) vm.throwError("cannot import '" + path + "': " + error);
  std::size_t constantRoots = vm.constantRootCount();
  CompileResult compiled = compile(vm, *source, located);
  if (!compiled.script) {
    vm.dropConstantRoots(constantRoots);  // the code never runs
    throw ImportCompileError{compiled.reportLines(), compiled.outOfMemory};
  }
  imported_.insert(resolved);  // before its code runs: an import cycle ends here
  running_.push_back({compiled.script, resolved, kNotStarted});
  return compiled.script;
}

void ModuleLoader::started(std::size_t frame) { running_.back().frame = frame; }

void ModuleLoader::unwound(const CallFrame* frames, std::size_t from, std::size_t to) {
  std::erase_if(running_, [&](const Running& r) {
    if (r.frame != kNotStarted && r.frame < from) return false;  // below the unwinding: still running, or done
    // The module's frame was live when the exception came (a finished module's slot
    // holds another function by then, and it never runs twice), or it never started.
    bool failed = r.frame == kNotStarted || (r.frame < to && frames[r.frame].proto == r.module);
    if (failed) imported_.erase(r.resolved);
    return true;
  });
}

}  // namespace kith::vm
