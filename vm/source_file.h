// Reading a source file whole (scripts and imported modules alike).
#pragma once

#include <optional>
#include <string>

namespace kith::vm {

// The file's bytes, or nullopt with `error` set to the reason (strerror's words).
std::optional<std::string> readSourceFile(const std::string& path, std::string& error);

}  // namespace kith::vm
