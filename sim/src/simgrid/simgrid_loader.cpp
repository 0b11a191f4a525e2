// load_simgrid_engine(): opens ringlab_simgrid with dlopen(RTLD_LOCAL) so that libsimgrid's MPI_*
// symbols never enter the global scope of a program that also links Open MPI.
//
// Where the library is, first found wins: $RINGLAB_SIMGRID_LIBRARY; the installed layout, relative to
// the running executable (RINGLAB_SIMGRID_INSTALLED, "../lib/libringlab_simgrid.so" from bin/, so an
// installed tree can move); the build tree (RINGLAB_SIMGRID_LIBRARY, an absolute path).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "ringlab/sim/simgrid_engine.hpp"

namespace ringlab::sim {
namespace {

using Factory = TimingEngine* (*)(int);

/// The library next to an installed executable, when it is there.
std::string installed_library() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path lib = exe.parent_path() / RINGLAB_SIMGRID_INSTALLED;
  return std::filesystem::is_regular_file(lib, ec) ? lib.lexically_normal().string() : std::string();
}

std::string library_path() {
  const char* env = std::getenv("RINGLAB_SIMGRID_LIBRARY");
  if (env && *env) return env;
  if (std::string installed = installed_library(); !installed.empty()) return installed;
  return RINGLAB_SIMGRID_LIBRARY;
}

/// Opens the library once per process (it stays loaded: SimGrid's engine is process-global).
Factory simgrid_factory() {
  static std::once_flag once;
  static Factory factory = nullptr;
  static std::string error;
  std::call_once(once, [] {
    const std::string path = library_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = "cannot load the SimGrid engine " + path + ": " + dlerror();
      return;
    }
    factory = reinterpret_cast<Factory>(dlsym(handle, "ringlab_simgrid_engine"));
    if (!factory) error = "no ringlab_simgrid_engine in " + path;
  });
  if (!factory) throw std::runtime_error(error);
  return factory;
}

}  // namespace

std::unique_ptr<TimingEngine> load_simgrid_engine(SimgridModel model) {
  return std::unique_ptr<TimingEngine>(simgrid_factory()(int(model)));
}

}  // namespace ringlab::sim
