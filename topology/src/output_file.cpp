// Atomic output files for every program of the project (the command line, the harness, the planner).
//
// write_output() resolves a symbolic link to the file it names and replaces that file, so the link
// survives; anything that is not a regular file (a pipe, /dev/null, a terminal) and the /proc/self/fd
// links behind /dev/stdout are written in place, because renaming over them would replace the device or
// the caller's redirection with a plain file.
#include "ringlab/topology/output_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinkDepth = 40;  ///< links followed before giving up, as Linux's ELOOP limit

/// True for paths under /proc: the kernel's magic links (/dev/stdout -> /proc/self/fd/1 -> whatever the
/// shell redirected to, "pipe:[1234]" for a pipe) name open files, not paths, and are written as they are.
bool is_proc_path(const fs::path& p) { return p.lexically_normal().string().rfind("/proc/", 0) == 0; }

/// Where writing `path` should land: `path` with every symbolic link followed (also a dangling one, whose
/// target is then created), and whether it must be written in place rather than by temp-and-rename.
struct Target {
  fs::path file;
  bool in_place = false;
};

Target resolve_target(const std::string& path) {
  fs::path p(path);
  for (int depth = 0; depth < kMaxLinkDepth; ++depth) {
    if (is_proc_path(fs::absolute(p))) return Target{p, true};
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(p, ec);
    if (ec || !fs::is_symlink(link)) break;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) throw InputError(path, "", "cannot follow the symbolic link: " + ec.message());
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(p, ec);
  if (fs::is_symlink(fs::symlink_status(p, ec)))
    throw InputError(path, "", "too many levels of symbolic links");
  const bool regular_or_new = !fs::exists(status) || fs::is_regular_file(status);
  return Target{p, !regular_or_new};
}

// Appends rather than truncates: a device or pipe does not care, and /dev/stdout redirected with `>>`
// to a file keeps what the file held (the shell truncated it already for `>`).
void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) throw InputError(path, "", "cannot open the output for writing");
  write(out);
  out.flush();
  if (!out) throw InputError(path, "", "cannot write the output file");
}

}  // namespace

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  const Target target = resolve_target(path);
  if (target.in_place) {
    write_in_place(target.file.string(), write);
    return;
  }
  // A temporary file in the target's own directory, so the rename is atomic; the process id keeps two
  // concurrent writers of the same file apart.
  const fs::path temp = target.file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot create the output file (does the directory exist?)");
    write(out);
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw InputError(path, "", "cannot write the output file");
    }
  }
  std::error_code ec;
  const fs::file_status old = fs::status(target.file, ec);
  if (!ec && fs::is_regular_file(old)) fs::permissions(temp, old.permissions(), ec);  // keep the file's mode
  fs::rename(temp, target.file, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw InputError(path, "", "cannot move the output file into place: " + ec.message());
  }
}

}  // namespace ringlab
