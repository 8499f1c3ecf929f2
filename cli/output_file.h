// OutputFile: one output a command writes — a file an option names (--stats-file,
// --gc-pauses-file, --frag-file, --trace), or standard output for "-" — in one place
// that opens it, remembers why a write failed, and closes it. CLI.md: an output that
// cannot be created or written is `kith: PATH: REASON` on stderr and exit 73, and a
// file an option names is checked before the run starts, so a wrong path costs no run.
//
// A user's file is never emptied or left half-written (docs/RELIABILITY.md, "A
// user's files"): a regular file, or a path where nothing is yet, is written to a
// temporary file beside it (`.NAME.kith-XXXXXX`, created exclusively: creating it is
// the check that the directory takes the file) and renamed onto PATH only by a
// close() after every write succeeded. A run refused or failed before then, or an
// output discard()ed, leaves PATH as it was. What is not a regular file (/dev/null,
// /dev/stdout, a FIFO, a terminal) is written directly: there is nothing to replace.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace kith::cli {

// The name messages give standard output (and an option's "-").
inline constexpr std::string_view kStandardOutputName = "standard output";

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // discard(): without a close() nothing reaches PATH

  // Readies PATH for writing, or takes standard output for "-". False after the
  // message `kith: PATH: REASON` when PATH cannot be written (its directory is
  // missing or takes no new file, a file is read-only, a directory is named).
  bool open(const std::string& path);
  bool isOpen() const { return file_ != nullptr; }
  std::FILE* stream() const { return file_; }
  // The path as the option gave it; "standard output" for "-".
  const std::string& name() const { return name_; }

  // Writes all of `text`; false (remembering why, for close) when it did not.
  bool write(std::string_view text);

  // Flushes and closes (standard output is only flushed), and puts the file in place
  // at PATH. False after the message `kith: PATH: REASON` when this or any earlier
  // write failed; PATH then keeps what it held. Later calls do nothing.
  bool close();

  // Closes without putting anything at PATH (a file written directly keeps what
  // was written). Later calls, and close(), do nothing.
  void discard();

 private:
  // Each 0 when open, else errno (nothing reported).
  int openTemporary(const std::string& target, mode_t mode);
  int openInPlace(const std::string& path);
  bool openDirectly(const std::string& path);
  bool failed(int error);  // reports `kith: PATH: REASON`; false

  std::FILE* file_ = nullptr;
  std::string name_;
  int writeError_ = 0;     // errno of the first failed write, 0 if none seen
  std::string temporary_;  // the file written, renamed onto target_ at close; empty when none
  std::string target_;     // PATH, or the file a symbolic link at PATH names
  bool inPlace_ = false;   // an existing file written over, cut to length at close
};

// Flushes standard output and reports a failure to write it (`kith: standard
// output: REASON`) once; false when it failed.
bool flushStandardOutput();

// A command's exit code after flushing standard output: a clean exit becomes 73
// when the output was lost; an earlier failure's code stays.
int exitCodeAfterStandardOutput(int exitCode);

}  // namespace kith::cli
