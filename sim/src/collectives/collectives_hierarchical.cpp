// Two-level collectives: inside each node, then between nodes, then inside each node again.
// Leader mode (TensorFlow HierarchicalCopy) funnels a node's data through one rank: direct reduce
// to / broadcast from the node's leader, leaders talk between nodes (AllReduce, Broadcast, Reduce).
// Rail mode (and ring2d) splits the buffer over a node's local positions so that every rank talks
// between nodes over its own NIC: intra-node ring reduce-scatter / scatter, one inter-node
// collective per local position ("rail"), intra-node ring allgather / gather.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "collectives/collectives_builder.hpp"

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

/// Where the root sits: its node and its position in that node.
struct RootPlace {
  int node = 0;
  int local = 0;
};

RootPlace place_of(const std::vector<Group>& nodes, Endpoint root) {
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (std::size_t l = 0; l < nodes[n].size(); ++l)
      if (nodes[n][l] == root) return RootPlace{int(n), int(l)};
  throw std::logic_error("hierarchical: the root is in no node");
}

/// Rail l: the ranks of local position l, one per node, in node order.
Group rail_of(const std::vector<Group>& nodes, std::size_t l) {
  Group rail;
  for (const Group& node : nodes) rail.push_back(node[l]);
  return rail;
}

/// Block l of every unit, as pieces (the share of rail l).
std::vector<Piece> block_pieces(std::span<const Unit> units, std::size_t l) {
  std::vector<Piece> pieces;
  for (const Unit& u : units)
    if (!u.blocks[l].empty()) pieces.push_back(Piece{u.blocks[l], u.channel});
  return pieces;
}

/// Units whose block i is block members[i] of `u`, for each unit of `units` (re-indexes owner
/// blocks onto a subgroup; for each unit, one derived unit per entry of `groups`).
std::vector<Unit> regroup(std::span<const Unit> units, const std::vector<Group>& groups) {
  std::vector<Unit> out;
  for (const Unit& u : units)
    for (const Group& members : groups) {
      Unit v{u.channel, {}};
      for (Endpoint m : members) v.blocks.push_back(u.blocks[m]);
      out.push_back(std::move(v));
    }
  return out;
}

/// The algorithm between nodes, with the cluster an in-network one reduces on.
struct Inter {
  InterAlgorithm algorithm;
  const Topology& topology;
};

std::uint32_t inter_allreduce(Builder& b, const Group& group, std::span<const Piece> pieces, const Inter& inter,
                              std::uint32_t step) {
  if (group.size() < 2) return 0;
  if (inter.algorithm == InterAlgorithm::InNetwork) {
    SwitchAggregation tree(b, inter.topology, group);
    for (const Piece& p : pieces) tree.aggregate(p.range, p.channel, group, group, step);
    return 2;
  }
  if (inter.algorithm == InterAlgorithm::Tree) return tree_allreduce(b, group, pieces, step);
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

/// Broadcast from group member `root`: a pipelined chain (ring) or the double binary tree.
std::uint32_t inter_broadcast(Builder& b, const Group& group, int root, std::span<const Piece> pieces,
                              const Inter& inter, std::uint32_t step) {
  if (group.size() < 2) return 0;
  if (inter.algorithm == InterAlgorithm::InNetwork) {
    SwitchAggregation tree(b, inter.topology, group);
    const Group from{group[std::size_t(root)]};
    Group to;
    for (std::size_t i = 0; i < group.size(); ++i)
      if (int(i) != root) to.push_back(group[i]);
    for (const Piece& p : pieces) tree.aggregate(p.range, p.channel, from, to, step);
    return 2;
  }
  if (inter.algorithm == InterAlgorithm::Tree) return tree_broadcast(b, group, root, pieces, step);
  return chain_broadcast(b, group, root, pieces, step);
}

std::uint32_t inter_reduce(Builder& b, const Group& group, int root, std::span<const Piece> pieces,
                           const Inter& inter, std::uint32_t step) {
  if (group.size() < 2) return 0;
  if (inter.algorithm == InterAlgorithm::InNetwork) {
    SwitchAggregation tree(b, inter.topology, group);
    const Group to{group[std::size_t(root)]};
    for (const Piece& p : pieces) tree.aggregate(p.range, p.channel, group, to, step);
    return 2;
  }
  if (inter.algorithm == InterAlgorithm::Tree) return tree_reduce(b, group, root, pieces, step);
  return chain_reduce(b, group, root, pieces, step);
}

/// The root sends block l of every unit to member l of its node (l != root's position).
void scatter(Builder& b, const Group& node, int root, std::span<const Unit> units, std::uint32_t step) {
  for (const Unit& u : units)
    for (std::size_t l = 0; l < node.size(); ++l)
      if (int(l) != root && !u.blocks[l].empty())
        b.copy(node[std::size_t(root)], node[l], u.blocks[l], u.channel, step);
}

/// Member l of the node sends block l of every unit to the root (l != root's position).
void gather(Builder& b, const Group& node, int root, std::span<const Unit> units, std::uint32_t step) {
  for (const Unit& u : units)
    for (std::size_t l = 0; l < node.size(); ++l)
      if (int(l) != root && !u.blocks[l].empty())
        b.copy(node[l], node[std::size_t(root)], u.blocks[l], u.channel, step);
}

// ---- leader mode -----------------------------------------------------------------------------

/// The rank that talks between nodes for each node: the root in its own node, else the first rank.
Group leaders_of(const std::vector<Group>& nodes, const RootPlace& root) {
  Group leaders;
  for (const Group& node : nodes) leaders.push_back(node.front());
  leaders[std::size_t(root.node)] = nodes[std::size_t(root.node)][std::size_t(root.local)];
  return leaders;
}

int leader_index(std::size_t node, const RootPlace& root) { return int(node) == root.node ? root.local : 0; }

void leader_allreduce(Builder& b, const std::vector<Group>& nodes, std::span<const Piece> pieces,
                      const Inter& inter) {
  std::uint32_t step = 0;
  for (const Group& node : nodes)
    if (node.size() > 1) step = std::max(step, star_reduce(b, node, 0, pieces, 0));
  Group leaders;
  for (const Group& node : nodes) leaders.push_back(node.front());
  step += inter_allreduce(b, leaders, pieces, inter, step);
  for (const Group& node : nodes)
    if (node.size() > 1) star_broadcast(b, node, 0, pieces, step);
}

void leader_broadcast(Builder& b, const std::vector<Group>& nodes, const RootPlace& root,
                      std::span<const Piece> pieces, const Inter& inter) {
  const std::uint32_t step = inter_broadcast(b, leaders_of(nodes, root), root.node, pieces, inter, 0);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].size() > 1) star_broadcast(b, nodes[n], leader_index(n, root), pieces, step);
}

void leader_reduce(Builder& b, const std::vector<Group>& nodes, const RootPlace& root, std::span<const Piece> pieces,
                   const Inter& inter) {
  std::uint32_t step = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].size() > 1) step = std::max(step, star_reduce(b, nodes[n], leader_index(n, root), pieces, 0));
  inter_reduce(b, leaders_of(nodes, root), root.node, pieces, inter, step);
}

void build_leader(Builder& b, const std::vector<Group>& nodes, const CollectiveSpec& spec, const Inter& inter) {
  const auto pieces = b.pieces(Range{Bytes{}, spec.message}, spec.channels, spec.chunk);
  const RootPlace root = place_of(nodes, Endpoint(spec.root));
  switch (spec.collective) {
    case Collective::AllReduce: leader_allreduce(b, nodes, pieces, inter); return;
    case Collective::Broadcast: leader_broadcast(b, nodes, root, pieces, inter); return;
    case Collective::Reduce: leader_reduce(b, nodes, root, pieces, inter); return;
    case Collective::ReduceScatter:
    case Collective::AllGather: break;
  }
  throw std::logic_error("hierarchical (leader): reduce-scatter or allgather reached the builder");
}

// ---- rail mode -------------------------------------------------------------------------------

/// Rail AllReduce with each node's level on its NVSwitch (NVLS): the switch reduces block l of every
/// member for member l, the rails all-reduce their blocks between nodes, and member l multicasts its
/// block through the switch to the rest of its node. The multicast runs on channels of its own
/// (channel + `channels`), as NCCL's NVLS keeps separate connections for the reduction and the
/// multicast: otherwise a connection's FIFO would hold every chunk's multicast behind every chunk's
/// reduction and the halves would not pipeline.
void rail_allreduce_in_network(Builder& b, const std::vector<Group>& nodes, std::span<const Unit> units,
                               const Inter& inter, int channels) {
  const std::size_t local = nodes.front().size();
  // One aggregation per node and half: each sums into scratch of its own.
  std::vector<SwitchAggregation> reduce, multicast;
  reduce.reserve(nodes.size());
  multicast.reserve(nodes.size());
  for (const Group& node : nodes) {
    reduce.emplace_back(b, inter.topology, node);
    multicast.emplace_back(b, inter.topology, node);
  }
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (const Unit& u : units)
      for (std::size_t l = 0; l < local; ++l)
        reduce[n].aggregate(u.blocks[l], u.channel, nodes[n], Group{nodes[n][l]}, 0);
  std::uint32_t step = 2;
  std::uint32_t inter_steps = 0;
  for (std::size_t l = 0; l < local; ++l)
    inter_steps = std::max(inter_steps, inter_allreduce(b, rail_of(nodes, l), block_pieces(units, l), inter, step));
  step += inter_steps;
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (const Unit& u : units)
      for (std::size_t l = 0; l < local; ++l) {
        Group others;
        for (std::size_t k = 0; k < local; ++k)
          if (k != l) others.push_back(nodes[n][k]);
        multicast[n].aggregate(u.blocks[l], std::uint16_t(u.channel + channels), Group{nodes[n][l]}, others, step);
      }
}

void rail_allreduce(Builder& b, const std::vector<Group>& nodes, std::span<const Unit> units,
                    const Inter& inter) {
  const std::size_t local = nodes.front().size();
  std::uint32_t step = 0;
  if (local > 1)
    for (const Group& node : nodes) step = ring_reduce_scatter(b, node, units, 0);
  std::uint32_t inter_steps = 0;
  for (std::size_t l = 0; l < local; ++l)
    inter_steps = std::max(inter_steps, inter_allreduce(b, rail_of(nodes, l), block_pieces(units, l), inter, step));
  step += inter_steps;
  if (local > 1)
    for (const Group& node : nodes) ring_allgather(b, node, units, step);
}

/// Scatter inside the root's node, broadcast each block along its rail, ring allgather in every
/// node (van de Geijn's scatter-allgather broadcast, one level per dimension).
void rail_broadcast(Builder& b, const std::vector<Group>& nodes, const RootPlace& root, std::span<const Unit> units,
                    const Inter& inter) {
  const std::size_t local = nodes.front().size();
  scatter(b, nodes[std::size_t(root.node)], root.local, units, 0);
  std::uint32_t steps = 0;
  for (std::size_t l = 0; l < local; ++l)
    steps = std::max(steps, inter_broadcast(b, rail_of(nodes, l), root.node, block_pieces(units, l), inter, 1));
  if (local > 1)
    for (const Group& node : nodes) ring_allgather(b, node, units, 1 + steps);
}

/// Ring reduce-scatter in every node, reduce each block along its rail to the root's node, gather
/// the blocks at the root.
void rail_reduce(Builder& b, const std::vector<Group>& nodes, const RootPlace& root, std::span<const Unit> units,
                 const Inter& inter) {
  const std::size_t local = nodes.front().size();
  std::uint32_t step = 0;
  if (local > 1)
    for (const Group& node : nodes) step = ring_reduce_scatter(b, node, units, 0);
  std::uint32_t steps = 0;
  for (std::size_t l = 0; l < local; ++l)
    steps = std::max(steps, inter_reduce(b, rail_of(nodes, l), root.node, block_pieces(units, l), inter, step));
  gather(b, nodes[std::size_t(root.node)], root.local, units, step + steps);
}

std::vector<Group> rails_of(const std::vector<Group>& nodes) {
  std::vector<Group> rails;
  for (std::size_t l = 0; l < nodes.front().size(); ++l) rails.push_back(rail_of(nodes, l));
  return rails;
}

// ReduceScatter / AllGather: rank r's final block is block r of `owner_units`. Node phases regroup
// the blocks by local position (member l of a node handles column l: the blocks of every node's
// member l, one range per node, so n messages per ring step), rail phases by node.

/// The column units of `owner_units` for node phases, rows (nodes) in the order first, first-1,
/// ... (mod n): the order in which the rail ring needs (reduce-scatter) or delivers (allgather)
/// them, so that a connection's FIFO never holds a ready row behind one still waiting.
std::vector<Unit> columns(std::span<const Unit> owner_units, const std::vector<Group>& nodes, int first) {
  const int n = int(nodes.size());
  std::vector<Group> rows;
  for (int k = 0; k < n; ++k) rows.push_back(nodes[std::size_t(((first - k) % n + n) % n)]);
  return regroup(owner_units, rows);
}

/// Ring reduce-scatter of the columns in every node, then of each rank's own block along its rail
/// (rail member i sends row i-1 first and reduces into its own row last).
void rail_reduce_scatter(Builder& b, const std::vector<Group>& nodes, std::span<const Unit> owner_units) {
  std::uint32_t step = 0;
  if (nodes.front().size() > 1)
    for (std::size_t i = 0; i < nodes.size(); ++i)
      step = ring_reduce_scatter(b, nodes[i], columns(owner_units, nodes, int(i) - 1), 0);
  if (nodes.size() < 2) return;
  for (const Group& rail : rails_of(nodes)) ring_reduce_scatter(b, rail, regroup(owner_units, {rail}), step);
}

/// The mirror: ring allgather of each rank's block along its rail, then of the columns in every
/// node (own row first, then rows i-1, i-2, ... as the rail ring delivers them).
void rail_allgather(Builder& b, const std::vector<Group>& nodes, std::span<const Unit> owner_units) {
  std::uint32_t step = 0;
  if (nodes.size() > 1)
    for (const Group& rail : rails_of(nodes)) step = ring_allgather(b, rail, regroup(owner_units, {rail}), 0);
  if (nodes.front().size() < 2) return;
  for (std::size_t i = 0; i < nodes.size(); ++i) ring_allgather(b, nodes[i], columns(owner_units, nodes, int(i)), step);
}

void check_equal_nodes(const std::vector<Group>& nodes) {
  const std::size_t local = nodes.front().size();
  for (const Group& node : nodes)
    if (node.size() != local)
      throw std::invalid_argument(
          "hierarchical (rail) / ring2d: every node needs the same number of ranks (node 0 has " +
          std::to_string(local) + ", another has " + std::to_string(node.size()) + "); use leader mode or ring");
}

void build_rail(Builder& b, const std::vector<Group>& nodes, const CollectiveSpec& spec, const Inter& inter) {
  check_equal_nodes(nodes);
  const Range whole{Bytes{}, spec.message};
  const int local = int(nodes.front().size());
  const RootPlace root = place_of(nodes, Endpoint(spec.root));
  const auto by_local = [&] {
    return b.units(whole, local, spec.channels, spec.chunk, Layout::PieceMajor);
  };
  switch (spec.collective) {
    case Collective::AllReduce:
      if (spec.intra_in_network)
        rail_allreduce_in_network(b, nodes, by_local(), inter, spec.channels);
      else
        rail_allreduce(b, nodes, by_local(), inter);
      return;
    case Collective::Broadcast: rail_broadcast(b, nodes, root, by_local(), inter); return;
    case Collective::Reduce: rail_reduce(b, nodes, root, by_local(), inter); return;
    case Collective::ReduceScatter:
    case Collective::AllGather: break;
  }
  const int p = local * int(nodes.size());
  const auto owner_units = b.units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor);
  if (spec.collective == Collective::ReduceScatter)
    rail_reduce_scatter(b, nodes, owner_units);
  else
    rail_allgather(b, nodes, owner_units);
}

}  // namespace

void build_hierarchical(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec,
                        Hierarchy hierarchy, InterAlgorithm algorithm) {
  const std::vector<Group> nodes = nodes_of(topology, ranks, b.sink().endpoints());
  const Inter inter{algorithm, topology};
  if (hierarchy == Hierarchy::Leader)
    build_leader(b, nodes, spec, inter);
  else
    build_rail(b, nodes, spec, inter);
}

}  // namespace ringlab::sim::detail
