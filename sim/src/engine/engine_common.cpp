// Local-op durations, calibration scaling and bottleneck ranking shared by the two engines.
#include "engine/engine_common.hpp"

#include <algorithm>
#include <cmath>

namespace ringlab::sim::detail {

Duration scaled(Duration d, double factor) { return Duration::from_picoseconds(double(d.picoseconds()) * factor); }

LocalRates local_rates(const Calibration& cal, const Device& device) {
  if (device.kind == DeviceKind::Gpu)
    return {cal.reduce_rate(device.gpu_model), cal.copy_rate(device.gpu_model), cal.codec_rate(device.gpu_model), true};
  if (device.kind == DeviceKind::Cpu)
    return {cal.cpu_reduce_rate(), cal.cpu_memory_bandwidth / cal.copy_traffic, cal.cpu_memory_bandwidth / cal.codec_traffic,
            true};
  return {};  // switches and NICs reduce at line rate (SHARP, NVLS)
}

Duration local_op_time(const LocalRates& rates, const Calibration& cal, const Op& op) {
  if (!cal.model_compute || !rates.timed || op.bytes.count() == 0) return Duration{};
  switch (op.kind) {
    case OpKind::Reduce: return op.bytes / rates.reduce;
    case OpKind::Copy: return op.bytes / rates.copy;
    default: return op.bytes / rates.codec;
  }
}

Duration local_op_time(const Calibration& cal, const Device& device, const Op& op) {
  return local_op_time(local_rates(cal, device), cal, op);
}

std::vector<DirectionId> rank_bottlenecks(std::span<const DirectionStats> stats, std::size_t count) {
  std::vector<const DirectionStats*> ranked;
  ranked.reserve(stats.size());
  for (const DirectionStats& s : stats) ranked.push_back(&s);
  const std::size_t top = std::min(count, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + std::ptrdiff_t(top), ranked.end(),
                    [](const DirectionStats* a, const DirectionStats* b) {
                      return a->utilisation > b->utilisation || (a->utilisation == b->utilisation && a->direction < b->direction);
                    });
  std::vector<DirectionId> out;
  out.reserve(top);
  for (std::size_t i = 0; i < top; ++i) out.push_back(ranked[i]->direction);
  return out;
}

namespace {

/// Per-direction costs of `route` (Router::route_via's legs through `detour.via`): detour.pcie_cost on
/// the PCIe links of its first detour.costed_legs legs, 1 elsewhere.
std::vector<double> detour_costs(const Topology& t, std::span<const DirectionId> route, DeviceId src,
                                 const Detour& detour) {
  std::vector<double> costs(route.size(), 1.0);
  std::size_t leg = 0;
  // A waypoint equal to the previous point starts an empty leg (route_via skips it).
  const auto skip_empty = [&](DeviceId at) {
    while (leg < detour.via.size() && detour.via[leg] == at) ++leg;
  };
  skip_empty(src);
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (leg < detour.costed_legs && link_family(t.link(Topology::direction_link(route[i])).kind) == LinkFamily::Pcie)
      costs[i] = detour.pcie_cost;
    const DeviceId at = t.direction_target(route[i]);
    if (leg < detour.via.size() && detour.via[leg] == at) {
      ++leg;
      skip_empty(at);
    }
  }
  return costs;
}

}  // namespace

TransferRoute transfer_route(const Router& router, const Detours& detours, DeviceId src, DeviceId dst,
                             std::uint16_t channel) {
  TransferRoute out;
  const Detour detour = detours ? detours(src, dst, channel) : Detour{};
  Route route = detour.via.empty() ? router.route(src, dst, channel) : router.route_via(src, detour.via, dst, channel);
  out.directions = std::move(route.directions);
  if (detour.costed()) out.costs = detour_costs(router.topology(), out.directions, src, detour);
  out.max_rate = detour.max_rate;
  return out;
}

}  // namespace ringlab::sim::detail
