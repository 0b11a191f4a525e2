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

Route transfer_route(const Router& router, const Waypoints& waypoints, DeviceId src, DeviceId dst,
                     std::uint16_t channel) {
  if (waypoints) {
    const std::vector<DeviceId> via = waypoints(src, dst, channel);
    if (!via.empty()) return router.route_via(src, via, dst, channel);
  }
  return router.route(src, dst, channel);
}

}  // namespace ringlab::sim::detail
