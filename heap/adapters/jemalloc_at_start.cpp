// kith_jemalloc_at_start: a shared library with nothing in it but its dependency on
// libjemalloc, so that a program linking it has jemalloc loaded at start, where its
// initial-exec TLS fits (jemalloc_heap.h says why that matters).
