// Names of the SimGrid engine's models. Part of ringlab_sim (no SimGrid needed), so a command line can
// read `--simgrid-model` without linking the engine (ringlab_simgrid).
#include <optional>
#include <string_view>

#include "ringlab/sim/simgrid_engine.hpp"

namespace ringlab::sim {

std::string_view to_string(SimgridModel model) { return model == SimgridModel::Pure ? "pure" : "default"; }

std::optional<SimgridModel> find_simgrid_model(std::string_view name) {
  if (name == "pure") return SimgridModel::Pure;
  if (name == "default") return SimgridModel::Default;
  return std::nullopt;
}

}  // namespace ringlab::sim
