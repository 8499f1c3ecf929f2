#include "preload/request_trace.h"

#include <cerrno>
#include <cstring>

#include "preload/output_path.h"
#include "preload/stderr_line.h"
#include "preload/whole_file.h"

namespace kith::preload {

bool RequestTrace::open() {
  if (restart_) {
    // The parent's writer still holds the parent's buffered events: writing them
    // here would put them in the child's trace, so it is dropped unflushed.
    (void)writer_.release();
    if (file_) std::fclose(file_);  // unbuffered: nothing of the parent's in it
    file_ = nullptr;
    ids_.reset();
    time_ = nextId_ = 0;
    restart_ = false;
  }
  std::string path = outputPath(path_, rootPid_);
  partial_ = partialPath(path);  // renamed onto path by finish(): whole or not at all
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_) {
    stop(path.c_str(), errno);
    return false;
  }
  // TraceWriter buffers 256 KiB itself; an unbuffered FILE leaves nothing pending
  // in it at a fork.
  std::setvbuf(file_, nullptr, _IONBF, 0);
  writer_ = std::make_unique<heap::TraceWriter>(file_, heap::traceFormatForPath(path_));
  ids_ = std::make_unique<heap::TraceIdMap>();
  return true;
}

void RequestTrace::stop(const char* path, int error) {
  stopped_ = true;
  writeStderrLine("kith: %s: %s (the trace stops here)", path, std::strerror(error));
}

void RequestTrace::finish() {
  if (stopped_) return;
  if ((!writer_ || restart_) && !open()) return;  // a process with no request still leaves an empty trace
  writer_->finish();
  bool ok = writer_->ok();
  int error = errno;
  if (std::fclose(file_) != 0 && ok) {
    ok = false;
    error = errno;
  }
  file_ = nullptr;
  std::string path = outputPath(path_, rootPid_);
  if (ok && !publish(partial_, path)) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    abandon(partial_, path);
    writeStderrLine("kith: %s: %s", path.c_str(), std::strerror(error));
  }
  stopped_ = true;
}

}  // namespace kith::preload
