#include "preload/stderr_line.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace kith::preload {
namespace {

int keptFd = -1;
struct stat keptFile {};

bool sameFile(int fd, const struct stat& file) {
  struct stat now {};
  return ::fstat(fd, &now) == 0 && now.st_dev == file.st_dev && now.st_ino == file.st_ino;
}

int standardError() {
  if (keptFd >= 0 && sameFile(keptFd, keptFile)) return keptFd;
  return STDERR_FILENO;
}

}  // namespace

void keepStandardError() {
  if (keptFd >= 0) return;
  int fd = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
  if (fd < 0) return;
  if (::fstat(fd, &keptFile) != 0) {
    ::close(fd);
    return;
  }
  keptFd = fd;
}

void writeStderrLine(const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(line, sizeof line - 1, format, args);
  va_end(args);
  if (n < 0) return;
  std::size_t size = static_cast<std::size_t>(n) < sizeof line - 1 ? static_cast<std::size_t>(n) : sizeof line - 2;
  line[size++] = '\n';
  writeStderr(line, size);
}

void writeStderr(const char* data, unsigned long size) { writeAll(standardError(), data, size); }

bool writeAll(int fd, const char* data, unsigned long size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<unsigned long>(n);
  }
  return true;
}

}  // namespace kith::preload
