// GraphML export (export.hpp, write_graphml) with typed <key> declarations, so yEd, Gephi and
// NetworkX read bandwidths, latencies and lane counts as numbers rather than strings.
#include <array>
#include <cstdio>
#include <string>

#include <pugixml.hpp>

#include "ringlab/topology/export.hpp"

namespace ringlab {
namespace {

constexpr int kDoubleDigits = 17;  ///< enough significant digits to read back the same double

/// One <key>: its id, what it is for, its name and GraphML type.
struct Key {
  const char* id;
  const char* domain;  ///< "node" or "edge"
  const char* name;
  const char* type;    ///< boolean, int, long, double or string
};
constexpr std::array<Key, 15> kKeys{{
    {"d_name", "node", "name", "string"},
    {"d_kind", "node", "kind", "string"},
    {"d_gpu_model", "node", "gpu_model", "string"},
    {"d_host", "node", "host", "string"},
    {"d_rack", "node", "rack", "string"},
    {"d_tier", "node", "tier", "int"},
    {"d_reduces", "node", "in_network_reduction", "boolean"},
    {"e_kind", "edge", "kind", "string"},
    {"e_transport", "edge", "transport", "string"},
    {"e_lanes", "edge", "lanes", "int"},
    {"e_bandwidth", "edge", "bandwidth_bps", "double"},
    {"e_latency", "edge", "latency_ps", "long"},
    {"e_overhead", "edge", "overhead_ps", "long"},
    {"e_label", "edge", "label", "string"},
    {"e_link", "edge", "link_id", "int"},
}};

void data(pugi::xml_node parent, const char* key, const std::string& value) {
  pugi::xml_node d = parent.append_child("data");
  d.append_attribute("key") = key;
  d.text() = value.c_str();
}

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", kDoubleDigits, v);
  return buf;
}

}  // namespace

void write_graphml(std::ostream& out, const Topology& t) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = doc.append_child("graphml");
  root.append_attribute("xmlns") = "http://graphml.graphdrawing.org/xmlns";
  root.append_attribute("xmlns:xsi") = "http://www.w3.org/2001/XMLSchema-instance";
  root.append_attribute("xsi:schemaLocation") =
      "http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd";
  for (const Key& k : kKeys) {
    pugi::xml_node key = root.append_child("key");
    key.append_attribute("id") = k.id;
    key.append_attribute("for") = k.domain;
    key.append_attribute("attr.name") = k.name;
    key.append_attribute("attr.type") = k.type;
  }
  pugi::xml_node graph = root.append_child("graph");
  graph.append_attribute("id") = "ringlab";
  graph.append_attribute("edgedefault") = "undirected";
  for (DeviceId id = 0; id < t.device_count(); ++id) {
    const Device& d = t.device(id);
    pugi::xml_node n = graph.append_child("node");
    n.append_attribute("id") = d.name.c_str();  // unique; graph tools show the id as the node's label
    data(n, "d_name", d.name);
    data(n, "d_kind", std::string(to_string(d.kind)));
    data(n, "d_gpu_model", d.kind == DeviceKind::Gpu ? std::string(to_string(d.gpu_model)) : "");
    data(n, "d_host", d.host == kNoHost ? "" : t.host(d.host).name);
    data(n, "d_rack", d.rack == kNoRack ? "" : t.rack(d.rack).name);
    data(n, "d_tier", std::to_string(d.tier));
    data(n, "d_reduces", d.in_network_reduction ? "true" : "false");
  }
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const Link& l = t.links()[id];
    pugi::xml_node e = graph.append_child("edge");
    e.append_attribute("id") = ("e" + std::to_string(id)).c_str();
    e.append_attribute("source") = t.device(l.a).name.c_str();
    e.append_attribute("target") = t.device(l.b).name.c_str();
    data(e, "e_kind", std::string(to_string(l.kind)));
    data(e, "e_transport", std::string(to_string(l.transport)));
    data(e, "e_lanes", std::to_string(l.lanes));
    data(e, "e_bandwidth", exact(l.bandwidth.bits_per_second()));
    data(e, "e_latency", std::to_string(l.latency.picoseconds()));
    data(e, "e_overhead", std::to_string(l.overhead.picoseconds()));
    data(e, "e_label", link_label(l));
    data(e, "e_link", std::to_string(id));
  }
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
}

}  // namespace ringlab
