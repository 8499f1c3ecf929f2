// jemalloc's initial-exec thread-locals fit only in the static TLS surplus glibc
// lays out when a process starts (heap/adapters/jemalloc_heap.h), and the surplus
// is set only by the GLIBC_TUNABLES of that start. So a command line that names
// jemalloc anywhere (a policy option, a study's list) re-executes `kith` once
// with a larger surplus, before it reads anything (standard input included);
// every other run is left as it started. A false match costs one exec, nothing
// else: the command line and environment are otherwise unchanged. Not under
// valgrind, whose caller sets GLIBC_TUNABLES itself (study/alloc_cost.py does).
#pragma once

namespace kith::cli {

// Returns only when no re-execution is needed or exec failed (the policy then
// reports what it cannot load).
void reexecWithStaticTlsForJemalloc(int argc, char** argv);

}  // namespace kith::cli
