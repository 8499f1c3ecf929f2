// OutputFile: one output a command writes — a file an option names (--stats-file,
// --gc-pauses-file, --frag-file, --trace), or standard output for "-" — in one place
// that opens it, remembers why a write failed, and closes it. CLI.md: an output that
// cannot be created or written is `kith: PATH: REASON` on stderr and exit 73, and a
// file an option names is created before the run starts, so a wrong path costs no run.
#pragma once

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
  ~OutputFile();  // closes without a message: a caller that cares calls close()

  // Creates (truncates) PATH, or takes standard output for "-". False after the
  // message `kith: PATH: REASON` when it cannot be created.
  bool open(const std::string& path);
  bool isOpen() const { return file_ != nullptr; }
  std::FILE* stream() const { return file_; }
  // The path as the option gave it; "standard output" for "-".
  const std::string& name() const { return name_; }

  // Writes all of `text`; false (remembering why, for close) when it did not.
  bool write(std::string_view text);

  // Flushes and closes (standard output is only flushed). False after the message
  // `kith: PATH: REASON` when this or any earlier write failed. Later calls do nothing.
  bool close();

 private:
  std::FILE* file_ = nullptr;
  std::string name_;
  int writeError_ = 0;  // errno of the first failed write, 0 if none seen
};

// Flushes standard output and reports a failure to write it (`kith: standard
// output: REASON`) once; false when it failed.
bool flushStandardOutput();

// A command's exit code after flushing standard output: a clean exit becomes 73
// when the output was lost; an earlier failure's code stays.
int exitCodeAfterStandardOutput(int exitCode);

}  // namespace kith::cli
