// `ringlab topo describe`, `ringlab topo export` and `ringlab topo import`: summarise, write out, or
// build a scenario's cluster from the descriptions a real cluster has (import_command.cpp).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "names.hpp"
#include "output.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/metrics.hpp"
#include "ringlab/topology/routing.hpp"
#include "ringlab/topology/suggest.hpp"

namespace ringlab::cli {
namespace {

struct TopoOptions {
  std::string scenario;
  std::string format = "dot";           ///< export
  std::string describe_format = "text";  ///< describe
  std::string output;
  std::string host;  ///< export -f nccl-xml: the host to write
  std::string detail = "auto";  ///< export -f dot: auto, full or hosts
};

DotDetail dot_detail(const std::string& name) {
  if (name == "full") return DotDetail::Full;
  if (name == "hosts") return DotDetail::Hosts;
  return DotDetail::Auto;
}

// The host `name`, or the first host with a GPU when `name` is empty.
HostId export_host(const Topology& t, const std::string& name) {
  if (!name.empty()) {
    if (auto h = t.find_host(name)) return *h;
    std::vector<std::string> hosts;
    for (const Host& h : t.hosts()) hosts.push_back(h.name);
    const auto near = nearest_name(name, hosts);
    throw InputError("", "--host",
                     "no host named \"" + name + "\" in the scenario" + (near ? " (did you mean '" + *near + "'?)" : ""));
  }
  for (DeviceId g : t.gpus())
    if (t.device(g).host != kNoHost) return t.device(g).host;
  throw InputError("", "--host", "the scenario has no host with a GPU: expected --host NAME");
}

void run_describe(const TopoOptions& o) {
  const Scenario scenario = load_scenario_or_default(o.scenario);
  const Router router(scenario.cluster);
  const TopologySummary summary = summarize(scenario.cluster, router);
  const std::string name = scenario.name.empty() ? scenario.file : scenario.name;
  write_output(o.output, [&](std::ostream& out) {
    if (o.describe_format == "json") {
      out << summary_json(summary, name).dump(2) << '\n';
      return;
    }
    out << "scenario: " << name << '\n';
    print_summary(out, scenario.cluster, summary);
  });
}

void run_export(const TopoOptions& o) {
  const Scenario scenario = load_scenario_or_default(o.scenario);
  const DotDetail detail = dot_detail(o.detail);
  if (o.format == "dot" && detail == DotDetail::Auto && dot_collapses_hosts(scenario.cluster, detail))
    std::cerr << "ringlab: note: " << scenario.cluster.hosts().size() << " hosts, " << scenario.cluster.gpus().size()
              << " GPUs: each host drawn as one box (more than " << kDotMaxFullHosts << " hosts or " << kDotMaxFullGpus
              << " GPUs); --detail full draws every device\n";
  write_output(o.output, [&](std::ostream& out) {
    if (o.format == "dot") write_dot(out, scenario.cluster, detail);
    else if (o.format == "graphml") write_graphml(out, scenario.cluster);
    else if (o.format == "nccl-xml") write_nccl_xml(out, scenario.cluster, export_host(scenario.cluster, o.host));
    else if (o.format == "simgrid")
      write_simgrid(out, scenario.cluster, simgrid_endpoint_routes(scenario.cluster, Router(scenario.cluster)));
    else write_scenario_json(out, scenario);
  });
}

}  // namespace

void add_topo_commands(CLI::App& app) {
  auto options = std::make_shared<TopoOptions>();
  CLI::App* topo = app.add_subcommand("topo", "Inspect and convert cluster topologies");
  topo->require_subcommand(1);

  CLI::App* describe = topo->add_subcommand(
      "describe", "Summarise a cluster: devices and links per kind, bisection, oversubscription, diameter, routing");
  describe->add_option("scenario", options->scenario, "Scenario JSON file (default: the built-in scenario)");
  describe->add_option("-f,--format", options->describe_format, "text, or json (schema ringlab.topology-summary)")
      ->check(one_of("format", {"text", "json"}))
      ->capture_default_str();
  describe->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  describe->callback([options] { run_describe(*options); });

  CLI::App* exp = topo->add_subcommand(
      "export", "Write the cluster graph as Graphviz DOT, GraphML, ringlab JSON, a SimGrid platform or one host as NCCL topology XML");
  exp->add_option("scenario", options->scenario, "Scenario JSON file (default: the built-in scenario)");
  exp->add_option("-f,--format", options->format, "Output format")
      ->check(one_of("format", {"dot", "graphml", "json", "nccl-xml", "simgrid"}))
      ->capture_default_str();
  exp->add_option("--detail", options->detail,
                  "dot: full (every device), hosts (one box per host) or auto (hosts above " +
                      std::to_string(kDotMaxFullHosts) + " hosts or " + std::to_string(kDotMaxFullGpus) + " GPUs)")
      ->check(one_of("detail", {"auto", "full", "hosts"}))
      ->capture_default_str();
  exp->add_option("--host", options->host, "nccl-xml: the host to write (default: the first host with a GPU)");
  exp->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  exp->callback([options] { run_export(*options); });

  add_import_command(*topo);
}

}  // namespace ringlab::cli
