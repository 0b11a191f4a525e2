// `ringlab topo import`: builds a cluster from a fabric description (Slurm topology.conf / topology.yaml,
// ibnetdiscover) and/or a node layout (nvidia-smi topo -m, NCCL topology XML) and writes it as an
// explicit scenario JSON. Assumptions and warnings of the importers go to standard error.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "output.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/import.hpp"
#include "ringlab/topology/scenario.hpp"
#include "ringlab/topology/suggest.hpp"

namespace ringlab::cli {
namespace {

struct ImportOptions {
  std::string slurm, slurm_yaml, ibnetdiscover;
  std::string nvidia_smi, nccl_xml;
  std::string node_template = "generic";
  bool node_template_given = false;  // --node-template on the command line: it also fills in the XML
  std::string cpu_vendor;            // --cpu-vendor: "" when not given
  std::string output;
};

std::optional<Fabric> read_fabric(const ImportOptions& o) {
  if (!o.slurm.empty()) return parse_slurm_topology_conf(read_import_file(o.slurm), o.slurm);
  if (!o.slurm_yaml.empty()) return parse_slurm_topology_yaml(read_import_file(o.slurm_yaml), o.slurm_yaml);
  if (!o.ibnetdiscover.empty()) return parse_ibnetdiscover(read_import_file(o.ibnetdiscover), o.ibnetdiscover);
  return std::nullopt;
}

std::optional<NodeLayout> read_layout(const ImportOptions& o, NodeTemplate tmpl) {
  if (!o.nvidia_smi.empty()) return parse_nvidia_smi_topo(read_import_file(o.nvidia_smi), o.nvidia_smi);
  if (!o.nccl_xml.empty())
    return parse_nccl_topo_xml(read_import_file(o.nccl_xml), o.nccl_xml, "node0",
                               o.node_template_given ? std::optional(tmpl) : std::nullopt);
  return std::nullopt;
}

/// --cpu-vendor on the node layout: the file's, or the template's when only a fabric is given.
void apply_cpu_vendor(const ImportOptions& o, bool have_fabric, NodeTemplate tmpl, std::optional<NodeLayout>& layout) {
  if (o.cpu_vendor.empty()) return;
  const auto vendor = find_cpu_vendor(o.cpu_vendor);
  if (!vendor) throw InputError("", "--cpu-vendor", "unknown CPU vendor '" + o.cpu_vendor + "': expected intel, amd or other");
  if (!layout && have_fabric) layout = template_layout(tmpl);
  if (layout) set_layout_cpu_vendor(*layout, *vendor, "--cpu-vendor");
}

/// The files the import read, as the user named them: "topology.conf and topo-m.txt".
std::string input_files(const ImportOptions& o) {
  std::string out;
  for (const std::string* f : {&o.slurm, &o.slurm_yaml, &o.ibnetdiscover, &o.nvidia_smi, &o.nccl_xml})
    if (!f->empty()) out += (out.empty() ? "" : " and ") + *f;
  return out;
}

/// The written scenario must load. The importers check their input line by line, so a problem left
/// here is the importers' to catch; it is still reported against the user's files (not the JSON the
/// import generates), with the element of the generated cluster it concerns.
void check_loads(const ImportedCluster& imported, const ImportOptions& o) {
  const nlohmann::json document{{"ringlab", kScenarioFormatVersion}, {"cluster", cluster_json(imported.cluster)}};
  try {
    scenario_from_json(document, "");
  } catch (const InputError& e) {
    std::vector<Problem> problems;
    for (const Problem& p : e.problems())
      problems.push_back(Problem{input_files(o), "",
                                 "the cluster built from this input does not load (" + p.location + " of the "
                                 "written scenario): " + p.message});
    throw InputError(std::move(problems));
  }
}

void run_import(const ImportOptions& o) {
  const auto tmpl = find_node_template(o.node_template);
  if (!tmpl)
    throw InputError("", "--node-template", unknown_name_message("node template", o.node_template, node_template_names()));
  const std::optional<Fabric> fabric = read_fabric(o);
  std::optional<NodeLayout> layout = read_layout(o, *tmpl);
  if (!fabric && !layout)
    throw InputError("", "", "nothing to import: expected --slurm, --slurm-yaml or --ibnetdiscover, and/or "
                             "--nvidia-smi or --nccl-xml");
  apply_cpu_vendor(o, fabric.has_value(), *tmpl, layout);
  const ImportedCluster imported = combine(fabric ? &*fabric : nullptr, layout ? &*layout : nullptr, *tmpl);
  check_loads(imported, o);
  for (const std::string& a : imported.report.assumptions) std::cerr << "ringlab: assumed: " << a << '\n';
  for (const std::string& w : imported.report.warnings) std::cerr << "ringlab: warning: " << w << '\n';
  write_output(o.output, [&](std::ostream& out) { write_json(out, imported.cluster); });
}

}  // namespace

void add_import_command(CLI::App& topo) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = topo.add_subcommand(
      "import", "Build a scenario from a fabric (Slurm, ibnetdiscover) and/or a node layout (nvidia-smi, NCCL XML)");
  auto* fabric = cmd->add_option_group("fabric", "hosts, switches and links (at most one)");
  fabric->add_option("--slurm", o->slurm, "Slurm topology.conf (topology/tree)");
  fabric->add_option("--slurm-yaml", o->slurm_yaml, "Slurm topology.yaml (a tree topology)");
  fabric->add_option("--ibnetdiscover", o->ibnetdiscover, "ibnetdiscover output");
  fabric->require_option(0, 1);
  auto* node = cmd->add_option_group("node", "the layout of every host (at most one)");
  node->add_option("--nvidia-smi", o->nvidia_smi, "nvidia-smi topo -m output");
  node->add_option("--nccl-xml", o->nccl_xml, "NCCL topology XML (NCCL_TOPO_DUMP_FILE)");
  node->require_option(0, 1);
  CLI::Option* tmpl = cmd->add_option("--node-template", o->node_template,
                                       "Node layout when only a fabric is given; with --nccl-xml, the machine "
                                       "whose GPU model, NVLink and NIC rates fill what the XML does not say")
                           ->capture_default_str();
  cmd->add_option("--cpu-vendor", o->cpu_vendor,
                  "intel, amd or other (Arm, POWER): the hosts' CPUs, which topo -m, Slurm and ibnetdiscover do "
                  "not show (default: the NCCL XML's, else the node template's, else intel)");
  cmd->add_option("-o,--output", o->output, "Write the scenario JSON here instead of standard output");
  cmd->callback([o, tmpl] {
    o->node_template_given = tmpl->count() > 0;
    run_import(*o);
  });
}

}  // namespace ringlab::cli
