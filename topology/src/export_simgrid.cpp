// SimGrid platform export (export.hpp): every device a host, every link a SPLITDUPLEX link, and the
// routes given by the caller written out hop by hop, so SimGrid runs on exactly ringlab's paths.
// Written with pugixml; numbers are exact unit strings so SimGrid reads back the values ringlab uses.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include <pugixml.hpp>

#include "ringlab/topology/export.hpp"

namespace ringlab {
namespace {

constexpr double kBitsPerGbit = 1e9;
constexpr std::int64_t kPsPerNs = 1000;
constexpr std::int64_t kPsPerUs = 1000 * kPsPerNs;
constexpr std::int64_t kPsPerMs = 1000 * kPsPerUs;
constexpr std::int64_t kPsPerS = 1000 * kPsPerMs;
/// Speed of hosts that never compute in ringlab's model (everything but GPUs); SimGrid needs > 0.
constexpr const char* kIdleSpeed = "1f";

/// "400Gbps" for whole gigabits, otherwise the exact bit rate, "504123076923.07690bps".
std::string bandwidth_text(Bandwidth b) {
  const double bps = b.bits_per_second();
  char buf[64];
  if (std::fmod(bps, kBitsPerGbit) == 0.0)
    std::snprintf(buf, sizeof buf, "%.0fGbps", bps / kBitsPerGbit);
  else
    std::snprintf(buf, sizeof buf, "%.17gbps", bps);
  return buf;
}

/// Exact, with the largest of s, ms, us, ns, ps that divides the value ("0s" for zero).
std::string duration_text(Duration d) {
  const std::int64_t ps = d.picoseconds();
  if (ps == 0) return "0s";
  for (const auto& [unit, name] : {std::pair{kPsPerS, "s"}, std::pair{kPsPerMs, "ms"}, std::pair{kPsPerUs, "us"},
                                   std::pair{kPsPerNs, "ns"}})
    if (ps % unit == 0) return std::to_string(ps / unit) + name;
  return std::to_string(ps) + "ps";
}

std::string speed_text(const Device& device) {
  if (device.kind != DeviceKind::Gpu) return kIdleSpeed;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17gf", gpu_spec(device.gpu_model).hbm.bytes_per_second());
  return buf;
}

bool can_be_endpoint(const Device& d) {
  return d.kind == DeviceKind::Gpu || d.kind == DeviceKind::Cpu || d.in_network_reduction;
}

void add_prop(pugi::xml_node parent, const char* id, const std::string& value) {
  pugi::xml_node prop = parent.append_child("prop");
  prop.append_attribute("id") = id;
  prop.append_attribute("value") = value.c_str();
}

}  // namespace

std::vector<std::string> simgrid_link_names(const Topology& topology) {
  std::vector<std::string> names;
  names.reserve(topology.link_count());
  std::map<std::pair<DeviceId, DeviceId>, int> seen;
  for (LinkId id = 0; id < topology.link_count(); ++id) {
    const Link& l = topology.link(id);
    std::string name = topology.device(l.a).name + "--" + topology.device(l.b).name;
    if (seen[std::minmax(l.a, l.b)]++ > 0) name += "#" + std::to_string(id);
    names.push_back(std::move(name));
  }
  return names;
}

std::vector<SimgridRoute> simgrid_endpoint_routes(const Topology& topology, const Router& router) {
  std::vector<DeviceId> endpoints;
  for (DeviceId d = 0; d < topology.device_count(); ++d)
    if (can_be_endpoint(topology.device(d))) endpoints.push_back(d);
  std::vector<SimgridRoute> routes;
  for (DeviceId src : endpoints)
    for (DeviceId dst : endpoints) {
      if (src == dst || !router.hops(src, dst)) continue;
      routes.push_back(SimgridRoute{src, dst, router.route(src, dst, 0).directions});
    }
  return routes;
}

void write_simgrid(std::ostream& out, const Topology& topology, std::span<const SimgridRoute> routes) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  doc.append_child(pugi::node_doctype).set_value("platform SYSTEM \"https://simgrid.org/simgrid.dtd\"");
  doc.append_child(pugi::node_comment)
      .set_value(" ringlab cluster: hosts = devices, SPLITDUPLEX links (UP = a->b), explicit routes ");
  pugi::xml_node platform = doc.append_child("platform");
  platform.append_attribute("version") = "4.1";
  pugi::xml_node zone = platform.append_child("zone");
  zone.append_attribute("id") = "ringlab";
  zone.append_attribute("routing") = "Full";

  for (const Device& d : topology.devices()) {
    pugi::xml_node host = zone.append_child("host");
    host.append_attribute("id") = d.name.c_str();
    host.append_attribute("speed") = speed_text(d).c_str();
    add_prop(host, "kind", std::string(to_string(d.kind)));
    if (d.kind == DeviceKind::Gpu) add_prop(host, "gpu_model", std::string(to_string(d.gpu_model)));
  }
  const std::vector<std::string> names = simgrid_link_names(topology);
  for (LinkId id = 0; id < topology.link_count(); ++id) {
    const Link& l = topology.link(id);
    pugi::xml_node link = zone.append_child("link");
    link.append_attribute("id") = names[id].c_str();
    link.append_attribute("bandwidth") = bandwidth_text(l.bandwidth).c_str();
    link.append_attribute("latency") = duration_text(l.latency).c_str();
    link.append_attribute("sharing_policy") = "SPLITDUPLEX";
    add_prop(link, "kind", std::string(to_string(l.kind)));
    add_prop(link, "overhead", duration_text(l.overhead));
  }
  for (const SimgridRoute& r : routes) {
    pugi::xml_node route = zone.append_child("route");
    route.append_attribute("src") = topology.device(r.src).name.c_str();
    route.append_attribute("dst") = topology.device(r.dst).name.c_str();
    route.append_attribute("symmetrical") = "NO";
    for (DirectionId c : r.directions) {
      pugi::xml_node hop = route.append_child("link_ctn");
      hop.append_attribute("id") = names[Topology::direction_link(c)].c_str();
      hop.append_attribute("direction") = c % 2 == 0 ? "UP" : "DOWN";
    }
  }
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
}

}  // namespace ringlab
