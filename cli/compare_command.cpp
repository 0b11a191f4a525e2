// `ringlab compare PREDICTED MEASURED`: per-size error of predictions against measurements, both as
// results files (ringlab.results: `simulate -f results`, and later the validation harness).
#include <memory>

#include "commands.hpp"
#include "names.hpp"
#include "output.hpp"
#include "ringlab/sim/compare.hpp"
#include "ringlab/sim/result_json.hpp"

namespace ringlab::cli {
namespace {

struct CompareLine {
  std::string predicted;
  std::string measured;
  std::string format = "table";
  std::string output;
};

void run_compare(const CompareLine& c) {
  const std::vector<sim::Result> predicted = sim::load_results(c.predicted);
  const std::vector<sim::Result> measured = sim::load_results(c.measured);
  const sim::Comparison comparison = sim::compare(predicted, measured);
  write_output(c.output, [&](std::ostream& out) {
    if (c.format == "json") out << sim::to_json(comparison).dump(2) << '\n';
    else write_comparison_table(out, comparison);
  });
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto c = std::make_shared<CompareLine>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare predicted with measured results (ringlab.results files): per-size error, median and worst");
  cmd->add_option("predicted", c->predicted, "results file of the prediction (simulate -f results)")->required();
  cmd->add_option("measured", c->measured, "results file of the measurement")->required();
  cmd->add_option("-f,--format", c->format, "table or json")->check(one_of("format", {"table", "json"}))->capture_default_str();
  cmd->add_option("-o,--output", c->output, "write the comparison to this file instead of standard output");
  cmd->callback([c] { run_compare(*c); });
}

}  // namespace ringlab::cli
