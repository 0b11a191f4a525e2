// load_simgrid_engine(): opens ringlab_simgrid with dlopen(RTLD_LOCAL) so that libsimgrid's MPI_*
// symbols never enter the global scope of a program that also links Open MPI.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "ringlab/sim/simgrid_engine.hpp"

namespace ringlab::sim {
namespace {

using Factory = TimingEngine* (*)(int);

/// Opens the library once per process (it stays loaded: SimGrid's engine is process-global).
Factory simgrid_factory() {
  static std::once_flag once;
  static Factory factory = nullptr;
  static std::string error;
  std::call_once(once, [] {
    const char* env = std::getenv("RINGLAB_SIMGRID_LIBRARY");
    const std::string path = env && *env ? env : RINGLAB_SIMGRID_LIBRARY;
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
