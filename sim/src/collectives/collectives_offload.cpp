// Collectives that reduce outside the ranks: parameter servers (CPU hosts holding gradient shards)
// and in-network reduction (a SHARP switch or an NVLS NVSwitch), plus how their extra participants
// are found in the topology.
#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>

#include "collectives/collectives_builder.hpp"

namespace ringlab::sim {
namespace {

constexpr int kUnreached = std::numeric_limits<int>::max();

/// Hop counts from `src` without forwarding through GPUs or through another host's internals
/// (the same rules the Router follows).
std::vector<int> hop_counts(const Topology& topology, DeviceId src) {
  std::vector<int> dist(topology.device_count(), kUnreached);
  const HostId home = topology.device(src).host;
  dist[src] = 0;
  std::deque<DeviceId> queue{src};
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    if (at != src && topology.device(at).kind == DeviceKind::Gpu) continue;
    for (const Adjacency& adj : topology.neighbors(at)) {
      const Device& peer = topology.device(adj.peer);
      if (dist[adj.peer] != kUnreached) continue;
      // Another host's internals are not crossed (devices outside every host, such as a multi-node
      // NVLink switch, are fabric); its NIC is reached, not crossed.
      const bool foreign = is_host_internal(peer.kind) && peer.host != kNoHost && peer.host != home;
      if (foreign && peer.kind != DeviceKind::Nic) continue;
      dist[adj.peer] = dist[at] + 1;
      if (foreign) continue;
      queue.push_back(adj.peer);
    }
  }
  return dist;
}

}  // namespace

std::optional<DeviceId> find_reducing_switch(const Topology& topology, std::span<const DeviceId> ranks) {
  std::vector<std::vector<int>> dist;
  for (DeviceId r : ranks) dist.push_back(hop_counts(topology, r));
  std::optional<DeviceId> best;
  std::pair<long, long> best_cost{kUnreached, kUnreached};
  for (DeviceId d = 0; d < topology.device_count(); ++d) {
    if (!topology.device(d).in_network_reduction) continue;
    long worst = 0;
    long total = 0;
    for (const auto& from : dist) {
      worst = std::max<long>(worst, from[d]);
      total += from[d];
    }
    if (worst == kUnreached) continue;
    if (!best || std::pair{worst, total} < best_cost) {
      best = d;
      best_cost = {worst, total};
    }
  }
  return best;
}

std::vector<DeviceId> default_parameter_servers(const Topology& topology, std::span<const DeviceId> ranks) {
  std::vector<DeviceId> servers;
  std::vector<HostId> seen;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const HostId host = topology.device(ranks[r]).host;
    if (host == kNoHost)
      throw std::invalid_argument("parameter_server: rank " + std::to_string(r) +
                                  " is on no host, so there is no default server; list the servers explicitly");
    if (std::find(seen.begin(), seen.end(), host) != seen.end()) continue;
    seen.push_back(host);
    std::optional<DeviceId> cpu;
    for (DeviceId d : topology.host_devices(host)) {
      const Device& dev = topology.device(d);
      if (dev.kind != DeviceKind::Cpu) continue;
      if (!cpu || dev.local_index < topology.device(*cpu).local_index) cpu = d;
    }
    if (!cpu)
      throw std::invalid_argument("parameter_server: host '" + topology.host(host).name +
                                  "' has no CPU device to act as the default server; list the servers explicitly");
    servers.push_back(*cpu);
  }
  return servers;
}

namespace detail {

void build_parameter_server(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec) {
  std::vector<DeviceId> devices = spec.servers;
  if (devices.empty()) {
    std::vector<DeviceId> rank_devices;
    for (Endpoint r : ranks) rank_devices.push_back(b.schedule().endpoints()[r].device);
    devices = default_parameter_servers(topology, rank_devices);
  }
  Group servers;
  for (DeviceId d : devices) {
    if (d >= topology.device_count())
      throw std::invalid_argument("parameter_server: server device id " + std::to_string(d) +
                                  " is not in the topology");
    servers.push_back(b.schedule().add_endpoint(d, EndpointRole::ParameterServer));
  }
  const int s_count = int(servers.size());
  const auto units =
      split_units(Range{Bytes{}, spec.message}, s_count, spec.channels, spec.chunk, Layout::OwnerMajor, b.elem());
  for (const Unit& u : units)
    for (int s = 0; s < s_count; ++s) {
      const Range& shard = u.blocks[std::size_t(s)];
      if (shard.empty()) continue;
      // Push: the first gradient lands as is, the others are reduced into it (p-1 Reduce ops).
      b.copy(ranks.front(), servers[std::size_t(s)], shard, u.channel, 0);
      for (std::size_t w = 1; w < ranks.size(); ++w) b.reduce(ranks[w], servers[std::size_t(s)], shard, u.channel, 0);
      // Pull.
      for (Endpoint w : ranks) b.copy(servers[std::size_t(s)], w, shard, u.channel, 1);
    }
}

void build_in_network(Builder& b, const Topology& topology, const Group& ranks, const CollectiveSpec& spec) {
  std::vector<DeviceId> rank_devices;
  for (Endpoint r : ranks) rank_devices.push_back(b.schedule().endpoints()[r].device);
  const std::optional<DeviceId> device = find_reducing_switch(topology, rank_devices);
  if (!device)
    throw std::invalid_argument(
        "in_network: no switch with in_network_reduction (SHARP/NVLS) is reachable from every rank");
  const Endpoint sw = b.schedule().add_endpoint(*device, EndpointRole::Switch);
  const int p = int(ranks.size());
  // One aggregation: `senders` push r to the switch, which (after all arrived, reducing at line
  // rate) sends the result to `receivers`.
  auto aggregate = [&](Range r, std::uint16_t ch, std::span<const Endpoint> senders,
                       std::span<const Endpoint> receivers) {
    if (r.empty()) return;
    std::vector<OpId> arrived;
    // The switch adds every arrival into its (zeroed) scratch: recv-reduce, no Reduce op.
    for (Endpoint s : senders) arrived.push_back(b.send(s, sw, r, {}, ch, 0, Buffer::Scratch, RecvMode::Reduce));
    for (Endpoint d : receivers)
      b.wrote_dense(d, r, b.send(sw, d, r, arrived, ch, 1, Buffer::Data, RecvMode::Overwrite));
  };
  auto others = [&](int skip) {
    Group g;
    for (int i = 0; i < p; ++i)
      if (i != skip) g.push_back(ranks[std::size_t(i)]);
    return g;
  };
  const Range whole{Bytes{}, spec.message};
  const Group root_only{ranks[std::size_t(spec.root)]};
  switch (spec.collective) {
    case Collective::AllReduce:
      for (const Piece& piece : split_pieces(whole, spec.channels, spec.chunk, b.elem()))
        aggregate(piece.range, piece.channel, ranks, ranks);
      return;
    case Collective::Reduce:
      for (const Piece& piece : split_pieces(whole, spec.channels, spec.chunk, b.elem()))
        aggregate(piece.range, piece.channel, ranks, root_only);
      return;
    case Collective::Broadcast:
      for (const Piece& piece : split_pieces(whole, spec.channels, spec.chunk, b.elem()))
        aggregate(piece.range, piece.channel, root_only, others(spec.root));
      return;
    case Collective::ReduceScatter:
      for (const Unit& u : split_units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor, b.elem()))
        for (int o = 0; o < p; ++o) aggregate(u.blocks[std::size_t(o)], u.channel, ranks, Group{ranks[std::size_t(o)]});
      return;
    case Collective::AllGather:
      for (const Unit& u : split_units(whole, p, spec.channels, spec.chunk, Layout::OwnerMajor, b.elem()))
        for (int o = 0; o < p; ++o)
          aggregate(u.blocks[std::size_t(o)], u.channel, Group{ranks[std::size_t(o)]}, others(o));
      return;
  }
}

}  // namespace detail
}  // namespace ringlab::sim
