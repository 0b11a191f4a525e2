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
  // Each host a frame of kind rows (NICs; CPUs and PCIe switches; GPUs; NVSwitches).
  struct Frame {
    std::vector<DeviceId> rows[4];
    std::size_t widest = 1;
  };
  std::vector<Frame> frames(t.host_count());
  for (HostId h = 0; h < HostId(t.host_count()); ++h) {
    Frame& f = frames[std::size_t(h)];
    for (DeviceId d : t.host_devices(h)) {
      const DeviceKind k = t.device(d).kind;
      f.rows[k == DeviceKind::Nic ? 0 : k == DeviceKind::Gpu ? 2 : k == DeviceKind::NvSwitch ? 3 : 1].push_back(d);
    }
    for (const auto& r : f.rows) f.widest = std::max(f.widest, r.size());
  }
  // Hosts in rows under the switch tiers, as many per row as keeps the picture about 16:10.
  const double cell = kDeviceBox + kGap;
  std::size_t widest = 1;
  for (const Frame& f : frames) widest = std::max(widest, f.widest);
  const double host_w = double(widest) * cell + 3 * kGap;
  const double host_h = 4 * cell + 3 * kGap;
  const auto n = double(std::max<std::size_t>(frames.size(), 1));
  const auto per_row = std::size_t(std::max(1.0, std::round(std::sqrt(n * host_h * 1.6 / host_w))));
  const double host_top = 3 * kTierRow + 40;
  for (std::size_t h = 0; h < frames.size(); ++h) {
    const double x = double(h % per_row) * host_w;
    const double y = host_top + double(h / per_row) * host_h;
    for (int r = 0; r < 4; ++r)
      for (std::size_t i = 0; i < frames[h].rows[r].size(); ++i)
        out[t.device(frames[h].rows[r][i]).name] = QPointF(x + double(i) * cell, y + r * cell);
  }
  const double width = std::max(double(std::min(frames.size(), per_row)) * host_w, 400.0);
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
