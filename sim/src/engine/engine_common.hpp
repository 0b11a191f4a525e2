// What both engines (simulator.cpp and simgrid_engine.cpp) share so they time the same work and report
// the same way: local-op durations, calibration scaling and the bottleneck ranking of a Result.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "ringlab/sim/calibration.hpp"
#include "ringlab/sim/result.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim::detail {

/// Local-op rates of one device from `cal`; `timed` is false for switches and NICs, which reduce at
/// line rate (SHARP, NVLS). Engines compute them once per endpoint.
struct LocalRates {
  Bandwidth reduce, copy, codec;
  bool timed = false;
};
LocalRates local_rates(const Calibration& cal, const Device& device);

/// Time local `op` takes at `rates`: zero when untimed, for zero bytes, and when cal.model_compute is off.
Duration local_op_time(const LocalRates& rates, const Calibration& cal, const Op& op);

/// Time `op` (a local op) takes on `device`: bytes / rate with the GPU model's or the host CPU's rate
/// from `cal`; zero on switches and NICs (line-rate in-network reduction), for zero bytes, and when
/// cal.model_compute is off.
Duration local_op_time(const Calibration& cal, const Device& device, const Op& op);

/// The route a transfer takes, and the capacity one of its bytes takes on each direction.
struct TransferRoute {
  std::vector<DirectionId> directions;
  std::vector<double> costs;  ///< one per direction; empty: 1 on every one
  Bandwidth max_rate;         ///< the detour's limit on one transfer; zero: none
};
/// The route a transfer from `src` to `dst` on `channel` takes: through the devices of its detour
/// where it names any (host-memory staging), else the router's direct route; with the detour's PCIe
/// costs on its costed legs.
TransferRoute transfer_route(const Router& router, const Detours& detours, DeviceId src, DeviceId dst,
                             std::uint16_t channel);
inline TransferRoute transfer_route(const Router& router, const SimOptions& options, DeviceId src, DeviceId dst,
                                    std::uint16_t channel) {
  return transfer_route(router, options.detours, src, dst, channel);
}

/// `d` scaled by a calibration factor, rounded to the nearest picosecond.
Duration scaled(Duration d, double factor);

/// The `count` most utilised link directions of `stats`, highest first, ties by id.
std::vector<DirectionId> rank_bottlenecks(std::span<const DirectionStats> stats, std::size_t count);

}  // namespace ringlab::sim::detail
