// TraceInput: the bytes of a trace file, read from a FILE* or std::istream it does
// not own in large chunks, so that decoders (trace_text.h, trace_binary.h) work on
// plain memory and pay no call per byte. It keeps the absolute offset of the next
// unread byte for error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <vector>

namespace kith::heap {

class TraceInput {
 public:
  static constexpr std::size_t kChunk = std::size_t{256} << 10;

  explicit TraceInput(std::FILE* file) : file_(file) {}
  explicit TraceInput(std::istream& stream) : stream_(&stream) {}
  TraceInput(const TraceInput&) = delete;
  TraceInput& operator=(const TraceInput&) = delete;

  const unsigned char* data() const { return buffer_.data() + pos_; }
  std::size_t available() const { return end_ - pos_; }
  void consume(std::size_t n) { pos_ += n; }
  std::uint64_t offset() const { return base_ + pos_; }  // of data()[0] in the file

  // Reads until at least `want` bytes are available or the input ends; returns
  // available(). The buffer grows when `want` exceeds it.
  std::size_t fill(std::size_t want);

  bool ended() const { return ended_ && available() == 0; }  // everything consumed
  bool readFailed() const { return failed_; }

 private:
  std::size_t read(unsigned char* to, std::size_t n);

  std::FILE* file_ = nullptr;
  std::istream* stream_ = nullptr;
  std::vector<unsigned char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t base_ = 0;  // file offset of buffer_[0]
  bool ended_ = false, failed_ = false;
};

}  // namespace kith::heap
