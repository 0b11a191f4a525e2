// `ringlab topo describe`, `ringlab topo export` and `ringlab topo import`: summarise, write out, or
// build a scenario's cluster from the descriptions a real cluster has (import_command.cpp).
#include <memory>
#include <string>

#include "commands.hpp"
#include "output.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/metrics.hpp"
#include "ringlab/topology/routing.hpp"

namespace ringlab::cli {
namespace {

struct TopoOptions {
  std::string scenario;
  std::string format = "dot";
  std::string output;
  std::string host;  ///< export -f nccl-xml: the host to write
};

// The host `name`, or the first host with a GPU when `name` is empty.
HostId export_host(const Topology& t, const std::string& name) {
  if (!name.empty()) {
    if (auto h = t.find_host(name)) return *h;
    throw InputError("", "--host", "no host named \"" + name + "\" in the scenario");
  }
  for (DeviceId g : t.gpus())
    if (t.device(g).host != kNoHost) return t.device(g).host;
  throw InputError("", "--host", "the scenario has no host with a GPU: expected --host NAME");
}

void run_describe(const TopoOptions& o) {
  const Scenario scenario = load_scenario_or_default(o.scenario);
  const Router router(scenario.cluster);
  const TopologySummary summary = summarize(scenario.cluster, router);
  write_output(o.output, [&](std::ostream& out) {
    out << "scenario: " << (scenario.name.empty() ? scenario.file : scenario.name) << '\n';
    print_summary(out, scenario.cluster, summary);
  });
}

void run_export(const TopoOptions& o) {
  const Scenario scenario = load_scenario_or_default(o.scenario);
  write_output(o.output, [&](std::ostream& out) {
    if (o.format == "dot") write_dot(out, scenario.cluster);
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
  describe->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  describe->callback([options] { run_describe(*options); });

  CLI::App* exp = topo->add_subcommand(
      "export", "Write the cluster graph as Graphviz DOT, GraphML, ringlab JSON, a SimGrid platform or one host as NCCL topology XML");
  exp->add_option("scenario", options->scenario, "Scenario JSON file (default: the built-in scenario)");
  exp->add_option("-f,--format", options->format, "Output format")
      ->check(CLI::IsMember({"dot", "graphml", "json", "nccl-xml", "simgrid"}))
      ->capture_default_str();
  exp->add_option("--host", options->host, "nccl-xml: the host to write (default: the first host with a GPU)");
  exp->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  exp->callback([options] { run_export(*options); });

  add_import_command(*topo);
}

}  // namespace ringlab::cli
