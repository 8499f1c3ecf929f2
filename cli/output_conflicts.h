// Outputs that would destroy a user's file, found before anything is opened
// (docs/RELIABILITY.md, "A user's files"): two options naming one file (the last
// renamed into place would silently replace the other), and an output that is an
// input of the same command (the script, the trace, a module the script imports),
// which the output would replace when the run ends. Files are compared by identity
// (device and inode: `./t`, `t` and a hard or symbolic link to it are one file),
// paths where nothing is yet by their absolute, normalized spelling. Outputs that
// replace nothing — "-" once, a device, a FIFO — may share a file (two outputs to
// /dev/null); "-" twice is refused, as the two outputs would be mixed in one stream.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kith::cli {

// An output a command writes: its option ("--stats-file") and PATH ("-": standard output).
struct NamedOutput {
  std::string_view option;
  std::string path;
};

// An input a command reads: what it is ("the script") and its path ("-": standard input).
struct NamedInput {
  std::string_view what;
  std::string path;
};

// The usage error (exit 64, after the message naming both) when two of `outputs` are
// one file or one is an existing regular file among `inputs`; nullopt when each
// output has a file of its own. Outputs with an empty path are not given.
std::optional<int> refuseSharedOutputs(const std::vector<NamedOutput>& outputs,
                                       const std::vector<NamedInput>& inputs);

// The output among `outputs` that is the existing file `path`, or nullptr: a module
// about to be imported that the run would replace.
const NamedOutput* outputThatIs(const std::string& path, const std::vector<NamedOutput>& outputs);

}  // namespace kith::cli
