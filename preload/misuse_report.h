// What --check (KITH_CHECK=1) does when DebugHeap catches a misuse: one line on
// standard error naming the error, the address and the size the program asked for
// (`kith: double free of 0x55d3c1a0 (24 bytes)`), the backtrace of the call that
// found it (backtrace_symbols_fd: function names for exported symbols, else
// object+offset, which addr2line reads), then abort(), so the program dies of
// SIGABRT (128+6 = 134 from kith exec) and leaves a core where cores are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/layers/debug_heap.h"

namespace kith::preload {

[[noreturn]] void reportMisuse(heap::DebugHeapError kind, std::uintptr_t address, std::size_t size);

// A DebugHeapErrorHandler: `context` is the DebugHeap, whose lastFault() says what.
template <class Checked>
void misuseHandler(void* context, heap::DebugHeapError kind, const std::string&) {
  const heap::DebugHeapFault& fault = static_cast<Checked*>(context)->lastFault();
  reportMisuse(kind, fault.address, fault.size);
}

}  // namespace kith::preload
