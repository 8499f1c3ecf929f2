// The binary trace encoding's header, end marker and every event that is more
// than one tag byte, with all of the decoder's errors: the part of
// trace_binary.h that is not one inline step per event.
#include "heap/trace/trace_binary.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace kith::heap {

namespace {

// Reads a varint from [p, end); nullptr when it runs past `end`, `overlong` set
// when it is longer than 10 bytes or overflows 64 bits.
const unsigned char* getVarint(const unsigned char* p, const unsigned char* end, std::uint64_t& v,
                               bool& overlong) {
  if (p < end && *p < 0x80) {  // the common one-byte case
    v = *p;
    return p + 1;
  }
  std::uint64_t result = 0;
  for (unsigned shift = 0; p < end; shift += 7) {
    unsigned char byte = *p++;
    if (shift == 63 && byte > 1) {
      overlong = true;
      return p;
    }
    result |= std::uint64_t{byte & 0x7fu} << shift;
    if (byte < 0x80) {
      v = result;
      return p;
    }
  }
  return nullptr;
}

std::string hex(unsigned v) {
  const char* digits = "0123456789abcdef";
  return {digits[(v >> 4) & 15], digits[v & 15]};
}

}  // namespace

unsigned char* BinaryTraceEncoder::header(unsigned char* out) {
  std::memcpy(out, kBinaryTraceMagic, sizeof kBinaryTraceMagic);
  out[8] = kBinaryTraceVersion;
  return out + kBinaryTraceHeaderBytes;
}

unsigned char* BinaryTraceEncoder::end(unsigned char* out) const {
  *out++ = binary_trace::kEnd;
  return binary_trace::putVarint(out, events_);
}

bool BinaryTraceDecoder::nextInFull(TraceInput& in, TraceEvent& out, std::string& error) {
  using namespace binary_trace;
  if (!started_ && !readHeader(in, error)) return false;
  if (finished_) return false;
  if (in.available() < kMaxBinaryEventBytes) in.fill(kMaxBinaryEventBytes);
  eventOffset_ = in.offset();
  const unsigned char* p = in.data();
  const unsigned char* end = p + in.available();
  if (p == end) return fail(in.readFailed() ? "read error" : "the trace ends without its end marker (cut short?)", error);
  unsigned tag = *p++;
  bool overlong = false;
  std::uint64_t timeGap = 0;
  if (tag & kTimeGap) {
    p = getVarint(p, end, timeGap, overlong);
    if (!p || overlong) return fieldError(p, "time gap", error);
  }
  switch (tag & kKindMask) {
    case kAlloc: {
      out.kind = TraceEventKind::alloc;
      std::uint64_t idGap = 0;
      if (tag & kIdGap) {
        p = getVarint(p, end, idGap, overlong);
        if (!p || overlong) return fieldError(p, "id gap", error);
      }
      out.id = lastAllocId_ = lastAllocId_ + 1 + idGap;
      if (!(p = getSize(p, end, tag, out.size, error))) return false;
      break;
    }
    case kFree: {
      out.kind = TraceEventKind::free;
      std::uint64_t z = tag >> 3;
      if (z != 0) {
        --z;
      } else {
        p = getVarint(p, end, z, overlong);
        if (!p || overlong) return fieldError(p, "object id", error);
      }
      out.id = lastFreeId_ = lastFreeId_ + unzigzag(z);
      out.size = 0;
      break;
    }
    case kFailed:
      if (tag & kResize) {
        if (!readResize(tag, p, end, out, error)) return false;
        break;
      }
      out.kind = TraceEventKind::failed;
      out.id = 0;
      if (!(p = getSize(p, end, tag, out.size, error))) return false;
      break;
    default:
      return readEnd(in, tag, p, end, error);
  }
  out.time = lastTime_ = lastTime_ + 1 + timeGap;
  ++events_;
  in.consume(static_cast<std::size_t>(p - in.data()));
  return true;
}

bool BinaryTraceDecoder::readResize(unsigned tag, const unsigned char*& p, const unsigned char* end,
                                    TraceEvent& out, std::string& error) {
  using namespace binary_trace;
  if (tag >> 5) return fail("a resize with reserved bits set (tag 0x" + hex(tag) + ")", error);
  out.kind = tag & kMoved ? TraceEventKind::move : TraceEventKind::resize;
  bool overlong = false;
  std::uint64_t z = 0;
  p = getVarint(p, end, z, overlong);
  if (!p || overlong) return fieldError(p, "object id", error);
  out.id = lastResizeId_ = lastResizeId_ + unzigzag(z);
  p = getVarint(p, end, out.size, overlong);
  if (!p || overlong) return fieldError(p, "size", error);
  return true;
}

bool BinaryTraceDecoder::readHeader(TraceInput& in, std::string& error) {
  started_ = true;
  std::size_t n = in.fill(kBinaryTraceHeaderBytes);
  const unsigned char* p = in.data();
  eventOffset_ = 0;
  bool magic = std::memcmp(p, kBinaryTraceMagic, std::min(n, sizeof kBinaryTraceMagic)) == 0;
  if (!magic || n == 0) return fail("not a binary trace: it does not start with \"KITHTRC\\0\"", error);
  if (n < kBinaryTraceHeaderBytes)
    return fail("the header is cut short (" + std::to_string(n) + " of " +
                    std::to_string(kBinaryTraceHeaderBytes) + " bytes)",
                error);
  if (p[8] != kBinaryTraceVersion) {
    eventOffset_ = 8;
    return fail("unsupported binary trace version " + std::to_string(p[8]) + " (this reader knows version 1)",
                error);
  }
  in.consume(kBinaryTraceHeaderBytes);
  return true;
}

const unsigned char* BinaryTraceDecoder::getSize(const unsigned char* p, const unsigned char* end, unsigned tag,
                                                 std::uint64_t& size, std::string& error) {
  if (unsigned s = tag >> 4) {
    size = 8 * s;
    return p;
  }
  bool overlong = false;
  p = getVarint(p, end, size, overlong);
  if (!p || overlong) {
    fieldError(p, "size", error);
    return nullptr;
  }
  return p;
}

bool BinaryTraceDecoder::readEnd(TraceInput& in, unsigned tag, const unsigned char* p, const unsigned char* end,
                                 std::string& error) {
  if (tag != binary_trace::kEnd) return fail("an end marker with other bits set (tag 0x" + hex(tag) + ")", error);
  std::uint64_t count = 0;
  bool overlong = false;
  p = getVarint(p, end, count, overlong);
  if (!p || overlong) return fieldError(p, "event count", error);
  if (count != events_)
    return fail("the end marker counts " + std::to_string(count) + " events, but " + std::to_string(events_) +
                    " came before it",
                error);
  in.consume(static_cast<std::size_t>(p - in.data()));
  if (in.fill(1) != 0) {
    eventOffset_ = in.offset();
    return fail(std::to_string(in.available()) + (in.available() == 1 ? " byte" : " bytes") +
                    " after the end marker",
                error);
  }
  finished_ = true;
  return false;
}

bool BinaryTraceDecoder::fieldError(const unsigned char* p, const char* field, std::string& error) const {
  if (!p) return fail(std::string("the trace ends inside an event's ") + field + " (cut short?)", error);
  return fail(std::string("the ") + field + " varint is longer than 64 bits", error);
}

bool BinaryTraceDecoder::fail(const std::string& what, std::string& error) const {
  error = position() + ": " + what;
  return false;
}

}  // namespace kith::heap
