// Topology: the cluster model. Devices (GPUs, CPUs, PCIe switches, NVSwitches, NICs, fabric switches)
// joined by full-duplex links, grouped into hosts and racks.
//
// Ids are dense indices in insertion order, so per-device and per-link data elsewhere live in plain
// vectors. A full-duplex link has two *directions*: direction 2*link is a->b and 2*link+1 is b->a;
// the simulator shares bandwidth per direction ("channel" means one of NCCL's parallel rings, in
// sim/). The graph structure is handed to Boost.Graph algorithms (routing, connectivity, max flow)
// inside the library; no Boost type appears in this header.
//
// Building: add_rack / add_host / add_device / add_link. These assert preconditions that loaders
// have already validated (names unique, ends exist); user input is checked in scenario.cpp, which
// reports InputError.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ringlab/topology/kinds.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab {

using DeviceId = std::uint32_t;
using LinkId = std::uint32_t;
using DirectionId = std::uint32_t;  ///< one direction of a link: 2*link (a->b) or 2*link+1 (b->a)
using HostId = std::int32_t;
using RackId = std::int32_t;
inline constexpr HostId kNoHost = -1;
inline constexpr RackId kNoRack = -1;

struct Device {
  std::string name;                 ///< unique, e.g. "node3/gpu5", "leaf0"
  DeviceKind kind = DeviceKind::Gpu;
  HostId host = kNoHost;            ///< owning host for host-internal devices
  RackId rack = kNoRack;            ///< rack of the host, or of a ToR switch
  int local_index = -1;             ///< index among same-kind devices of its host (gpu3 -> 3)
  GpuModel gpu_model = GpuModel::Generic;  ///< GPUs only
  bool in_network_reduction = false;       ///< switch or NVSwitch can reduce (SHARP / NVLS)
  int tier = 0;                     ///< fabric tier for switches: leaf 1, spine 2, core 3
};

struct Link {
  DeviceId a = 0;
  DeviceId b = 0;
  LinkKind kind = LinkKind::Custom;
  int lanes = 1;                    ///< NVLink links bonded, PCIe width, or ports bonded
  Transport transport = Transport::None;
  Bandwidth bandwidth;              ///< per direction
  Duration latency;                 ///< added once per traversal
  Duration overhead;                ///< per-message software overhead for messages entering here
};

struct Host {
  std::string name;                 ///< e.g. "node3"
  RackId rack = kNoRack;
  std::string template_name;        ///< node template it was generated from, or "" for explicit
  CpuVendor cpu_vendor = CpuVendor::Intel;  ///< its CPUs' vendor (ringlab's default CPU is Intel's)
};

struct Rack {
  std::string name;
};

/// One neighbour of a device: the link and the device at its other end.
struct Adjacency {
  LinkId link;
  DeviceId peer;
};

class Topology {
 public:
  RackId add_rack(std::string name);
  HostId add_host(std::string name, RackId rack = kNoRack, std::string template_name = {},
                  CpuVendor cpu_vendor = CpuVendor::Intel);
  void set_cpu_vendor(HostId host, CpuVendor vendor) { hosts_[host].cpu_vendor = vendor; }
  /// Precondition: the name is unique and host/rack ids exist.
  DeviceId add_device(Device device);
  /// Precondition: both ends exist and differ; bandwidth > 0.
  LinkId add_link(Link link);
  /// Replaces link `id` (its kind, lanes, bandwidth, ...). Precondition: `link` joins the same two
  /// devices, in the same order; bandwidth > 0.
  void replace_link(LinkId id, Link link);

  /// Link built from the kind's defaults: bandwidth = per_lane * lanes, the default hop latency and
  /// the overhead of its transport (Ethernet defaults to RDMA unless Transport::Tcp is given).
  static Link default_link(DeviceId a, DeviceId b, LinkKind kind, int lanes = 0,
                           Transport transport = Transport::None);

  std::size_t device_count() const { return devices_.size(); }
  std::size_t link_count() const { return links_.size(); }
  std::size_t direction_count() const { return links_.size() * 2; }
  std::size_t host_count() const { return hosts_.size(); }
  std::size_t rack_count() const { return racks_.size(); }

  const Device& device(DeviceId id) const { return devices_[id]; }
  const Link& link(LinkId id) const { return links_[id]; }
  const Host& host(HostId id) const { return hosts_[std::size_t(id)]; }
  const Rack& rack(RackId id) const { return racks_[std::size_t(id)]; }
  std::span<const Device> devices() const { return devices_; }
  std::span<const Link> links() const { return links_; }
  std::span<const Host> hosts() const { return hosts_; }
  std::span<const Rack> racks() const { return racks_; }
  std::span<const Adjacency> neighbors(DeviceId id) const { return adjacency_[id]; }

  /// Lookups by name: *_by_name throws std::out_of_range on a miss, find_* returns nullopt.
  DeviceId device_by_name(std::string_view name) const;
  std::optional<DeviceId> find_device(std::string_view name) const;
  std::optional<HostId> find_host(std::string_view name) const;
  std::optional<RackId> find_rack(std::string_view name) const;

  /// GPUs in insertion order (host by host, local index ascending for generated clusters). This is
  /// the default rank order.
  std::vector<DeviceId> gpus() const;
  /// Devices of one host, in insertion order.
  std::vector<DeviceId> host_devices(HostId host) const;

  /// Directions of a link, and the direction that leaves `from` on it. Precondition: from is an end.
  static DirectionId direction(LinkId link, bool reverse) { return link * 2 + (reverse ? 1 : 0); }
  DirectionId direction_from(LinkId link, DeviceId from) const {
    return direction(link, links_[link].a != from);
  }
  static LinkId direction_link(DirectionId c) { return c / 2; }
  DeviceId direction_source(DirectionId c) const { return c % 2 ? links_[c / 2].b : links_[c / 2].a; }
  DeviceId direction_target(DirectionId c) const { return c % 2 ? links_[c / 2].a : links_[c / 2].b; }
  /// "node0/gpu0->node0/nvswitch0"
  std::string direction_name(DirectionId c) const;

 private:
  std::vector<Device> devices_;
  std::vector<Link> links_;
  std::vector<Host> hosts_;
  std::vector<Rack> racks_;
  std::vector<std::vector<Adjacency>> adjacency_;
  std::unordered_map<std::string, DeviceId> device_index_;
  std::unordered_map<std::string, HostId> host_index_;
  std::unordered_map<std::string, RackId> rack_index_;
};

}  // namespace ringlab
