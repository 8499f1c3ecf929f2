// libFuzzer target: the allocation-trace reader (heap/trace/trace.h) on arbitrary
// bytes, text or binary (the reader tells them apart by the first bytes; seeds
// of both are in the corpus). The reader must stop at the end or at the first
// fault with a message — never crash, hang or read out of bounds — and what it
// accepted must round-trip: the events read, written again in either encoding
// by TraceWriter and read back, are the same events with no error. The reader
// over a FILE* (fmemopen) must agree with the reader over a stream.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "heap/trace/trace.h"

namespace {

using kith::heap::TraceEvent;
using kith::heap::TraceFormat;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "trace_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::istringstream in(bytes);
  std::string error;
  std::vector<TraceEvent> events = kith::heap::readTrace(in, &error);

  // The same bytes through a FILE*.
  if (size > 0) {
    std::FILE* file = fmemopen(bytes.data(), bytes.size(), "rb");
    if (!file) fail("fmemopen", "failed");
    kith::heap::TraceReader reader(file);
    std::vector<TraceEvent> fromFile;
    for (TraceEvent e; reader.next(e);) fromFile.push_back(e);
    std::fclose(file);
    if (fromFile != events || reader.error() != error) fail("FILE* reader disagrees", reader.error() + " / " + error);
  }

  for (TraceFormat format : {TraceFormat::text, TraceFormat::binary}) {
    std::ostringstream out;
    {
      kith::heap::TraceWriter writer(out, format);
      for (const TraceEvent& e : events) writer.record(e);
      writer.finish();
      if (!writer.ok()) fail("writer", "failed");
    }
    std::istringstream again(out.str());
    std::string againError;
    std::vector<TraceEvent> reread = kith::heap::readTrace(again, &againError);
    if (!againError.empty()) fail("re-reading a written trace", againError);
    if (reread != events)
      fail("round trip", std::to_string(events.size()) + " events read, " + std::to_string(reread.size()) + " back");
  }
  return 0;
}
