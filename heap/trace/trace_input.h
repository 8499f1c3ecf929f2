// TraceInput: the bytes of a trace file, read from a FILE* or std::istream it does
// not own in large chunks, so that decoders (trace_text.h, trace_binary.h) work on
// plain memory and pay no call per byte. It keeps the absolute offset of the next
// unread byte for error messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
  std::size_t fill(std::size_t want) {
    if (available() >= want || ended_) return available();
    if (pos_ > 0) {  // move the unread tail to the front
      std::memmove(buffer_.data(), buffer_.data() + pos_, available());
      base_ += pos_;
      end_ -= pos_;
      pos_ = 0;
    }
    std::size_t capacity = std::max(kChunk, want);
    if (buffer_.size() < capacity) buffer_.resize(capacity);
    while (end_ < want && !ended_) {
      std::size_t got = read(buffer_.data() + end_, buffer_.size() - end_);
      if (got == 0) ended_ = true;
      end_ += got;
    }
    return available();
  }

  bool ended() const { return ended_ && available() == 0; }  // everything consumed
  bool readFailed() const { return failed_; }

 private:
  std::size_t read(unsigned char* to, std::size_t n) {
    if (file_) {
      std::size_t got = std::fread(to, 1, n, file_);
      if (got == 0 && std::ferror(file_)) failed_ = true;
      return got;
    }
    stream_->read(reinterpret_cast<char*>(to), static_cast<std::streamsize>(n));
    auto got = static_cast<std::size_t>(stream_->gcount());
    if (got == 0 && stream_->bad()) failed_ = true;
    return got;
  }

  std::FILE* file_ = nullptr;
  std::istream* stream_ = nullptr;
  std::vector<unsigned char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t base_ = 0;  // file offset of buffer_[0]
  bool ended_ = false, failed_ = false;
};

}  // namespace kith::heap
