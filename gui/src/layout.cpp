// Automatic layout by tier (see layout.hpp).
#include "layout.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ringlab::gui {
namespace {
constexpr double kGap = kDeviceBox * 12 / 28;  ///< between device boxes
constexpr double kTierRow = 110;               ///< between switch tiers
double snap(double v) { return std::round(v / kGrid) * kGrid; }
}  // namespace

std::map<std::string, QPointF> auto_layout(const Topology& t) {
  std::map<std::string, QPointF> out;
  // Hosts left to right, each a frame of kind rows (NICs, CPUs and PCIe switches, GPUs, NVSwitches).
  double x = 0;
  const double host_top = 3 * kTierRow + 40;
  for (HostId h = 0; h < HostId(t.host_count()); ++h) {
    std::vector<DeviceId> rows[4];
    for (DeviceId d : t.host_devices(h)) {
      const DeviceKind k = t.device(d).kind;
      const int row = k == DeviceKind::Nic ? 0 : k == DeviceKind::Gpu ? 2 : k == DeviceKind::NvSwitch ? 3 : 1;
      rows[row].push_back(d);
    }
    std::size_t widest = 1;
    for (const auto& r : rows) widest = std::max(widest, r.size());
    for (int r = 0; r < 4; ++r)
      for (std::size_t i = 0; i < rows[r].size(); ++i)
        out[t.device(rows[r][i]).name] = QPointF(x + double(i) * (kDeviceBox + kGap), host_top + r * (kDeviceBox + kGap));
    x += double(widest) * (kDeviceBox + kGap) + 3 * kGap;
  }
  const double width = std::max(x, 400.0);
  // Fabric switches: one row per tier, spread over the hosts' width.
  std::vector<DeviceId> tiers[3];
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    const DeviceKind k = t.device(d).kind;
    if (k == DeviceKind::Leaf) tiers[2].push_back(d);
    if (k == DeviceKind::Spine) tiers[1].push_back(d);
    if (k == DeviceKind::Core) tiers[0].push_back(d);
  }
  for (int tier = 0; tier < 3; ++tier)
    for (std::size_t i = 0; i < tiers[tier].size(); ++i) {
      const double step = width / double(tiers[tier].size());
      out[t.device(tiers[tier][i]).name] = QPointF(snap(step * (double(i) + 0.5)), tier * kTierRow);
    }
  return out;
}

}  // namespace ringlab::gui
