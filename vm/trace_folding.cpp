#include "vm/trace_folding.h"

namespace kith::vm {

namespace {

// One printed line and how many frames it stands for.
struct FoldedLine {
  std::string text;
  std::size_t frames;
};

std::vector<FoldedLine> foldRepeats(const std::vector<std::string>& frames) {
  std::vector<FoldedLine> lines;
  for (std::size_t i = 0; i < frames.size();) {
    std::size_t run = 1;
    while (i + run < frames.size() && frames[i + run] == frames[i]) ++run;
    lines.push_back({frames[i], 1});
    if (run > 1) lines.push_back({"  ... repeated " + std::to_string(run - 1) + " more times", run - 1});
    i += run;
  }
  return lines;
}

}  // namespace

std::vector<std::string> foldTrace(const std::vector<std::string>& frames) {
  std::vector<FoldedLine> lines = foldRepeats(frames);
  std::vector<std::string> out;
  if (lines.size() <= kTraceHeadLines + kTraceTailLines) {
    for (FoldedLine& line : lines) out.push_back(std::move(line.text));
    return out;
  }
  std::size_t tailStart = lines.size() - kTraceTailLines;
  std::size_t omitted = 0;
  for (std::size_t i = kTraceHeadLines; i < tailStart; ++i) omitted += lines[i].frames;
  for (std::size_t i = 0; i < kTraceHeadLines; ++i) out.push_back(std::move(lines[i].text));
  out.push_back("  ... " + std::to_string(omitted) + " frames omitted");
  for (std::size_t i = tailStart; i < lines.size(); ++i) out.push_back(std::move(lines[i].text));
  return out;
}

}  // namespace kith::vm
