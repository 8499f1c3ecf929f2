#include "cli/script_source.h"

#include <cerrno>
#include <cstring>

#include "vm/source_file.h"

namespace kith::cli {

std::string scriptName(const std::string& path) { return path == kStandardInputPath ? kStandardInputName : path; }

std::optional<std::string> readSourceStream(std::FILE* stream, std::string& error) {
  std::string text;
  char buffer[65536];
  for (;;) {
    std::size_t n = std::fread(buffer, 1, sizeof buffer, stream);
    text.append(buffer, n);
    if (text.size() > vm::kMaxSourceBytes) {
      error = "source too large";
      return std::nullopt;
    }
    if (n < sizeof buffer) break;
  }
  if (std::ferror(stream)) {
    error = errno ? std::strerror(errno) : "read error";
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> readScriptSource(const std::string& path, std::string& error) {
  if (path == kStandardInputPath) return readSourceStream(stdin, error);
  return vm::readSourceFile(path, error);
}

}  // namespace kith::cli
