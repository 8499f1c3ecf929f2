// The temporary files an OutputFile writes before renaming them into place
// (cli/output_file.h), remembered so that a run a signal ends (Ctrl-C, kill, a
// closed pipe, an abort) leaves none of them behind: the handler removes them, then
// dies by the signal as it would have without one. A run that returns removes its
// own (OutputFile's destructor); this is only for the way out that skips it.
#pragma once

#include <string>

namespace kith::cli {

// Creates a file from `pattern` (ending in XXXXXX, replaced by mkstemp in place),
// exclusively, and remembers it — with the signals blocked in between, so no signal
// finds it created and not yet remembered. The descriptor, or -1 with errno set.
// The first call installs the handlers, for the signals whose action is the default.
int createTemporaryFile(std::string& pattern);

// Removes the file and forgets it.
void removeTemporaryFile(const std::string& path);

// Forgets the file, which is no longer temporary (renamed into place).
void forgetTemporaryFile(const std::string& path);

}  // namespace kith::cli
