// Private Boost.Graph views of a Topology, shared by routing.cpp and metrics.cpp.
//
// The public headers never name a Boost type (STYLE.md §3); these helpers build compact
// compressed_sparse_row_graph copies of (parts of) the cluster graph and run breadth-first searches on
// them. Vertex i of a sub-graph is the i-th device of the vertex list the caller passed in.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "ringlab/topology/topology.hpp"

namespace ringlab::detail {

/// Directed CSR graph with both directions of every undirected edge; vertices are dense indices.
using CsrGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                    boost::no_property, std::uint32_t, std::uint32_t>;

/// Hop distance of a vertex that a search did not reach.
inline constexpr std::int32_t kNoDistance = std::numeric_limits<std::int32_t>::max() / 4;

/// Zone of a device that belongs to no zone: a fabric device.
inline constexpr std::int32_t kFabricZone = -1;

/// The routing model's partition of a cluster (see routing.cpp): each host is a zone, each GPU outside a
/// host is a zone of its own, and every other device outside a host is a fabric device.
struct Zones {
  std::vector<std::int32_t> zone_of;        ///< per device: zone id (hosts first), or kFabricZone
  std::vector<std::int32_t> index_in_zone;  ///< per device: index within its zone, or its fabric index
  std::vector<std::int32_t> fabric_index;   ///< per device: fabric vertex number, or -1
  std::vector<std::vector<DeviceId>> members;  ///< per zone, in device id order
  std::uint32_t fabric_count = 0;

  explicit Zones(const Topology& t) {
    const std::size_t n = t.device_count();
    zone_of.assign(n, kFabricZone);
    index_in_zone.assign(n, -1);
    fabric_index.assign(n, -1);
    members.resize(t.host_count());
    for (DeviceId d = 0; d < n; ++d) {
      const Device& device = t.device(d);
      std::int32_t zone = kFabricZone;
      if (device.host != kNoHost) {
        zone = device.host;
      } else if (device.kind == DeviceKind::Gpu) {
        zone = std::int32_t(members.size());
        members.emplace_back();
      }
      zone_of[d] = zone;
      if (zone == kFabricZone) {
        fabric_index[d] = std::int32_t(fabric_count);
        index_in_zone[d] = std::int32_t(fabric_count++);
      } else {
        index_in_zone[d] = std::int32_t(members[std::size_t(zone)].size());
        members[std::size_t(zone)].push_back(d);
      }
    }
  }
  bool is_fabric(DeviceId d) const { return zone_of[d] == kFabricZone; }
  std::size_t local(DeviceId d) const { return std::size_t(index_in_zone[d]); }
};

/// Builds the sub-graph induced by the devices with index[d] >= 0 (index[d] is d's vertex number);
/// `vertex_count` is the number of such devices. Links with an end outside the sub-graph are left out.
inline CsrGraph induced_graph(const Topology& topology, const std::vector<std::int32_t>& index,
                              std::uint32_t vertex_count) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (const Link& link : topology.links()) {
    const std::int32_t a = index[link.a];
    const std::int32_t b = index[link.b];
    if (a < 0 || b < 0) continue;
    edges.emplace_back(std::uint32_t(a), std::uint32_t(b));
    edges.emplace_back(std::uint32_t(b), std::uint32_t(a));
  }
  return CsrGraph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), vertex_count);
}

/// Hop distances from `source` to every vertex of `graph` (kNoDistance where unreachable).
inline std::vector<std::int32_t> bfs_distances(const CsrGraph& graph, std::uint32_t source) {
  std::vector<std::int32_t> distance(boost::num_vertices(graph), kNoDistance);
  distance[source] = 0;
  auto distance_map = boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, graph));
  boost::breadth_first_search(
      graph, boost::vertex(source, graph),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance_map, boost::on_tree_edge()))));
  return distance;
}

}  // namespace ringlab::detail
