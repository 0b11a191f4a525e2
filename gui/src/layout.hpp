// Where ringlab-gui draws devices when the scenario's layout section does not say: fabric switches in
// one row per tier (core, spine, leaf) spread over the hosts' width, hosts left to right, each a
// frame of kind rows (NICs; CPUs and PCIe switches; GPUs; NVSwitches). Scene units.
#pragma once

#include <QPointF>

#include <map>
#include <string>

#include "ringlab/topology/topology.hpp"

namespace ringlab::gui {

inline constexpr double kDeviceBox = 28;  ///< side of a device's box
inline constexpr double kGrid = 10;       ///< drags snap to it

/// Top-left corner of every device's box, by name.
std::map<std::string, QPointF> auto_layout(const Topology& topology);

}  // namespace ringlab::gui
