// Output files written atomically: a regular file is written to a temporary name in its directory
// and renamed into place, so an error or a kill never leaves a half-written output file behind.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ringlab {

/// Calls `write` with a stream; if `path` is empty or "-", that stream is standard output. Otherwise
/// symbolic links in `path` are followed to the file they name (the links stay as they are); a regular
/// or new file is written to a temporary file in its directory that is renamed onto it once `write`
/// returns, and anything else (a pipe, a device, /dev/null, /dev/stdout and other links into /proc) is
/// written in place, appending. Throws InputError when the file cannot be created or written; a failed
/// write leaves an existing file untouched.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace ringlab
