// The temporary files an OutputFile writes before renaming them into place
// (cli/output_file.h), remembered so that a run a signal ends (Ctrl-C, kill, a
// closed pipe, an abort) leaves none of them behind: the handler removes them, then
// dies by the signal as it would have without one. A run that returns removes its
// own (OutputFile's destructor); this is only for the way out that skips it.
#pragma once

#include <string>

namespace kith::cli {

// Remembers `path` until forgetTemporaryFile; false when there is no room (a
// handful at once: a command writes at most four outputs). The first call installs
// the handlers, for the signals whose action is still the default.
bool rememberTemporaryFile(const std::string& path);
void forgetTemporaryFile(const std::string& path);

}  // namespace kith::cli
