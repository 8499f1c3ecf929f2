#include "cli/output_conflicts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "cli/usage_error.h"

namespace kith::cli {

namespace {

// Where an output goes, as far as sharing it goes.
struct Place {
  enum class Kind {
    standardOutput,  // "-"
    replaced,        // a regular file, or nothing yet: written beside it and renamed onto it
    shared,          // a device, FIFO or directory: written directly, or refused when opened
  };
  Kind kind = Kind::shared;
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string normalized;  // the absolute path, `..` and links resolved, where nothing is yet
};

Place placeOf(const std::string& path) {
  Place place;
  if (path == "-") {
    place.kind = Place::Kind::standardOutput;
    return place;
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    place.kind = S_ISREG(info.st_mode) ? Place::Kind::replaced : Place::Kind::shared;
    place.exists = true;
    place.device = info.st_dev;
    place.inode = info.st_ino;
    return place;
  }
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  fs::path normalized = fs::weakly_canonical(absolute, error);
  place.kind = Place::Kind::replaced;
  place.normalized = (error ? absolute.lexically_normal() : normalized).string();
  return place;
}

bool samePlace(const Place& a, const Place& b) {
  if (a.kind != b.kind || a.kind == Place::Kind::shared) return false;
  if (a.kind == Place::Kind::standardOutput) return true;
  if (a.exists != b.exists) return false;
  return a.exists ? a.device == b.device && a.inode == b.inode : a.normalized == b.normalized;
}

// An input the output would replace: an existing regular file (standard input's, for "-").
bool replacesInput(const Place& output, const std::string& input) {
  if (output.kind != Place::Kind::replaced || !output.exists) return false;
  struct stat info {};
  int found = input == "-" ? ::fstat(STDIN_FILENO, &info) : ::stat(input.c_str(), &info);
  return found == 0 && S_ISREG(info.st_mode) && info.st_dev == output.device && info.st_ino == output.inode;
}

std::string spelling(const NamedOutput& output) { return std::string(output.option) + "=" + output.path; }

}  // namespace

std::optional<int> refuseSharedOutputs(const std::vector<NamedOutput>& outputs,
                                       const std::vector<NamedInput>& inputs) {
  std::vector<Place> places;
  for (const NamedOutput& output : outputs) places.push_back(output.path.empty() ? Place{} : placeOf(output.path));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    for (const NamedInput& input : inputs)
      if (replacesInput(places[i], input.path))
        return usageError(spelling(outputs[i]) + " is " + std::string(input.what) + " " +
                              (input.path == "-" ? "on standard input" : "'" + input.path + "'") +
                              ": the output would replace it",
                          "(give " + std::string(outputs[i].option) + " another path)");
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && samePlace(places[j], places[i]))
        return usageError(spelling(outputs[j]) + " and " + spelling(outputs[i]) +
                              (places[i].kind == Place::Kind::standardOutput ? " both write standard output"
                                                                              : " are the same file"),
                          "(give each output a path of its own)");
  }
  return std::nullopt;
}

const NamedOutput* outputThatIs(const std::string& path, const std::vector<NamedOutput>& outputs) {
  for (const NamedOutput& output : outputs)
    if (!output.path.empty() && output.path != "-" && replacesInput(placeOf(output.path), path)) return &output;
  return nullptr;
}

}  // namespace kith::cli
