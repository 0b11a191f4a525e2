// Slurm topology.yaml: a list of named topologies, of which ringlab reads one tree (the one marked
// cluster_default, else the first). Format: SchedMD slurm doc/man/man5/topology.yaml.5 (May 2025):
//   - topology: NAME          (first key)
//     cluster_default: BOOL   (optional)
//     tree: { switches: [ {switch: NAME, children: HOSTLIST, nodes: HOSTLIST}, ... ] }
//     (or block: / flat: for the other plugins)
// Problems name the YAML line.
#include <yaml-cpp/yaml.h>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

std::string yaml_line(const YAML::Node& n) { return detail::line_location(n.Mark().line + 1); }

class YamlParser {
 public:
  explicit YamlParser(const std::string& file) : problems_(file) { fabric_.file = file; }

  Fabric parse(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw InputError(fabric_.file, detail::line_location(e.mark.line + 1), "malformed YAML: " + e.msg);
    }
    if (!root.IsSequence() || root.size() == 0)
      throw InputError(fabric_.file, root.IsNull() ? "" : yaml_line(root),
                       "expected a list of topologies (\"- topology: NAME\" entries)");
    const YAML::Node chosen = choose(root);
    problems_.throw_if_any();
    read_tree(chosen);
    problems_.throw_if_any();
    detail::add_slurm_tree(fabric_, switches_, problems_);
    problems_.throw_if_any();
    return std::move(fabric_);
  }

 private:
  std::optional<std::string> scalar(const YAML::Node& map, const char* key, std::string_view expected) {
    const YAML::Node n = map[key];
    if (!n) return std::nullopt;
    if (!n.IsScalar()) {
      problems_.add(yaml_line(n), std::string(key) + ": expected " + std::string(expected));
      return std::nullopt;
    }
    return n.as<std::string>();
  }

  YAML::Node choose(const YAML::Node& root) {
    std::optional<std::size_t> chosen;
    for (std::size_t i = 0; i < root.size(); ++i) {
      const YAML::Node t = root[i];
      // A "topology" that is a list or map has no name: reading it as a string would throw yaml-cpp's
      // own exception past the InputError contract (found by fuzzing, tests/fuzz/regressions/slurm_yaml).
      if (!t.IsMap() || !t["topology"] || !t["topology"].IsScalar()) {
        problems_.add(yaml_line(t), "expected a map starting with \"topology: NAME\"");
        continue;
      }
      bool is_default = false;
      if (const YAML::Node d = t["cluster_default"]) {
        try {
          is_default = d.as<bool>();
        } catch (const YAML::Exception&) {
          problems_.add(yaml_line(d), "cluster_default: expected true or false");
        }
      }
      if (!chosen || (is_default && !default_)) {
        chosen = i;
        default_ = is_default;
      }
    }
    if (!chosen) return root[0];
    const YAML::Node t = root[*chosen];
    if (root.size() > 1)
      fabric_.report.assumptions.push_back(fabric_.file + ": " + std::to_string(root.size()) + " topologies: read \"" +
                                           t["topology"].as<std::string>() + "\" (" +
                                           (default_ ? "cluster_default" : "the first") + ")");
    return t;
  }

  void read_tree(const YAML::Node& t) {
    const std::string name = t["topology"].as<std::string>("");
    for (const char* other : {"block", "flat", "torus3d", "ring"}) {
      if (!t[other]) continue;
      problems_.add(yaml_line(t[other]), "topology \"" + name + "\" is a " + other +
                                             " topology: ringlab imports tree topologies (expected \"tree:\")");
      return;
    }
    const YAML::Node tree = t["tree"];
    if (!tree || !tree.IsMap() || !tree["switches"] || !tree["switches"].IsSequence()) {
      problems_.add(yaml_line(tree ? tree : t), "topology \"" + name + "\": expected \"tree:\" with a \"switches:\" list");
      return;
    }
    for (const YAML::Node& s : tree["switches"]) read_switch(s);
  }

  void read_switch(const YAML::Node& s) {
    detail::SlurmSwitch sw;
    sw.location = yaml_line(s);
    if (!s.IsMap()) {
      problems_.add(sw.location, "expected a switch entry (switch: NAME, children: ..., nodes: ...)");
      return;
    }
    for (const auto& kv : s) {
      const std::string key = kv.first.as<std::string>("");
      if (key != "switch" && key != "children" && key != "nodes")
        problems_.add(yaml_line(kv.first), "unknown key \"" + key + "\": expected switch, children or nodes");
    }
    const auto name = scalar(s, "switch", "a switch name");
    if (!name || name->empty()) {
      problems_.add(sw.location, "missing \"switch: NAME\": expected every entry to name its switch");
      return;
    }
    sw.name = *name;
    expand(s, "children", sw.switches);
    expand(s, "nodes", sw.nodes);
    switches_.push_back(std::move(sw));
  }

  void expand(const YAML::Node& s, const char* key, std::vector<std::string>& out) {
    const auto value = scalar(s, key, "a hostlist such as node[01-16]");
    if (!value) return;
    try {
      out = expand_hostlist(*value);
      if (!names_.take(out.size())) {
        problems_.add(yaml_line(s[key]), std::string(key) + ": " + names_.message());
        out.clear();
      }
    } catch (const std::invalid_argument& e) {
      problems_.add(yaml_line(s[key]), std::string(key) + ": " + e.what());
    }
  }

  Fabric fabric_;
  ProblemList problems_;
  std::vector<detail::SlurmSwitch> switches_;
  detail::NameBudget names_;
  bool default_ = false;
};

}  // namespace

Fabric parse_slurm_topology_yaml(std::string_view text, const std::string& file) { return YamlParser(file).parse(text); }

}  // namespace ringlab
