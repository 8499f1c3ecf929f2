#include "vm/source_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kith::vm {

std::optional<std::string> readSourceFile(const std::string& path, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  bool failed = std::ferror(f) != 0;
  int readErrno = errno;
  std::fclose(f);
  if (failed) {
    error = std::strerror(readErrno ? readErrno : EIO);
    return std::nullopt;
  }
  return text;
}

}  // namespace kith::vm
