// Use-after-free made loud (debug and sanitizer builds, and --gc-stress): a freed
// object's handle is quarantined and points at an inaccessible page, so a stale
// Value that reads its object faults at a known address; the fault handler turns
// that fault into a clear message instead of a bare SIGSEGV.
#pragma once

#include <cstddef>

namespace kith::vm {

// The byte written over every freed object before its block goes back to the heap.
inline constexpr unsigned char kFreedObjectByte = 0xdb;

// One inaccessible region (mapped PROT_NONE once per process); nullptr if the
// system refused the mapping (then the quarantine alone still delays reuse).
void* poisonedObjectPage();
inline constexpr std::size_t kPoisonedPageBytes = 1 << 16;

// Installs (once) a SIGSEGV/SIGBUS handler that names a fault inside the poisoned
// page, or at a small address (a freed handle's null class), as the use of a freed
// object, then dies by the signal as before. Not installed under AddressSanitizer,
// whose own report is better.
void installFreedObjectFaultHandler();

}  // namespace kith::vm
