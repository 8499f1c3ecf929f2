#include "cli/script_source.h"

#include <unistd.h>

#include "vm/source_file.h"

namespace kith::cli {

std::string scriptName(const std::string& path) { return path == kStandardInputPath ? kStandardInputName : path; }

std::optional<std::string> readScriptSource(const std::string& path, std::string& error) {
  if (path == kStandardInputPath) return vm::readSourceDescriptor(STDIN_FILENO, error);
  return vm::readSourceFile(path, error);
}

}  // namespace kith::cli
