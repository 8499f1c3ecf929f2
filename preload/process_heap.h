// The one heap of a process running under libkith_malloc.so: the C allocation API
// (malloc_api.cpp) on a Kith policy chosen by the environment (preload_settings.h).
//
// Chain: the policy as `makeHeap` builds it (StatsHeap<Policy>, heap/heap.h),
// under DebugHeap with KITH_CHECK=1, under one lock (Heap Layers' LockedHeap, as a
// mutex held around each call here, so frees from any thread are fine), with the
// aligned blocks' side table (aligned_blocks.h) and the trace (request_trace.h)
// beside it.
//
// Life cycle. Nothing here has a constructor that must run first: the heap starts
// at the first request, whenever that comes (another library's constructor, before
// ours), and is never torn down, so atexit handlers and later destructors that
// free still work; the statistics and the trace's end are written from this
// library's destructor. A fork leaves the child's heap usable (pthread_atfork).
//
// The library's own requests (the policy object, DebugHeap's and StatsHeap's
// tables, the trace's buffers, stdio and dlopen inside the library), made while
// this thread holds the lock, are served by OwnHeap (own_heap.h), apart from the
// policy, and so are requests before the C library has set up the environment the
// policy is read from. So the policy serves only the program and never re-enters
// itself, and every free is routed by its address: OwnHeap's arena, the policy's
// (any other address for the policies without an arena), or neither (handed to
// glibc, whose free reports what nobody allocated). The `malloc` policy is glibc's
// allocator itself: its own calls go to glibc's __libc_malloc and kin.
#pragma once

#include <cstddef>

namespace kith::preload {

// noexcept as the C API they serve is (glibc declares it so): the exported
// functions (malloc_api.cpp) then end in a jump here, with no frame of their own
// for an exception that cannot pass.
void* heapMalloc(std::size_t size) noexcept;
void heapFree(void* p) noexcept;
void* heapCalloc(std::size_t count, std::size_t size) noexcept;
void* heapRealloc(void* p, std::size_t size) noexcept;
// `alignment` is a power of two (the API's entry points check it).
void* heapAligned(std::size_t alignment, std::size_t size) noexcept;
std::size_t heapUsableSize(void* p) noexcept;

// From the library's constructor: the fork handlers, and KITH_ROOT_PID for children.
void heapAtLoad();
// From the library's destructor, and from _exit (malloc_api.cpp): --check's last
// look at every live block, the trace's end, the statistics, once per process. The
// heap goes on serving afterwards.
void heapAtExit();

}  // namespace kith::preload
