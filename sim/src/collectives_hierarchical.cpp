// Two-level AllReduce: inside each node, then between nodes, then inside each node again.
// Leader mode (TensorFlow HierarchicalCopy): reduce to the node's first rank, leaders allreduce,
// leaders broadcast. Rail mode (and ring2d): intra-node ring reduce-scatter, one inter-node
// allreduce per local position over that rank's own NIC, intra-node ring allgather.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "collectives_builder.hpp"

namespace ringlab::sim::detail {
namespace {

/// Ranks grouped by the host of their device, hosts in first-seen order, ranks in rank order.
/// A device without a host is a node of its own.
std::vector<Group> nodes_of(const Topology& topology, const Group& ranks, std::span<const EndpointInfo> endpoints) {
  std::vector<Group> nodes;
  std::vector<HostId> hosts;
  for (Endpoint r : ranks) {
    const HostId host = topology.device(endpoints[r].device).host;
    std::size_t i = 0;
    while (i < hosts.size() && (host == kNoHost || hosts[i] != host)) ++i;
    if (i == hosts.size()) {
      hosts.push_back(host);
      nodes.emplace_back();
    }
    nodes[i].push_back(r);
  }
  return nodes;
}

std::uint32_t inter_allreduce(Builder& b, const Group& group, std::span<const Piece> pieces, InterAlgorithm inter,
                              std::uint32_t step) {
  if (group.size() < 2) return 0;
  if (inter == InterAlgorithm::Tree) return tree_allreduce(b, group, pieces, step);
  std::vector<Unit> units;
  for (const Piece& p : pieces) {
    Unit u{p.channel, {}};
    for (int blk = 0; blk < int(group.size()); ++blk)
      u.blocks.push_back(part(p.range, blk, int(group.size()), b.elem()));
    units.push_back(std::move(u));
  }
  const std::uint32_t steps = ring_reduce_scatter(b, group, units, step);
  return steps + ring_allgather(b, group, units, step + steps);
}

void build_leader(Builder& b, const std::vector<Group>& nodes, const CollectiveSpec& spec, InterAlgorithm inter) {
  const auto pieces = split_pieces(Range{Bytes{}, spec.message}, spec.channels, spec.chunk, b.elem());
  std::uint32_t step = 0;
  for (const Group& node : nodes)
    if (node.size() > 1) step = std::max(step, star_reduce(b, node, 0, pieces, 0));
  Group leaders;
  for (const Group& node : nodes) leaders.push_back(node.front());
  step += inter_allreduce(b, leaders, pieces, inter, step);
  for (const Group& node : nodes)
    if (node.size() > 1) star_broadcast(b, node, 0, pieces, step);
}

void build_rail(Builder& b, const std::vector<Group>& nodes, const CollectiveSpec& spec, InterAlgorithm inter) {
  const std::size_t local = nodes.front().size();
  for (const Group& node : nodes)
    if (node.size() != local)
      throw std::invalid_argument(
          "hierarchical (rail) / ring2d: every node needs the same number of ranks (node 0 has " +
          std::to_string(local) + ", another has " + std::to_string(node.size()) + "); use leader mode or ring");
  const auto units =
      split_units(Range{Bytes{}, spec.message}, int(local), spec.channels, spec.chunk, Layout::PieceMajor, b.elem());
  std::uint32_t step = 0;
  if (local > 1)
    for (const Group& node : nodes) step = ring_reduce_scatter(b, node, units, 0);
  std::uint32_t inter_steps = 0;
  for (std::size_t l = 0; l < local; ++l) {
    Group rail;
    for (const Group& node : nodes) rail.push_back(node[l]);
    std::vector<Piece> pieces;
    for (const Unit& u : units)
      if (!u.blocks[l].empty()) pieces.push_back(Piece{u.blocks[l], u.channel});
    inter_steps = std::max(inter_steps, inter_allreduce(b, rail, pieces, inter, step));
  }
  step += inter_steps;
  if (local > 1)
    for (const Group& node : nodes) ring_allgather(b, node, units, step);
}

}  // namespace

void build_hierarchical(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                        Hierarchy hierarchy, InterAlgorithm inter) {
  const std::vector<Group> nodes = nodes_of(topology, ranks, b.schedule().endpoints());
  if (hierarchy == Hierarchy::Leader)
    build_leader(b, nodes, spec, inter);
  else
    build_rail(b, nodes, spec, inter);
}

}  // namespace ringlab::sim::detail
