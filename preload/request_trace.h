// RequestTrace: a process's requests in Kith's trace format (heap/trace/trace.h),
// so `kith replay --heap=P TRACE` feeds a real program's requests to any policy.
// Blocks are named by the address the program holds (an aligned block's aligned
// address); ids count from 0 in allocation order, as TraceHeap's do.
//
// A realloc is recorded as what it was on the policy: a resize in place (R) or a
// move (M), the object keeping its id either way, so a replay on another policy
// resizes in place where that policy can (cli/replay.h); a realloc the policy
// could not meet is a failed request (X). realloc(NULL, n) is an allocation and
// realloc(p, 0) a free, as glibc has them. An aligned request is recorded with the
// size the policy was asked for (aligned_blocks.h).
//
// The file is opened at the first event (PATH for the root process, PATH.PID for
// the others: output_path.h) and ended at exit. A child made by fork starts a trace
// of its own: the parent's buffered events stay the parent's, its blocks are not
// the child's to name (their frees are not recorded, as TraceHeap does for blocks
// from before recording started). Not thread-safe: the heap's lock guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "heap/trace/trace.h"
#include "heap/trace/trace_id_map.h"

namespace kith::preload {

class RequestTrace {
 public:
  RequestTrace(std::string path, long rootPid) : path_(std::move(path)), rootPid_(rootPid) {}

  void allocated(void* p, std::size_t size) {
    if (!ready()) return;
    if (!p) {
      writer_->record({heap::TraceEventKind::failed, time_++, 0, size});
      return;
    }
    std::uint64_t id = nextId_++;
    (*ids_)[p] = id;
    writer_->record({heap::TraceEventKind::alloc, time_++, id, size});
  }

  void freed(void* p) {
    if (!ready()) return;
    if (auto it = ids_->find(p); it != ids_->end()) {
      writer_->record({heap::TraceEventKind::free, time_++, it->second, 0});
      ids_->erase(it);
    }
  }

  // A realloc of block `from` to `size` bytes, which it now holds at `to` (== from:
  // in place). A block the trace never saw allocated (a parent's, in a child made by
  // fork) is recorded as allocated here, as `to`.
  void resized(void* from, void* to, std::size_t size) {
    if (!ready()) return;
    auto it = ids_->find(from);
    if (it == ids_->end()) return allocated(to, size);
    std::uint64_t id = it->second;
    if (to != from) {
      ids_->erase(it);
      (*ids_)[to] = id;
    }
    writer_->record({to == from ? heap::TraceEventKind::resize : heap::TraceEventKind::move, time_++, id, size});
  }

  // At exit: the end marker, flushed; events after it are not recorded.
  void finish();
  // In a child made by fork, with the heap's lock held: the next event starts a
  // trace of the child's own.
  void restartInChild() { restart_ = true; }

 private:
  // Whether events are being recorded, opening (or, after fork, reopening) the file.
  bool ready() {
    if (writer_ && !restart_) [[likely]] return true;
    return !stopped_ && open();
  }
  bool open();
  void stop(const char* why, int error);

  std::string path_;
  long rootPid_;
  std::FILE* file_ = nullptr;
  std::string partial_;  // where file_ writes until finish() renames it (whole_file.h)
  std::unique_ptr<heap::TraceWriter> writer_;
  std::unique_ptr<heap::TraceIdMap> ids_;
  std::uint64_t time_ = 0, nextId_ = 0;
  bool restart_ = false, stopped_ = false;
};

}  // namespace kith::preload
