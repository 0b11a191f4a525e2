// `ringlab topo describe` and `ringlab topo export`: summarise or write out a scenario's cluster.
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
};

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
    else write_json(out, scenario.cluster);
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

  CLI::App* exp = topo->add_subcommand("export", "Write the cluster graph as Graphviz DOT, GraphML or ringlab JSON");
  exp->add_option("scenario", options->scenario, "Scenario JSON file (default: the built-in scenario)");
  exp->add_option("-f,--format", options->format, "Output format")
      ->check(CLI::IsMember({"dot", "graphml", "json"}))
      ->capture_default_str();
  exp->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  exp->callback([options] { run_export(*options); });
}

}  // namespace ringlab::cli
