// Export of a cluster graph (export.hpp): the scenario file's explicit cluster form through
// nlohmann::json. DOT is in export_dot.cpp, GraphML in export_graphml.cpp.
#include "ringlab/topology/export.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "ringlab/topology/scenario.hpp"

namespace ringlab {
namespace {

constexpr int kBandwidthDigits = 12;  ///< significant digits of a written bandwidth (exact to ~1e-12)
constexpr int kJsonIndent = 2;
constexpr std::int64_t kPsPerNs = 1000;
constexpr std::int64_t kPsPerUs = 1000 * kPsPerNs;
constexpr std::int64_t kPsPerMs = 1000 * kPsPerUs;

/// "400Gbps", "126.030769231Gbps": Gbps with kBandwidthDigits significant digits.
std::string bandwidth_text(Bandwidth b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*gGbps", kBandwidthDigits, b.gbps());
  return buf;
}

/// Exact: the largest of ms, us, ns, ps that divides the value; "0" for zero.
std::string duration_text(Duration d) {
  const std::int64_t ps = d.picoseconds();
  if (ps == 0) return "0";
  if (ps % kPsPerMs == 0) return std::to_string(ps / kPsPerMs) + "ms";
  if (ps % kPsPerUs == 0) return std::to_string(ps / kPsPerUs) + "us";
  if (ps % kPsPerNs == 0) return std::to_string(ps / kPsPerNs) + "ns";
  return std::to_string(ps) + "ps";
}

bool is_network(LinkKind k) {
  const LinkFamily f = link_family(k);
  return f == LinkFamily::InfiniBand || f == LinkFamily::Ethernet;
}

bool can_reduce(DeviceKind k) { return k == DeviceKind::NvSwitch || is_fabric_switch(k); }

}  // namespace

nlohmann::ordered_json cluster_json(const Topology& t) {
  using Json = nlohmann::ordered_json;
  Json racks = Json::array(), hosts = Json::array(), devices = Json::array(), links = Json::array();
  for (const Rack& r : t.racks()) racks.push_back(Json{{"name", r.name}});
  for (const Host& h : t.hosts()) {
    Json j{{"name", h.name}};
    if (h.rack != kNoRack) j["rack"] = t.rack(h.rack).name;
    if (h.cpu_vendor != CpuVendor::Intel) j["cpu_vendor"] = to_string(h.cpu_vendor);
    hosts.push_back(std::move(j));
  }
  for (const Device& d : t.devices()) {
    Json j{{"name", d.name}, {"kind", to_string(d.kind)}};
    if (d.host != kNoHost) j["host"] = t.host(d.host).name;
    if (d.host == kNoHost && d.rack != kNoRack && is_fabric_switch(d.kind)) j["rack"] = t.rack(d.rack).name;
    if (d.kind == DeviceKind::Gpu) j["gpu_model"] = to_string(d.gpu_model);
    if (d.in_network_reduction && can_reduce(d.kind)) j["in_network_reduction"] = true;
    devices.push_back(std::move(j));
  }
  for (const Link& l : t.links()) {
    Json j{{"a", t.device(l.a).name}, {"b", t.device(l.b).name}, {"kind", to_string(l.kind)}, {"lanes", l.lanes}};
    if (is_network(l.kind)) j["transport"] = to_string(l.transport);
    j["bandwidth"] = bandwidth_text(l.bandwidth);
    j["latency"] = duration_text(l.latency);
    j["overhead"] = duration_text(l.overhead);
    links.push_back(std::move(j));
  }
  return Json{{"racks", racks}, {"hosts", hosts}, {"devices", devices}, {"links", links}};
}

void write_json(std::ostream& out, const Topology& topology) {
  const nlohmann::ordered_json doc{{"ringlab", kScenarioFormatVersion}, {"cluster", cluster_json(topology)}};
  out << doc.dump(kJsonIndent) << '\n';
}

void write_scenario_json(std::ostream& out, const Scenario& scenario) {
  using Json = nlohmann::ordered_json;
  Json doc{{"ringlab", kScenarioFormatVersion}};
  if (!scenario.name.empty()) doc["name"] = scenario.name;
  if (!scenario.description.empty()) doc["description"] = scenario.description;
  doc["cluster"] = cluster_json(scenario.cluster);
  const std::pair<const char*, const nlohmann::json*> sections[] = {{"workload", &scenario.workload},
                                                                    {"strategy", &scenario.strategy},
                                                                    {"train", &scenario.train},
                                                                    {"simulate", &scenario.simulate},
                                                                    {"nccl", &scenario.nccl},
                                                                    {"layout", &scenario.layout}};
  for (const auto& [key, section] : sections)
    if (!section->empty()) doc[key] = Json::parse(section->dump());  // keys in the sorted order they were kept in
  out << doc.dump(kJsonIndent) << '\n';
}

}  // namespace ringlab
