#include "cli/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/exit_codes.h"
#include "cli/temporary_files.h"

namespace kith::cli {

namespace {

// `error` is an errno, or -1 when stdio lost the reason (GNU tools then say "write error").
void reportFailure(std::string_view name, int error) {
  std::fprintf(stderr, "kith: %.*s: %s\n", static_cast<int>(name.size()), name.data(),
               error > 0 ? std::strerror(error) : "write error");
}

// Why `file` failed to write. stdio drops a buffer it could not write and forgets
// errno, so a later flush succeeds; asking the descriptor again with a write of no
// bytes recovers the reason from a device or pipe still refusing (/dev/full's
// ENOSPC) and costs nothing where it does not.
int lostWriteReason(std::FILE* file) {
  errno = 0;
  if (::write(::fileno(file), "", 0) < 0) return errno;
  return 0;
}

// Flushes `file`; 0 when it and every write before it succeeded, else the reason
// (-1 when no reason can be recovered).
int flushError(std::FILE* file, int knownError) {
  errno = 0;
  if (std::fflush(file) != 0) return errno ? errno : -1;
  if (!std::ferror(file)) return 0;
  if (knownError) return knownError;
  int reason = lostWriteReason(file);
  return reason ? reason : -1;
}

// The mode a file created now gets: what fopen's would (0666 less the umask).
mode_t newFileMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// The file PATH names: a symbolic link's target is replaced, never the link.
std::string followLinks(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

// `.NAME.kith-XXXXXX` beside `target`, for mkstemp; the name's part is cut short
// so that the temporary name stays within a file name's 255 bytes.
std::string temporaryTemplate(const std::string& target) {
  std::size_t slash = target.rfind('/');
  std::string directory = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string name = target.substr(slash == std::string::npos ? 0 : slash + 1);
  return directory + "." + name.substr(0, 200) + ".kith-XXXXXX";
}

}  // namespace

OutputFile::~OutputFile() { discard(); }

bool OutputFile::open(const std::string& path) {
  discard();
  writeError_ = 0;
  if (path == "-") {
    file_ = stdout;
    name_ = std::string(kStandardOutputName);
    return true;
  }
  name_ = path;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    // A symbolic link to nothing: the file it names is created, as before any link.
    struct stat link {};
    if (errno == ENOENT && ::lstat(path.c_str(), &link) == 0) return openDirectly(path);
    int error = openTemporary(path, newFileMode());  // mkstemp says why (a missing directory)
    return error == 0 || failed(error);
  }
  if (!S_ISREG(info.st_mode)) return openDirectly(path);  // a device, FIFO or directory
  if (::access(path.c_str(), W_OK) != 0) return failed(errno);  // a read-only file stays as it is
  std::string target = followLinks(path);
  int error = openTemporary(target, info.st_mode & 0777);
  // A writable file in a directory that takes no new file is written over where it
  // is, as before temporary files, and cut to length at close().
  if (error == EACCES || error == EPERM) error = openInPlace(target);
  return error == 0 || failed(error);
}

bool OutputFile::failed(int error) {
  reportFailure(name_, error);
  return false;
}

int OutputFile::openTemporary(const std::string& target, mode_t mode) {
  std::string temporary = temporaryTemplate(target);
  int fd = createTemporaryFile(temporary);
  if (fd < 0) return errno;
  ::fchmod(fd, mode);  // mkstemp's is 0600; the file keeps the mode it had, or gets a new file's
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    int error = errno;
    ::close(fd);
    removeTemporaryFile(temporary);
    return error;
  }
  temporary_ = temporary;
  target_ = target;
  return 0;
}

int OutputFile::openInPlace(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);  // not truncated: that waits for close()
  if (fd < 0) return errno;
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    int error = errno;
    ::close(fd);
    return error;
  }
  inPlace_ = true;
  return 0;
}

bool OutputFile::openDirectly(const std::string& path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) reportFailure(name_, errno ? errno : -1);
  return file_ != nullptr;
}

bool OutputFile::write(std::string_view text) {
  if (!file_) return false;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) == text.size()) return true;
  if (!writeError_) writeError_ = errno;
  return false;
}

bool OutputFile::close() {
  if (!file_) return true;
  int error = flushError(file_, writeError_);
  if (!error && inPlace_ && ::ftruncate(::fileno(file_), std::ftell(file_)) != 0) error = errno;
  if (file_ != stdout) {
    errno = 0;
    if (std::fclose(file_) != 0 && !error) error = errno ? errno : -1;
  } else if (error) {
    std::clearerr(stdout);  // reported here: the check of standard output at exit stays quiet
  }
  file_ = nullptr;
  inPlace_ = false;
  if (!temporary_.empty()) {
    if (!error && ::rename(temporary_.c_str(), target_.c_str()) != 0) error = errno;
    if (error) removeTemporaryFile(temporary_);  // PATH keeps what it held
    else forgetTemporaryFile(temporary_);
    temporary_.clear();
  }
  if (error) reportFailure(name_, error);
  return !error;
}

void OutputFile::discard() {
  if (!file_) return;
  if (file_ != stdout) std::fclose(file_);
  file_ = nullptr;
  inPlace_ = false;
  if (temporary_.empty()) return;
  removeTemporaryFile(temporary_);
  temporary_.clear();
}

bool flushStandardOutput() {
  int error = flushError(stdout, 0);
  if (!error) return true;
  std::clearerr(stdout);
  reportFailure(kStandardOutputName, error);
  return false;
}

int exitCodeAfterStandardOutput(int exitCode) {
  if (!flushStandardOutput() && exitCode == kExitOk) return kExitCantCreate;
  return exitCode;
}

}  // namespace kith::cli
