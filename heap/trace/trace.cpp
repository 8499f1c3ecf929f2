// TraceWriter's buffer handling and TraceReader's encoding detection: the parts
// of trace.h that run once per trace or once per 256 KiB, not once per event.
#include "heap/trace/trace.h"

#include <algorithm>
#include <cstring>

namespace kith::heap {

TraceFormat traceFormatForPath(std::string_view path) {
  return path.ends_with(".txt") ? TraceFormat::text : TraceFormat::binary;
}

TraceWriter::TraceWriter(std::FILE* file, TraceFormat format) : file_(file), format_(format) { start(); }

TraceWriter::TraceWriter(std::ostream& stream, TraceFormat format) : stream_(&stream), format_(format) {
  start();
}

TraceWriter::~TraceWriter() { finish(); }

void TraceWriter::flush() {
  drain();
  if (file_) {
    if (std::fflush(file_) != 0) ok_ = false;
  } else if (!stream_->flush()) {
    ok_ = false;
  }
}

void TraceWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (format_ == TraceFormat::binary) {
    if (kBufferBytes - used_ < kMaxBinaryEndBytes) drain();
    used_ = static_cast<std::size_t>(binary_.end(buffer_.get() + used_) - buffer_.get());
  }
  flush();
}

void TraceWriter::start() {
  unsigned char* b = buffer_.get();
  if (format_ == TraceFormat::binary) {
    used_ = static_cast<std::size_t>(BinaryTraceEncoder::header(b) - b);
  } else {
    std::memcpy(b, kTraceHeader.data(), kTraceHeader.size());
    b[kTraceHeader.size()] = '\n';
    used_ = kTraceHeader.size() + 1;
  }
}

void TraceWriter::drain() {
  if (used_ == 0) return;
  if (file_) {
    if (std::fwrite(buffer_.get(), 1, used_, file_) != used_) ok_ = false;
  } else if (!stream_->write(reinterpret_cast<const char*>(buffer_.get()), static_cast<std::streamsize>(used_))) {
    ok_ = false;
  }
  used_ = 0;
}

bool TraceReader::stop(bool inconsistent) {
  if (inconsistent) error_ = position() + ": " + error_;
  stopped_ = true;
  return false;
}

void TraceReader::detect() {
  detected_ = true;
  std::size_t n = input_.fill(sizeof kBinaryTraceMagic);
  if (n > 0 && std::memcmp(input_.data(), kBinaryTraceMagic, std::min(n, sizeof kBinaryTraceMagic)) == 0)
    format_ = TraceFormat::binary;
}

std::vector<TraceEvent> readTrace(std::istream& in, std::string* error) {
  std::vector<TraceEvent> events;
  TraceReader reader(in);
  for (TraceEvent e; reader.next(e);) events.push_back(e);
  if (error) *error = reader.error();
  return events;
}

}  // namespace kith::heap
