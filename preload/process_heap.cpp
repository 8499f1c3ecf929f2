#include "preload/process_heap.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/single_threaded.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "heap/adapters/shared_library.h"
#include "heap/heap.h"
#include "heap/layer.h"
#include "heap/layers/debug_heap.h"
#include "preload/aligned_blocks.h"
#include "preload/exit_report.h"
#include "preload/misuse_report.h"
#include "preload/own_heap.h"
#include "preload/preload_environment.h"
#include "preload/preload_settings.h"
#include "preload/request_trace.h"
#include "preload/requested_bytes.h"
#include "preload/stderr_line.h"

// glibc's own allocator, under the names it exports for allocators that wrap it:
// the `malloc` policy's, and where a block nobody here made is handed back.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void __libc_free(void* p);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace kith::preload {
namespace {

// While the policy itself runs: the `malloc` policy's own requests are the C
// library's (glibc's malloc is that policy), every other request made with the lock
// held is the library's own (OwnHeap). Read and written only by the lock's holder.
bool inPolicy = false;
bool policyIsCLibrary = false;  // KITH_HEAP=malloc
// KITH_HEAP=malloc with nothing to count, record or check: every request goes
// straight to glibc, so the comparison runs on glibc itself, not on glibc behind
// this library's lock and layers.
std::atomic<bool> passThrough{false};

class PolicyCall {
 public:
  PolicyCall() { inPolicy = true; }
  ~PolicyCall() { inPolicy = false; }
  PolicyCall(const PolicyCall&) = delete;
  PolicyCall& operator=(const PolicyCall&) = delete;
};

// The registry's Heap as a layer, so DebugHeap can sit on any policy by name.
class ErasedHeap {
 public:
  explicit ErasedHeap(heap::Heap* heap) : heap_(heap) {}
  void* malloc(std::size_t size) {
    PolicyCall call;
    return heap_->malloc(size);
  }
  void free(void* p) {
    PolicyCall call;
    heap_->free(p);
  }
  std::size_t getSize(void* p) {
    PolicyCall call;
    return heap_->getSize(p);
  }

 private:
  heap::Heap* heap_;
};
using CheckedHeap = heap::DebugHeap<ErasedHeap>;

// Everything the heap holds once started; in the library's own heap (OwnHeap).
struct Process {
  PreloadSettings settings;
  std::unique_ptr<heap::Heap> policy;
  std::unique_ptr<CheckedHeap> checked;  // --check
  std::unique_ptr<AlignedBlocks> aligned;
  std::unique_ptr<RequestTrace> trace;   // --trace
  std::unique_ptr<RequestedBytes> requested;  // with the statistics
  ProcessCounts counts;
  // The process this memory is: set at start and in a fork's child. A child of
  // vfork shares its parent's memory without being told (no fork handlers run), so
  // its pid differs, and it must not write (or mark written) the parent's report.
  long ownerPid = 0;
  bool reportedOutOfMemory = false;
  bool exited = false;
};

// --- the lock, and who holds it -------------------------------------------------
// Constant-initialised, so usable before any constructor runs.
pthread_mutex_t heapLock = PTHREAD_MUTEX_INITIALIZER;
// The thread holding heapLock while it runs this file's code; any request it makes
// then is the library's own (OwnHeap). pthread_t 0 is no thread.
std::atomic<pthread_t> holder{0};

// pthread_self() without the call: on x86-64 glibc's thread descriptor is what the
// thread pointer (%fs) points at.
pthread_t self() {
#if defined(__x86_64__)
  return reinterpret_cast<pthread_t>(__builtin_thread_pointer());
#else
  return ::pthread_self();
#endif
}

bool recursing() { return holder.load(std::memory_order_relaxed) == self(); }

// While the process has one thread (glibc's __libc_single_threaded, cleared for
// good when a second thread is made), nothing can race it for the heap: the
// holder is marked without the mutex, whose two atomic read-modify-writes were
// most of a request's overhead in a single-threaded program. No code of this
// library or of a policy makes a thread inside a request, so the process cannot
// gain one between a Held's start and end.
class Held {
 public:
  Held() : locked_(!__libc_single_threaded) {
    if (locked_) ::pthread_mutex_lock(&heapLock);
    holder.store(self(), std::memory_order_relaxed);
  }
  ~Held() {
    holder.store(0, std::memory_order_relaxed);
    if (locked_) ::pthread_mutex_unlock(&heapLock);
  }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;

 private:
  bool locked_;
};

// --- the library's own heap -----------------------------------------------------
alignas(OwnHeap) unsigned char ownStorage[sizeof(OwnHeap)];
OwnHeap* own = nullptr;
// An address range, for telling whose a block is without the lock: set once,
// under it; zero bytes (no address inside) until then.
struct Range {
  std::atomic<std::uintptr_t> start{0}, bytes{0};
  bool holds(const void* p) const {
    return reinterpret_cast<std::uintptr_t>(p) - start.load(std::memory_order_relaxed) <
           bytes.load(std::memory_order_relaxed);
  }
  void set(const std::byte* base, std::size_t size) {
    start.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_relaxed);
    bytes.store(size, std::memory_order_release);
  }
};
Range ownSmall, ownLarge;

OwnHeap& ownHeap() {
  if (!own) {
    try {
      own = new (ownStorage) OwnHeap;
    } catch (const std::bad_alloc&) {
      writeStderrLine("kith: cannot reserve the %zu bytes libkith_malloc.so keeps for its own requests",
                      OwnHeap::kSmallBytes + OwnHeap::kLargeBytes);
      ::_exit(70);
    }
    ownSmall.set(own->smallBase(), own->smallSize());
    ownLarge.set(own->largeBase(), own->largeSize());
  }
  return *own;
}

[[gnu::always_inline]] inline bool ownBlock(const void* p) { return ownSmall.holds(p) || ownLarge.holds(p); }

// The requests of a thread that holds the lock (recursing()).
bool cLibraryServes() { return inPolicy && policyIsCLibrary; }

[[gnu::noinline]] void* ownMalloc(std::size_t size) {
  void* p = cLibraryServes() ? __libc_malloc(size) : ownHeap().malloc(size);
  if (!p) errno = ENOMEM;
  return p;
}

void* ownCalloc(std::size_t size) {
  void* p = cLibraryServes() ? __libc_calloc(1, size) : ownHeap().zeroed(size);
  if (!p) errno = ENOMEM;
  return p;
}

void* ownMemalign(std::size_t alignment, std::size_t size) {
  void* p = cLibraryServes() ? __libc_memalign(alignment, size) : ownHeap().memalign(alignment, size);
  if (!p) errno = ENOMEM;
  return p;
}

// --- the state, written once under the lock -----------------------------------
Process* process = nullptr;
std::atomic<bool> serving{false};
// The policy when a request needs nothing else: no --check, no trace, no statistics
// (so no high-water mark to keep), and not the C library's malloc (whose own calls
// need PolicyCall); null otherwise. Set once, before `serving`. The entry points
// then call it straight, and obtain, handOut and release, whose every other case
// costs the common one saved registers and tests, stay for the rest.
std::atomic<heap::Heap*> plain{nullptr};
// The policy's arena; null for the policies without one (malloc, jemalloc, mimalloc).
const std::byte* arenaBase = nullptr;
std::size_t arenaSize = 0;
// The same as a range: the one comparison most frees, reallocs and size queries make.
Range arena;
std::size_t (*glibcUsableSize)(void*) = nullptr;

std::size_t cLibraryUsableSize(void* p) {
  // Resolved when the heap starts, with the lock held: dlsym's own requests are then
  // the library's (OwnHeap), and it is known before any block of the policy's exists.
  if (!glibcUsableSize)
    glibcUsableSize = reinterpret_cast<std::size_t (*)(void*)>(::dlsym(RTLD_NEXT, "malloc_usable_size"));
  return glibcUsableSize ? glibcUsableSize(p) : 0;
}

// Whether the policy serves `p` (not one of the library's own, checked first):
// false for any block outside the policy's arena, which only the C library can
// have made (or none did: glibc's free then says so).
[[gnu::always_inline]] inline bool policyBlock(const void* p) {
  if (!serving.load(std::memory_order_acquire)) return false;
  return !arenaBase || arena.holds(p);
}

[[noreturn]] void refuse(int code, const char* what) {
  writeStderrLine("kith: %s", what);
  ::_exit(code);
}

void cannotReserve(const PreloadSettings& s) {
  struct sysinfo info {};
  double memory = 0;
  if (::sysinfo(&info) == 0) memory = static_cast<double>(info.totalram) * info.mem_unit / 1073741824.0;
  writeStderrLine("kith: %s=%zu: cannot reserve a heap of %zu bytes: the system refused the mapping (this machine "
                  "has %.1f GiB of memory); try a smaller size",
                  kHeapSizeVariable, s.heapBytes, s.heapBytes, memory);
  ::_exit(64);
}

// Builds the heap the environment asks for. A mistake in it ends the program as a
// usage error (64) would: serving a different heap than asked would be a silent
// fallback.
Process* build() {
  auto* p = new Process;
  if (auto problem = readSettings(p->settings)) refuse(64, problem->c_str());
  const PreloadSettings& s = p->settings;
  auto mode = s.keepsStatistics() ? heap::StatisticsMode::countsAndTimes : heap::StatisticsMode::none;
  try {
    p->policy = heap::makeHeap(s.policy, s.heapBytes, mode);
  } catch (const std::bad_alloc&) {
    cannotReserve(s);
  } catch (const heap::LibraryUnavailable& e) {
    refuse(69, e.what());
  }
  if (s.check) {
    p->checked = std::make_unique<CheckedHeap>(p->policy.get());
    p->checked->setErrorHandler(&misuseHandler<CheckedHeap>, p->checked.get());
  }
  p->aligned = std::make_unique<AlignedBlocks>(s.check);
  p->ownerPid = ::getpid();
  if (!s.tracePath.empty()) p->trace = std::make_unique<RequestTrace>(s.tracePath, s.rootPid);
  if (s.keepsStatistics()) p->requested = std::make_unique<RequestedBytes>();
  return p;
}

// Starts the heap at the first request; false while the C library has not set up
// the environment the policy is read from (the library's own heap serves until then).
[[gnu::noinline]] bool startNow() {
  if (!environ) return false;
  cLibraryUsableSize(nullptr);  // resolved now, before the policy (malloc's getSize) needs it
  Process* p = build();
  policyIsCLibrary = p->settings.policy == "malloc";
  const PreloadSettings& s = p->settings;
  passThrough.store(policyIsCLibrary && !s.keepsStatistics() && s.tracePath.empty() && !s.check,
                    std::memory_order_relaxed);
  arenaBase = p->policy->arenaBase();
  arenaSize = p->policy->arenaSize();
  if (arenaBase) arena.set(arenaBase, arenaSize);
  process = p;
  if (!policyIsCLibrary && !p->checked && !p->trace && !s.keepsStatistics())
    plain.store(p->policy.get(), std::memory_order_release);
  serving.store(true, std::memory_order_release);
  return true;
}

bool start() { return process || startNow(); }

// --- requests, with the lock held and the heap started ------------------------
[[gnu::cold]] void outOfMemory(std::size_t size) {
  Process& p = *process;
  if (p.reportedOutOfMemory) return;
  p.reportedOutOfMemory = true;
  writeStderrLine("kith: out of memory: the %s heap (%zu bytes) cannot meet a request of %zu bytes; the program "
                  "gets NULL (ENOMEM) for it and any other it cannot meet (a larger heap: %s, kith exec --heap-size)",
                  p.settings.policy.c_str(), p.settings.heapBytes, size, kHeapSizeVariable);
}

void* obtain(std::size_t size) {
  Process& p = *process;
  void* block;
  if (p.checked) {
    block = p.checked->malloc(size);
  } else {
    PolicyCall call;
    block = p.policy->malloc(size);
  }
  if (!block) {
    outOfMemory(size);
  } else if (arenaBase) {
    std::size_t end = static_cast<std::size_t>(static_cast<const std::byte*>(block) - arenaBase) + size;
    if (end > p.counts.arenaHighWater) p.counts.arenaHighWater = end;
  }
  return block;
}

std::size_t blockSize(void* block) {
  Process& p = *process;
  if (p.checked) return p.checked->getSize(block);
  PolicyCall call;
  return p.policy->getSize(block);
}

std::size_t usable(void* q) {
  if (void* block = process->aligned->blockOf(q))
    return blockSize(block) - static_cast<std::size_t>(static_cast<std::byte*>(q) - static_cast<std::byte*>(block));
  return blockSize(q);
}

void release(void* q) {
  Process& p = *process;
  void* block = p.aligned->take(q);
  if (!block) {
    std::size_t size = 0;
    if (p.checked && p.aligned->wasFreed(q, size))
      reportMisuse(heap::DebugHeapError::doubleFree, reinterpret_cast<std::uintptr_t>(q), size);
    block = q;
  }
  if (p.trace) p.trace->freed(q);
  if (p.requested) p.requested->freed(q);
  if (p.checked) {
    p.checked->free(block);
  } else {
    PolicyCall call;
    p.policy->free(block);
  }
}

// The address handed to the program: recorded, and (--check) no longer a freed one.
void* handOut(void* q, std::size_t size) {
  Process& p = *process;
  if (p.trace) p.trace->allocated(q, size);
  if (p.requested) p.requested->allocated(q, size);
  if (q && p.checked) p.aligned->reissued(q);
  return q;
}

// The program's block `q` freed, with the lock held: straight to the policy when
// it is `plain` and no aligned address could be `q`.
void releaseHeld(void* q) {
  heap::Heap* policy = plain.load(std::memory_order_acquire);
  if (policy && process->aligned->empty()) [[likely]]
    policy->free(q);
  else
    release(q);
}

// --- fork -----------------------------------------------------------------------
void prepareFork() { ::pthread_mutex_lock(&heapLock); }
void parentAfterFork() { ::pthread_mutex_unlock(&heapLock); }
void childAfterFork() {
  // The forking thread is the child's only one; a lock re-made is one nobody holds.
  ::pthread_mutex_init(&heapLock, nullptr);
  holder.store(0, std::memory_order_relaxed);
  if (!process) return;
  process->ownerPid = ::getpid();
  if (process->trace) process->trace->restartInChild();
}

bool outputsRequested() {
  for (const char* name : {kStatsVariable, kStatsFileVariable, kTraceVariable, kCheckVariable}) {
    const char* value = std::getenv(name);
    if (value && *value) return true;
  }
  return false;
}

}  // namespace

// Each entry point takes the common case first, in a few instructions: a request
// of the program's, a block in the policy's arena, a `plain` policy (one virtual
// call under Held, nothing else). Everything else (--check, a trace, statistics,
// glibc's `malloc` policy passed through, the library's own requests, the blocks
// of a policy without an arena, NULL, a size of 0) is in the out-of-line functions
// after them, so the common case does not pay their registers and branches: before
// `plain`, those cost a cfrac request pair ~150 instructions beside the policy's
// ~60 (docs/EXEC.md, "Where a preloaded policy's time goes").

namespace {

[[gnu::noinline]] void freeBesideTheArena(void* q) {
  if (!q) return;
  if (ownBlock(q)) {
    if (recursing()) {
      ownHeap().free(q);
    } else {
      Held held;
      ownHeap().free(q);
    }
  } else if (passThrough.load(std::memory_order_relaxed) || recursing() || !policyBlock(q)) {
    __libc_free(q);  // the `malloc` policy's own, or none of this library's
  } else {
    Held held;  // a block of a policy without an arena
    releaseHeld(q);
  }
}

// A realloc of `from`, now `size` bytes at `to` (== from: in place), in the trace
// and the requested bytes.
void recordResize(void* from, void* to, std::size_t size) {
  Process& p = *process;
  if (p.trace) p.trace->resized(from, to, size);
  if (p.requested) p.requested->resized(from, to, size);
}

// With the lock held: the program's block `q` resized.
void* resize(void* q, std::size_t size) {
  Process& p = *process;
  std::size_t room = usable(q);
  // In place when the block holds the new size. DebugHeap's blocks are exactly the
  // size asked for, with the canary right after it: under --check every resize moves.
  if (p.checked ? size == room : size <= room) {
    ++p.counts.reallocsInPlace;
    recordResize(q, q, size);
    return q;
  }
  void* moved = obtain(size);
  if (!moved) {
    if (p.trace) p.trace->allocated(nullptr, size);  // a failed request; q stays the program's
    return nullptr;
  }
  if (p.checked) p.aligned->reissued(moved);
  std::memcpy(moved, q, std::min(room, size));
  recordResize(q, moved, size);  // q's id goes to `moved`: release records no free
  release(q);
  ++p.counts.reallocsMoved;
  return moved;
}

[[gnu::noinline]] void* reallocBesideTheArena(void* q, std::size_t size) {
  if (!q) return heapMalloc(size);
  if (size == 0) {  // as glibc: the block is freed and the result is NULL
    heapFree(q);
    return nullptr;
  }
  void* moved;
  if (ownBlock(q)) {
    if (recursing()) {
      moved = ownHeap().realloc(q, size);
    } else {
      Held held;
      moved = ownHeap().realloc(q, size);
    }
  } else if (passThrough.load(std::memory_order_relaxed) || recursing() || !policyBlock(q)) {
    return __libc_realloc(q, size);
  } else {
    Held held;  // a block of a policy without an arena
    moved = resize(q, size);
  }
  if (!moved) errno = ENOMEM;
  return moved;
}

[[gnu::noinline]] std::size_t usableSizeBesideTheArena(void* q) {
  if (!q) return 0;
  if (ownBlock(q)) {
    if (recursing()) return ownHeap().usableSize(q);
    Held held;
    return ownHeap().usableSize(q);
  }
  if (passThrough.load(std::memory_order_relaxed) || recursing() || !policyBlock(q))
    return cLibraryUsableSize(q);
  Held held;
  return usable(q);
}

[[gnu::noinline]] void* mallocBesideThePlainPolicy(std::size_t size) {
  if (passThrough.load(std::memory_order_relaxed)) return __libc_malloc(size);
  if (recursing()) return ownMalloc(size);
  void* q;
  {
    Held held;
    q = start() ? handOut(obtain(size), size) : ownHeap().malloc(size);
  }
  if (!q) errno = ENOMEM;
  return q;
}

}  // namespace

void* heapMalloc(std::size_t size) noexcept {
  heap::Heap* policy = plain.load(std::memory_order_acquire);
  if (!policy || recursing()) [[unlikely]]
    return mallocBesideThePlainPolicy(size);
  void* q;
  {
    Held held;
    q = policy->malloc(size);
    if (!q) [[unlikely]] outOfMemory(size);
  }
  if (!q) [[unlikely]] errno = ENOMEM;
  return q;
}

void heapFree(void* q) noexcept {
  if (arena.holds(q)) [[likely]] {
    Held held;
    releaseHeld(q);
    return;
  }
  if (passThrough.load(std::memory_order_relaxed) && !ownBlock(q)) return __libc_free(q);
  freeBesideTheArena(q);
}

void* heapCalloc(std::size_t count, std::size_t size) noexcept {
  std::size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (passThrough.load(std::memory_order_relaxed)) return __libc_calloc(count, size);
  if (recursing()) return ownCalloc(total);
  void* q = heapMalloc(total);
  if (q) std::memset(q, 0, total);  // a policy's blocks are reused: never assume zero
  return q;
}

void* heapRealloc(void* q, std::size_t size) noexcept {
  if (!arena.holds(q) || size == 0) [[unlikely]]
    return reallocBesideTheArena(q, size);
  void* moved;
  {
    Held held;
    moved = resize(q, size);
  }
  if (!moved) errno = ENOMEM;  // the old block stays the program's, unchanged
  return moved;
}

void* heapAligned(std::size_t alignment, std::size_t size) noexcept {
  if (alignment <= heap::kAlignment) return heapMalloc(size);
  if (passThrough.load(std::memory_order_relaxed)) return __libc_memalign(alignment, size);
  if (recursing()) return ownMemalign(alignment, size);
  // Room for the first aligned address in a 16-byte aligned block, and at least one
  // byte after it: an aligned address at the block's very end could be the start of
  // the next block, which the side table would then take for this one.
  std::size_t total;
  if (__builtin_add_overflow(size ? size : 1, alignment - heap::kAlignment, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* q;
  {
    Held held;
    if (!start()) {
      q = ownHeap().memalign(alignment, size);
    } else {
      Process& p = *process;
      ++p.counts.alignedRequests;
      void* block = obtain(total);
      q = block ? reinterpret_cast<void*>(heap::alignUp(reinterpret_cast<std::uintptr_t>(block), alignment))
                : nullptr;
      if (q != block) p.aligned->add(q, block, size);
      q = handOut(q, total);
    }
  }
  if (!q) errno = ENOMEM;
  return q;
}

std::size_t heapUsableSize(void* q) noexcept {
  if (!arena.holds(q)) [[unlikely]]
    return usableSizeBesideTheArena(q);
  Held held;
  return usable(q);
}

void heapAtLoad() {
  ::pthread_atfork(&prepareFork, &parentAfterFork, &childAfterFork);
  if (outputsRequested()) keepStandardError();
  // The first process with the library writes the plain PATHs; tell its children.
  if (!std::getenv(kRootPidVariable) && outputsRequested())
    ::setenv(kRootPidVariable, std::to_string(::getpid()).c_str(), 0);
}

void heapAtExit() {
  if (recursing()) return;
  Held held;
  if (!process && !outputsRequested()) return;  // no request, nothing to write: no heap built
  if (!start()) return;
  Process& p = *process;
  if (p.exited || p.ownerPid != ::getpid()) return;
  p.exited = true;
  if (p.checked) p.checked->checkAll();  // a write past the end of a block never freed
  if (p.trace) p.trace->finish();
  if (!p.settings.keepsStatistics()) return;
  ProcessReport report;
  report.policy = p.settings.policy;
  report.heapBytes = p.settings.heapBytes;
  report.check = p.settings.check;
  report.pid = ::getpid();
  report.command = program_invocation_short_name;
  {
    PolicyCall call;
    report.heap = p.policy->statistics();
  }
  report.counts = p.counts;
  report.peakRequested = p.requested->peak();
  if (arenaBase) {
    report.memoryConsumption = p.counts.arenaHighWater;
    report.arenaResident = residentBytes(arenaBase, arenaSize);
  }
  report.peakRss = peakResidentBytes();
  writeReport(p.settings, report);
}

}  // namespace kith::preload
