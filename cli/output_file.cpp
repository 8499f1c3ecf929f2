#include "cli/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/exit_codes.h"

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

}  // namespace

OutputFile::~OutputFile() {
  if (file_ && file_ != stdout) std::fclose(file_);
}

bool OutputFile::open(const std::string& path) {
  writeError_ = 0;
  if (path == "-") {
    file_ = stdout;
    name_ = std::string(kStandardOutputName);
    return true;
  }
  name_ = path;
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
  if (file_ != stdout) {
    errno = 0;
    if (std::fclose(file_) != 0 && !error) error = errno ? errno : -1;
  } else if (error) {
    std::clearerr(stdout);  // reported here: the check of standard output at exit stays quiet
  }
  file_ = nullptr;
  if (error) reportFailure(name_, error);
  return !error;
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
