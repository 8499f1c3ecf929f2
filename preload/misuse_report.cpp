#include "preload/misuse_report.h"

#include <execinfo.h>
#include <unistd.h>

#include <cstdlib>

#include "preload/stderr_line.h"

namespace kith::preload {

void reportMisuse(heap::DebugHeapError kind, std::uintptr_t address, std::size_t size) {
  auto at = static_cast<unsigned long>(address);
  switch (kind) {
    case heap::DebugHeapError::doubleFree:
      writeStderrLine("kith: double free of 0x%lx (%zu bytes)", at, size);
      break;
    case heap::DebugHeapError::foreignPointer:
      writeStderrLine("kith: foreign pointer 0x%lx (no block of this heap starts or lies there)", at);
      break;
    case heap::DebugHeapError::interiorPointer:
      writeStderrLine("kith: interior pointer 0x%lx (inside a live block of %zu bytes, not its start)", at, size);
      break;
    case heap::DebugHeapError::writePastEnd:
      writeStderrLine("kith: write past the end of 0x%lx (%zu bytes)", at, size);
      break;
    case heap::DebugHeapError::headerSmashed:
      writeStderrLine("kith: write before the start of 0x%lx (%zu bytes)", at, size);
      break;
    case heap::DebugHeapError::useAfterFree:
      writeStderrLine("kith: use after free of 0x%lx (%zu bytes)", at, size);
      break;
  }
  void* frames[64];
  int depth = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, depth, STDERR_FILENO);
  std::abort();
}

}  // namespace kith::preload
