// Topology: storage and lookups of the cluster model.
#include "ringlab/topology/topology.hpp"

#include <cassert>
#include <stdexcept>

namespace ringlab {

RackId Topology::add_rack(std::string name) {
  assert(!rack_index_.count(name));
  const RackId id = RackId(racks_.size());
  rack_index_.emplace(name, id);
  racks_.push_back(Rack{std::move(name)});
  return id;
}

HostId Topology::add_host(std::string name, RackId rack, std::string template_name, CpuVendor cpu_vendor) {
  assert(!host_index_.count(name));
  assert(rack == kNoRack || std::size_t(rack) < racks_.size());
  const HostId id = HostId(hosts_.size());
  host_index_.emplace(name, id);
  hosts_.push_back(Host{std::move(name), rack, std::move(template_name), cpu_vendor});
  return id;
}

DeviceId Topology::add_device(Device device) {
  assert(!device_index_.count(device.name));
  assert(device.host == kNoHost || std::size_t(device.host) < hosts_.size());
  if (device.host != kNoHost && device.rack == kNoRack) device.rack = hosts_[std::size_t(device.host)].rack;
  const DeviceId id = DeviceId(devices_.size());
  device_index_.emplace(device.name, id);
  devices_.push_back(std::move(device));
  adjacency_.emplace_back();
  return id;
}

LinkId Topology::add_link(Link link) {
  assert(link.a < devices_.size() && link.b < devices_.size() && link.a != link.b);
  assert(link.bandwidth.bits_per_second() > 0);
  const LinkId id = LinkId(links_.size());
  adjacency_[link.a].push_back(Adjacency{id, link.b});
  adjacency_[link.b].push_back(Adjacency{id, link.a});
  links_.push_back(link);
  return id;
}

void Topology::replace_link(LinkId id, Link link) {
  assert(id < links_.size() && link.a == links_[id].a && link.b == links_[id].b);
  assert(link.bandwidth.bits_per_second() > 0);
  links_[id] = link;
}

Link Topology::default_link(DeviceId a, DeviceId b, LinkKind kind, int lanes, Transport transport) {
  const LinkDefaults& d = link_defaults(kind);
  Link link;
  link.a = a;
  link.b = b;
  link.kind = kind;
  link.lanes = lanes > 0 ? lanes : d.default_lanes;
  link.bandwidth = d.per_lane * double(link.lanes);
  link.latency = d.hop_latency;
  const bool network = d.family == LinkFamily::InfiniBand || d.family == LinkFamily::Ethernet;
  if (network && transport == Transport::None) transport = Transport::Rdma;
  if (d.family == LinkFamily::InfiniBand) transport = Transport::Rdma;
  link.transport = network ? transport : Transport::None;
  link.overhead = link.transport == Transport::Tcp || link.transport == Transport::Tcpx ? d.tcp_overhead : d.rdma_overhead;
  return link;
}

DeviceId Topology::device_by_name(std::string_view name) const {
  if (auto id = find_device(name)) return *id;
  throw std::out_of_range("no device named '" + std::string(name) + "'");
}

std::optional<DeviceId> Topology::find_device(std::string_view name) const {
  auto it = device_index_.find(std::string(name));
  if (it == device_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<HostId> Topology::find_host(std::string_view name) const {
  auto it = host_index_.find(std::string(name));
  if (it == host_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<RackId> Topology::find_rack(std::string_view name) const {
  auto it = rack_index_.find(std::string(name));
  if (it == rack_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<DeviceId> Topology::gpus() const {
  std::vector<DeviceId> out;
  for (DeviceId id = 0; id < devices_.size(); ++id)
    if (devices_[id].kind == DeviceKind::Gpu) out.push_back(id);
  return out;
}

std::vector<DeviceId> Topology::host_devices(HostId host) const {
  std::vector<DeviceId> out;
  for (DeviceId id = 0; id < devices_.size(); ++id)
    if (devices_[id].host == host) out.push_back(id);
  return out;
}

std::string Topology::direction_name(DirectionId c) const {
  return devices_[direction_source(c)].name + "->" + devices_[direction_target(c)].name;
}

}  // namespace ringlab
