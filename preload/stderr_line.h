// One line on standard error, written with one write(2): the library's messages
// come from inside malloc, where stdio's locks and buffers are not to be relied on.
//
// Standard error as the process started with it is kept: GNU tools (ls, sort, cp
// ...) close file descriptor 2 in an atexit handler, before this library's
// destructor writes the statistics. keepStandardError() takes a copy of it (a
// close-on-exec descriptor above 10), which is written instead of 2 as long as it
// still names the same file: a program that closes descriptors it did not open and
// opens others in their place never has the statistics written into its files.
#pragma once

namespace kith::preload {

// At load, when the process may write to standard error at exit.
void keepStandardError();

// printf-style; the line is cut at 1 KiB and ends in '\n'.
[[gnu::format(printf, 1, 2)]] void writeStderrLine(const char* format, ...);

// All of `size` bytes to standard error (the kept copy where it still is one).
void writeStderr(const char* data, unsigned long size);

// All of `size` bytes to file descriptor `fd`, through short writes and EINTR;
// false when a write failed.
bool writeAll(int fd, const char* data, unsigned long size);

}  // namespace kith::preload
