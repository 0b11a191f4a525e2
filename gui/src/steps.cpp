// CollectiveSteps: the schedule's transfers per step, routed onto links (see steps.hpp).
#include "steps.hpp"

#include <map>
#include <stdexcept>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/routing.hpp"

namespace ringlab::gui {

CollectiveSteps collective_steps(const Topology& topology, const std::string& algorithm, Bytes message,
                                 std::size_t max_ops) {
  CollectiveSteps out;
  out.algorithm = algorithm;
  const auto a = sim::find_algorithm(algorithm);
  if (!a || *a == sim::Algorithm::Nccl) {
    out.error = "the step view needs a concrete algorithm (ring, tree, ...), not \"" + algorithm + "\"";
    return out;
  }
  const std::vector<DeviceId> ranks = topology.gpus();
  const double ring_ops = 5.0 * double(ranks.size()) * double(ranks.size());
  if (ring_ops > double(max_ops) * 4) {
    out.error = "too many GPUs for the step view (" + std::to_string(ranks.size()) + ")";
    return out;
  }
  sim::CollectiveSpec spec;
  spec.algorithm = *a;
  spec.message = message;
  sim::Schedule schedule = [&] {
    try {
      return sim::build_schedule(topology, ranks, spec);
    } catch (const std::invalid_argument& e) {
      out.error = e.what();
      return sim::Schedule(sim::Collective::AllReduce, algorithm, message, ranks);
    }
  }();
  if (!out.error.empty()) return out;
  if (schedule.ops().size() > max_ops) {
    out.error = "the schedule has " + std::to_string(schedule.ops().size()) + " ops, more than the step view draws";
    return out;
  }
  const Router router(topology);
  std::vector<std::map<LinkId, int>> per_step;
  for (const sim::Op& op : schedule.ops()) {
    if (op.kind != sim::OpKind::Send) continue;
    const DeviceId from = schedule.endpoints()[op.at].device;
    const DeviceId to = schedule.endpoints()[op.peer].device;
    if (from == to) continue;
    if (op.step >= per_step.size()) {
      per_step.resize(op.step + 1);
      out.transfers.resize(op.step + 1, 0);
    }
    ++out.transfers[op.step];
    for (DirectionId c : router.route(from, to, op.channel).directions) ++per_step[op.step][Topology::direction_link(c)];
  }
  for (const auto& step : per_step) out.links.emplace_back(step.begin(), step.end());
  return out;
}

}  // namespace ringlab::gui
