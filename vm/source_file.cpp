#include "vm/source_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kith::vm {

namespace {

bool regularFileStatus(const struct stat& status, std::string& error) {
  if (S_ISDIR(status.st_mode)) {
    error = std::strerror(EISDIR);
    return false;
  }
  if (!S_ISREG(status.st_mode)) {
    error = "not a regular file";
    return false;
  }
  if (static_cast<std::size_t>(status.st_size) > kMaxSourceBytes) {
    error = "source too large";
    return false;
  }
  return true;
}

}  // namespace

bool isRegularSourceFile(const std::string& path, std::string& error) {
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) {
    error = std::strerror(errno);
    return false;
  }
  return regularFileStatus(status, error);
}

std::optional<std::string> readSourceFile(const std::string& path, std::string& error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  struct stat status;
  if (::fstat(fd, &status) != 0) {
    error = std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  if (!regularFileStatus(status, error)) {
    ::close(fd);
    return std::nullopt;
  }
  std::optional<std::string> text = readSourceDescriptor(fd, error);
  ::close(fd);
  return text;
}

std::optional<std::string> readSourceDescriptor(int fd, std::string& error) {
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::strerror(errno);
      return std::nullopt;
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxSourceBytes) {  // a file that grew after fstat, or a stream without end
      error = "source too large";
      return std::nullopt;
    }
  }
}

}  // namespace kith::vm
