// The binary encoding of a trace (version 1): what `kith run --trace` writes by
// default. binary_trees 16 records ~29M events; this encoding stores most of them
// in one or two bytes and decodes them without parsing text.
//
//   header   8 bytes "KITHTRC\0", then one byte: the version, 1
//   events   one tag byte each, then the fields the tag calls for, each an
//            unsigned LEB128 varint (7 bits a byte, low bits first, at most 10
//            bytes, the 10th byte at most 1)
//   end      the tag 0x03, then a varint: the number of events before it.
//            Nothing may follow. A file without it was cut short.
//
//   tag bits 0-1  kind: 0 alloc, 1 free, 2 failed, 3 end
//   tag bit  2    time gap: a varint g follows and time = previous time + 1 + g;
//                 clear: time = previous time + 1 (a recorder's sequence numbers)
//   alloc:  bit 3     id gap: a varint g follows and id = previous alloc's id + 1 + g;
//                     clear: id = previous alloc's id + 1
//           bits 4-7  s: s != 0 means size = 8 * s (8 .. 120 bytes); s == 0 means a
//                     varint size follows
//   free:   bits 3-7  z + 1, where z = zigzag(id - previous free's id), when z < 31;
//                     0 means a varint z follows (zigzag: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...)
//   failed: bit 3 clear; bits 4-7 the size, as for alloc
//   resize and move (kind 2 with bit 3 set): bit 4 set for a move, clear for a
//           resize in place; bits 5-7 clear; then a varint z = zigzag(id - previous
//           resize's or move's id), then a varint: the new size
// Field order: tag, time gap, id gap or free's or resize's z, size. Before the first
// event the "previous" time and alloc id are 2^64-1 (so the first event has time 0
// and the first object id 0 with no gap) and the previous free's and resize's id 0.
// Resizes came to version 1 after its first traces: those still read, and a reader
// from before resizes rejects a trace holding one at its first resize's tag. All arithmetic
// is modulo 2^64, so every TraceEvent round-trips. An event is at most 31 bytes.
// Errors read "offset N: what is wrong", N the byte offset of the event (or header)
// at fault. The consistency rules are trace_objects.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/trace/trace_event.h"
#include "heap/trace/trace_input.h"

namespace kith::heap {

inline constexpr char kBinaryTraceMagic[8] = {'K', 'I', 'T', 'H', 'T', 'R', 'C', '\0'};
inline constexpr unsigned char kBinaryTraceVersion = 1;
inline constexpr std::size_t kBinaryTraceHeaderBytes = 9;
inline constexpr std::size_t kMaxBinaryEventBytes = 31;  // tag + three 10-byte varints
inline constexpr std::size_t kMaxBinaryEndBytes = 11;    // tag + one varint

namespace binary_trace {

enum Tag : unsigned {
  kAlloc = 0,
  kFree = 1,
  kFailed = 2,
  kEnd = 3,
  kKindMask = 3,
  kTimeGap = 1u << 2,
  kIdGap = 1u << 3,
  kResize = 1u << 3,  // with kind kFailed: a resize or a move
  kMoved = 1u << 4,   // a resize's: it moved
};

inline unsigned char* putVarint(unsigned char* out, std::uint64_t v) {
  while (v >= 0x80) {
    *out++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<unsigned char>(v);
  return out;
}

inline std::uint64_t zigzag(std::uint64_t difference) {
  return (difference << 1) ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(difference) >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

}  // namespace binary_trace

// Encodes events into memory the caller provides; keeps the "previous" values
// the encoding is relative to.
class BinaryTraceEncoder {
 public:
  // The header, kBinaryTraceHeaderBytes at `out`; returns the end.
  static unsigned char* header(unsigned char* out);

  // One event, at most kMaxBinaryEventBytes at `out`; returns the end.
  unsigned char* encode(const TraceEvent& e, unsigned char* out) {
    using namespace binary_trace;
    unsigned char* tag = out++;
    unsigned bits = 0;
    std::uint64_t timeGap = e.time - lastTime_ - 1;
    if (timeGap != 0) {
      bits |= kTimeGap;
      out = putVarint(out, timeGap);
    }
    lastTime_ = e.time;
    switch (e.kind) {
      case TraceEventKind::alloc: {
        bits |= kAlloc;
        std::uint64_t idGap = e.id - lastAllocId_ - 1;
        if (idGap != 0) {
          bits |= kIdGap;
          out = putVarint(out, idGap);
        }
        lastAllocId_ = e.id;
        out = putSize(e.size, bits, out);
        break;
      }
      case TraceEventKind::free: {
        bits |= kFree;
        std::uint64_t z = zigzag(e.id - lastFreeId_);
        if (z < 31) bits |= static_cast<unsigned>(z + 1) << 3;
        else out = putVarint(out, z);
        lastFreeId_ = e.id;
        break;
      }
      case TraceEventKind::failed:
        bits |= kFailed;
        out = putSize(e.size, bits, out);
        break;
      case TraceEventKind::resize:
      case TraceEventKind::move:
        bits |= kFailed | kResize | (e.kind == TraceEventKind::move ? unsigned{kMoved} : 0u);
        out = putVarint(out, zigzag(e.id - lastResizeId_));
        out = putVarint(out, e.size);
        lastResizeId_ = e.id;
        break;
    }
    *tag = static_cast<unsigned char>(bits);
    ++events_;
    return out;
  }

  // The end marker, at most kMaxBinaryEndBytes at `out`; returns the end.
  unsigned char* end(unsigned char* out) const;

  std::uint64_t events() const { return events_; }

 private:
  static unsigned char* putSize(std::uint64_t size, unsigned& bits, unsigned char* out) {
    if (size != 0 && size <= 120 && size % 8 == 0) {
      bits |= static_cast<unsigned>(size / 8) << 4;
      return out;
    }
    return binary_trace::putVarint(out, size);
  }

  std::uint64_t lastTime_ = UINT64_MAX, lastAllocId_ = UINT64_MAX, lastFreeId_ = 0, lastResizeId_ = 0;
  std::uint64_t events_ = 0;
};

// Reads the binary encoding, one event at a time (syntax only: TraceReader adds
// the consistency rules).
class BinaryTraceDecoder {
 public:
  // The next event into `out`: false at the end marker (error stays empty) or at
  // the first error ("offset N: ...").
  // Inline, the events that are one tag byte (nearly all of a recorded trace: time
  // and id follow on, the size or free distance fits the tag); the rest, and the
  // header, the end marker and every error, in nextInFull.
  bool next(TraceInput& in, TraceEvent& out, std::string& error) {
    using namespace binary_trace;
    if (started_ && in.available() >= kMaxBinaryEventBytes) [[likely]] {
      const unsigned tag = *in.data();
      if ((tag & (kKindMask | kTimeGap | kIdGap)) == kAlloc && (tag >> 4) != 0) {
        out = {TraceEventKind::alloc, lastTime_ + 1, ++lastAllocId_, 8 * (tag >> 4)};
        return oneByteEvent(in, out);
      }
      if ((tag & (kKindMask | kTimeGap)) == kFree && (tag >> 3) != 0) {
        lastFreeId_ += unzigzag((tag >> 3) - 1);
        out = {TraceEventKind::free, lastTime_ + 1, lastFreeId_, 0};
        return oneByteEvent(in, out);
      }
    }
    return nextInFull(in, out, error);
  }

  std::string position() const { return "offset " + std::to_string(eventOffset_); }

 private:
  // What every event read inline shares: it is one byte, at the next time.
  bool oneByteEvent(TraceInput& in, const TraceEvent& e) {
    eventOffset_ = in.offset();
    lastTime_ = e.time;
    ++events_;
    in.consume(1);
    return true;
  }

  bool nextInFull(TraceInput& in, TraceEvent& out, std::string& error);
  bool readHeader(TraceInput& in, std::string& error);
  const unsigned char* getSize(const unsigned char* p, const unsigned char* end, unsigned tag,
                               std::uint64_t& size, std::string& error);
  [[gnu::cold]] bool readEnd(TraceInput& in, unsigned tag, const unsigned char* p, const unsigned char* end,
                             std::string& error);
  [[gnu::cold]] bool fieldError(const unsigned char* p, const char* field, std::string& error) const;
  bool fail(const std::string& what, std::string& error) const;

  bool readResize(unsigned tag, const unsigned char*& p, const unsigned char* end, TraceEvent& out,
                  std::string& error);

  std::uint64_t lastTime_ = UINT64_MAX, lastAllocId_ = UINT64_MAX, lastFreeId_ = 0, lastResizeId_ = 0;
  std::uint64_t events_ = 0, eventOffset_ = 0;
  bool started_ = false, finished_ = false;
};

}  // namespace kith::heap
