// TraceInput's refills: one call per chunk of the file, not per byte.
#include "heap/trace/trace_input.h"

#include <algorithm>
#include <cstring>

namespace kith::heap {

std::size_t TraceInput::fill(std::size_t want) {
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

std::size_t TraceInput::read(unsigned char* to, std::size_t n) {
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

}  // namespace kith::heap
