// Reading a source file whole (scripts and imported modules alike). Only a regular
// file is source: a device or FIFO could hand out bytes without end (/dev/zero) or
// block until a writer comes, and a file over kMaxSourceBytes is refused, so reading
// one never hangs or exhausts memory (LANGUAGE.md, Modules).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace kith::vm {

inline constexpr std::size_t kMaxSourceBytes = std::size_t{256} << 20;

// True when `path` names a regular file; otherwise false with `error` set to the
// reason: the system's words ("No such file or directory", "Is a directory"), or
// "not a regular file".
bool isRegularSourceFile(const std::string& path, std::string& error);

// The file's bytes, or nullopt with `error` set to the reason (as above, or "source
// too large").
std::optional<std::string> readSourceFile(const std::string& path, std::string& error);

// Everything readable from `fd` to its end (standard input for `kith run -`), under
// the same cap; nullopt with `error` set to the reason. Does not close `fd`.
std::optional<std::string> readSourceDescriptor(int fd, std::string& error);

}  // namespace kith::vm
