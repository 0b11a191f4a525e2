// check_bundle(): re-reads a written bundle the way each tool reads its file and reports every place
// where a file does not encode the planned order (bundle.hpp). The parsing rules are those of the
// tools, not of our writers, so a hand-edited file is judged as its launcher would run it:
//   - Open MPI hostfile: "host slots=N", '#' comments; no slots= means "as many as cores";
//   - Open MPI rankfile: "rank N=host slot=SPEC" with optional spaces around '=' and '#' comments
//     (orte/mca/rmaps/rank_file/rmaps_rank_file_lex.l);
//   - Hydra machinefile: "host[:n]", n defaulting to 1;
//   - SLURM_HOSTFILE: task k runs on the k-th name, names one per line or comma separated;
//   - torchrun: --node-rank (or --node_rank) per host line; a dynamic rendezvous flag is refused;
//   - TF_CONFIG: JSON, cluster.worker in node order, task {"type": "worker", "index": k};
//   - NCCL_GRAPH_FILE: NCCL's grammar (nccl_files.cpp cites it): no tab, no prolog, no rank=,
//     hex dev, graphs 0 and 1, nchannels equal to the <channel> children, the planned chains.
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "bundle/bundle_internal.hpp"
#include "ringlab/planner/plan_json.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::planner {
namespace {

using bundle::join;

constexpr int kMaxXmlAttributes = 16;  // NCCL's MAX_ATTR_COUNT (src/graph/xml.h:23)

struct Line {
  int number = 0;
  std::string text;
};

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<Line> lines_of(const std::string& text) {
  std::vector<Line> out;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) out.push_back({++n, line});
  return out;
}

/// Lines without '#' comments and blanks.
std::vector<Line> content_lines(const std::string& text) {
  std::vector<Line> out;
  for (Line& l : lines_of(text)) {
    l.text = trim(l.text.substr(0, l.text.find('#')));
    if (!l.text.empty()) out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::optional<int> positive(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int v = std::stoi(text);
  if (v < 1) return std::nullopt;
  return v;
}

int line_at_offset(const std::string& text, std::ptrdiff_t offset) {
  if (offset < 0) return 0;
  return 1 + int(std::count(text.begin(), text.begin() + std::min<std::ptrdiff_t>(offset, std::ptrdiff_t(text.size())), '\n'));
}

int line_containing(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  return at == std::string::npos ? 0 : line_at_offset(text, std::ptrdiff_t(at));
}

class Checker {
 public:
  Checker(const Topology& topology, const Plan& plan, std::string dir, std::vector<std::string>& out)
      : topology_(topology), plan_(plan), dir_(std::move(dir)), out_(out) {}

  void run() {
    for (const BundleFile& f : launch_files(topology_, plan_)) {
      const auto text = read(f.path);
      if (!text) {
        add(f.path, 0, "missing (the bundle has one; write it again with ringlab plan -o)");
        continue;
      }
      check(f, *text);
    }
  }

 private:
  void check(const BundleFile& f, const std::string& text) {
    if (f.path == "hostfile") return host_list(f.path, text, false);
    if (f.path == "machinefile") return host_list(f.path, text, true);
    if (f.path == "rankfile") return rankfile(f.path, text);
    if (f.path == "slurm.hosts") return slurm_hosts(f.path, text);
    if (f.path == "srun.sh") return srun(f.path, text);
    if (f.path == "torchrun.sh") return torchrun(f.path, text);
    if (f.path == "nccl.env") return env(f.path, text, false);
    if (f.path == "nccl-debug.env") return env(f.path, text, true);
    if (f.path == "check.sh") return check_script(f.path, text, f.text);
    for (std::size_t h = 0; h < plan_.hosts.size(); ++h) {
      if (f.path == "tf_config/" + plan_.hosts[h].name + ".json") return tf_config(f.path, text, h);
      if (f.path == "nccl-graph/" + plan_.hosts[h].name + ".xml") return graph(f.path, text, h);
    }
  }

  std::optional<std::string> read(const std::string& path) const {
    std::ifstream in(std::filesystem::path(dir_) / path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  void add(const std::string& file, int line, const std::string& what) {
    out_.push_back(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
  }

  const std::string& host_name_of_rank(int rank) const { return plan_.hosts[bundle::host_of_rank(plan_, rank)].name; }

  /// Open MPI hostfile ("host slots=N") or Hydra machinefile ("host:n"): node k with its rank count.
  void host_list(const std::string& file, const std::string& text, bool hydra) {
    struct Entry {
      std::string host;
      int count = 0;
      int line = 0;
    };
    std::vector<Entry> entries;
    for (const Line& l : content_lines(text)) {
      const auto w = words(l.text);
      Entry e{w[0], 1, l.number};
      if (hydra) {
        if (const std::size_t colon = w[0].rfind(':'); colon != std::string::npos) {
          e.host = w[0].substr(0, colon);
          const auto n = positive(w[0].substr(colon + 1));
          if (!n) add(file, l.number, "expected host:n with a positive n, found '" + w[0] + "'");
          e.count = n.value_or(0);
        }
      } else {
        std::optional<int> slots;
        for (std::size_t i = 1; i < w.size(); ++i)
          if (w[i].rfind("slots=", 0) == 0) slots = positive(w[i].substr(6));
        if (!slots) add(file, l.number, "no valid slots=N: Open MPI would start as many ranks as " + e.host + " has cores");
        e.count = slots.value_or(0);
      }
      entries.push_back(std::move(e));
    }
    const auto spell = [&](const std::string& host, int n) {
      return hydra ? host + ":" + std::to_string(n) : host + " slots=" + std::to_string(n);
    };
    for (std::size_t k = 0; k < std::max(entries.size(), plan_.hosts.size()); ++k) {
      if (k >= entries.size()) {
        add(file, 0, "node " + std::to_string(k) + " missing (expected '" + spell(plan_.hosts[k].name, plan_.hosts[k].size()) +
                         "' after the " + std::to_string(entries.size()) + " hosts listed)");
        continue;
      }
      const Entry& e = entries[k];
      if (k >= plan_.hosts.size()) {
        add(file, e.line, "host beyond the plan's " + std::to_string(plan_.hosts.size()) + " nodes (found '" + e.host + "')");
        continue;
      }
      const HostPlan& h = plan_.hosts[k];
      if (e.host != h.name || e.count != h.size())
        add(file, e.line, "node " + std::to_string(k) + " (ranks " + std::to_string(h.first_rank) + ".." +
                              std::to_string(h.first_rank + h.size() - 1) + ") is not the planned one (expected '" +
                              spell(h.name, h.size()) + "', found '" + spell(e.host, e.count) + "')");
    }
  }

  void rankfile(const std::string& file, const std::string& text) {
    static const std::regex line_re(R"(^rank\s+([0-9]+)\s*=\s*([^\s=]+)\s+slots?\s*=\s*(\S+)$)");
    static const std::regex slot_re(R"(^[0-9*][0-9*:,;\-]*$)");
    std::map<int, int> seen;  // rank -> line
    for (const Line& l : content_lines(text)) {
      std::smatch m;
      if (!std::regex_match(l.text, m, line_re)) {
        add(file, l.number, "expected 'rank N=host slot=SPEC', found '" + l.text + "'");
        continue;
      }
      const int rank = m[1].length() > 9 ? -1 : std::stoi(m[1].str());
      if (rank < 0 || rank >= plan_.ranks()) {
        add(file, l.number, "rank " + m[1].str() + " is not a rank of the plan (0.." + std::to_string(plan_.ranks() - 1) + ")");
        continue;
      }
      if (const auto [it, fresh] = seen.emplace(rank, l.number); !fresh) {
        add(file, l.number, "rank " + std::to_string(rank) + " is placed twice (also on line " + std::to_string(it->second) + ")");
        continue;
      }
      if (m[2].str() != host_name_of_rank(rank))
        add(file, l.number, "rank " + std::to_string(rank) + " is on the wrong host (expected " + host_name_of_rank(rank) +
                                ", found " + m[2].str() + ")");
      if (!std::regex_match(m[3].str(), slot_re))
        add(file, l.number, "slot list '" + m[3].str() + "' is not Open MPI's syntax (expected e.g. 0:* or 1:0-2)");
    }
    for (int r = 0; r < plan_.ranks(); ++r)
      if (!seen.count(r)) add(file, 0, "rank " + std::to_string(r) + " missing (expected 'rank " + std::to_string(r) + "=" +
                                           host_name_of_rank(r) + " slot=...')");
  }

  void slurm_hosts(const std::string& file, const std::string& text) {
    int task = 0;
    for (const Line& l : lines_of(text)) {
      std::istringstream items(l.text);
      for (std::string item; std::getline(items, item, ',');) {
        item = trim(item);
        if (item.empty()) continue;
        if (task >= plan_.ranks()) {
          add(file, l.number, "task " + std::to_string(task) + " is beyond the plan's " + std::to_string(plan_.ranks()) +
                                  " ranks (found " + item + ")");
        } else if (item != host_name_of_rank(task)) {
          add(file, l.number, "task " + std::to_string(task) + " (rank " + std::to_string(task) + ") is on the wrong host (expected " +
                                  host_name_of_rank(task) + ", found " + item + ")");
        }
        ++task;
      }
    }
    if (task < plan_.ranks())
      add(file, 0, "only " + std::to_string(task) + " tasks listed (expected " + std::to_string(plan_.ranks()) + ")");
  }

  /// The host of a case line "  name|name.*) ..." when it is one of the plan's, else "".
  static std::string case_host(const std::string& text) {
    const std::string t = trim(text);
    const std::size_t paren = t.find(')');
    if (paren == std::string::npos || paren == 0) return {};
    const std::string label = t.substr(0, paren);
    if (label.find_first_of(" \"$") != std::string::npos) return {};
    return label.substr(0, label.find('|'));
  }

  static std::optional<std::string> option(const std::string& text, const std::string& name) {
    for (const std::string& w : words(text)) {
      std::string word = w;
      if (!word.empty() && word.back() == ';') word.pop_back();
      if (word.rfind(name + "=", 0) == 0) return word.substr(name.size() + 1);
    }
    return std::nullopt;
  }

  /// Per-host case lines of srun.sh / torchrun.sh: host -> line.
  std::map<std::string, Line> case_lines(const std::string& text, const std::string& must_contain) const {
    std::map<std::string, Line> out;
    for (const Line& l : lines_of(text)) {
      const std::string host = case_host(l.text);
      if (!host.empty() && host != "*" && l.text.find(must_contain) != std::string::npos) out.emplace(host, l);
    }
    return out;
  }

  void visible_devices(const std::string& file, const Line& l, const HostPlan& h) {
    const auto devices = option(l.text, "CUDA_VISIBLE_DEVICES");
    const std::string want = join(h.gpus, ",");
    if (devices != want)
      add(file, l.number, "CUDA_VISIBLE_DEVICES for " + h.name + " must list its GPUs in local-rank order (expected " +
                              want + ", found " + devices.value_or("none") + ")");
  }

  void srun(const std::string& file, const std::string& text) {
    bool launched = false;
    for (const Line& l : lines_of(text)) {
      const auto w = words(l.text);
      const auto srun = std::find(w.begin(), w.end(), "srun");
      if (srun == w.end() || trim(l.text)[0] == '#') continue;
      launched = true;
      const auto n = std::find(srun, w.end(), "-n");
      const std::string count = n != w.end() && n + 1 != w.end() ? *(n + 1) : "none";
      if (count != std::to_string(plan_.ranks()))
        add(file, l.number, "srun must start one task per rank (expected -n " + std::to_string(plan_.ranks()) + ", found -n " + count + ")");
      if (std::find(w.begin(), w.end(), "--distribution=arbitrary") == w.end())
        add(file, l.number, "without --distribution=arbitrary srun ignores the order of slurm.hosts");
    }
    if (!launched) add(file, 0, "no srun line");
    if (text.find("SLURM_HOSTFILE=\"$DIR/slurm.hosts\"") == std::string::npos)
      add(file, 0, "SLURM_HOSTFILE does not name slurm.hosts");
    const auto lines = case_lines(text, "CUDA_VISIBLE_DEVICES=");
    for (const HostPlan& h : plan_.hosts) {
      const auto it = lines.find(h.name);
      if (it == lines.end()) add(file, 0, "no CUDA_VISIBLE_DEVICES line for host " + h.name);
      else visible_devices(file, it->second, h);
    }
  }

  void torchrun(const std::string& file, const std::string& text) {
    const auto lines = case_lines(text, "torchrun ");
    for (std::size_t k = 0; k < plan_.hosts.size(); ++k) {
      const HostPlan& h = plan_.hosts[k];
      const auto it = lines.find(h.name);
      if (it == lines.end()) {
        add(file, 0, "no torchrun line for host " + h.name + " (expected --node-rank=" + std::to_string(k) + ")");
        continue;
      }
      const Line& l = it->second;
      const auto expect = [&](const std::string& a, const std::string& b, const std::string& want) {
        const auto found = option(l.text, a) ? option(l.text, a) : option(l.text, b);
        if (found != want)
          add(file, l.number, a + " for " + h.name + " (expected " + want + ", found " + found.value_or("none") + ")");
      };
      expect("--node-rank", "--node_rank", std::to_string(k));
      expect("--nnodes", "--nnodes", std::to_string(plan_.hosts.size()));
      expect("--nproc-per-node", "--nproc_per_node", std::to_string(h.size()));
      expect("--master-addr", "--master_addr", plan_.master_host);
      if (l.text.find("--rdzv") != std::string::npos || l.text.find("--standalone") != std::string::npos)
        add(file, l.number, "a dynamic rendezvous ignores --node-rank and ranks nodes by sorted host name");
      visible_devices(file, l, h);
    }
    for (const auto& entry : lines) {
      const std::string& host = entry.first;  // clang 14 cannot capture a structured binding
      if (std::none_of(plan_.hosts.begin(), plan_.hosts.end(), [&](const HostPlan& h) { return h.name == host; }))
        add(file, entry.second.number, "host " + host + " is not in the plan");
    }
  }

  void tf_config(const std::string& file, const std::string& text, std::size_t k) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      add(file, line_at_offset(text, std::ptrdiff_t(e.byte) - 1), std::string("not valid JSON: ") + e.what());
      return;
    }
    const nlohmann::json* workers = doc.is_object() && doc.contains("cluster") && doc["cluster"].is_object() &&
                                            doc["cluster"].contains("worker")
                                        ? &doc["cluster"]["worker"]
                                        : nullptr;
    std::vector<std::string> want;
    for (const HostPlan& h : plan_.hosts) want.push_back(h.name);
    std::vector<std::string> found;
    if (workers && workers->is_array())
      for (const auto& w : *workers)
        found.push_back(w.is_string() ? w.get<std::string>().substr(0, w.get<std::string>().rfind(':')) : "?");
    if (found != want) {
      std::string a, b;
      for (const auto& s : want) a += (a.empty() ? "" : ",") + s;
      for (const auto& s : found) b += (b.empty() ? "" : ",") + s;
      add(file, line_containing(text, "\"worker\""), "cluster.worker must list the hosts in node order (expected " + a +
                                                       ", found " + (workers ? b : "none") + ")");
    }
    const nlohmann::json* task = doc.is_object() && doc.contains("task") && doc["task"].is_object() ? &doc["task"] : nullptr;
    const std::string type = task && task->contains("type") && (*task)["type"].is_string() ? (*task)["type"].get<std::string>() : "none";
    if (type != "worker") add(file, line_containing(text, "\"type\""), "task.type (expected worker, found " + type + ")");
    const std::string index =
        task && task->contains("index") && (*task)["index"].is_number_integer() ? std::to_string((*task)["index"].get<long long>()) : "none";
    if (index != std::to_string(k))
      add(file, line_containing(text, "\"index\""), "task.index of " + plan_.hosts[k].name + " (expected " + std::to_string(k) +
                                                      ", its place in cluster.worker, found " + index + ")");
  }

  void env(const std::string& file, const std::string& text, bool debug) {
    static const std::regex assign(R"(^(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$)");
    std::map<std::string, std::pair<std::string, int>> values;  // name -> (value, line)
    for (const Line& l : content_lines(text)) {
      std::smatch m;
      if (!std::regex_match(l.text, m, assign)) continue;
      std::string value = m[3].str();
      if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
        value = value.substr(1, value.size() - 2);
      values[m[2].str()] = {value, l.number};
    }
    if (!debug && !values.count("NCCL_GRAPH_FILE")) add(file, 0, "NCCL_GRAPH_FILE is not set (the plan's graph files would not be read)");
    if (!debug) {
      const auto lines = case_lines(text, "CUDA_VISIBLE_DEVICES=");
      for (const HostPlan& h : plan_.hosts) {
        const auto it = lines.find(h.name);
        if (it == lines.end()) add(file, 0, "no CUDA_VISIBLE_DEVICES line for host " + h.name);
        else visible_devices(file, it->second, h);
      }
    }
    for (const NcclSetting& s : plan_.nccl_env) {
      if (bundle::is_debug_setting(s) != debug) continue;
      const auto it = values.find(s.name);
      if (it == values.end()) add(file, 0, s.name + " missing (expected " + s.name + "='" + s.value + "')");
      else if (it->second.first != s.value)
        add(file, it->second.second, s.name + " (expected '" + s.value + "', found '" + it->second.first + "')");
    }
    if (debug) return;
    for (const auto& [name, v] : values)
      if (bundle::is_debug_setting(NcclSetting{name, v.first, "", false}))
        add(file, v.second, name + " is a debug-only setting: NCCL says not to keep it in scripts (move it to nccl-debug.env)");
    const auto cross = values.find("NCCL_CROSS_NIC");
    for (std::size_t h = 0; h < plan_.hosts.size(); ++h)
      if (cross != values.end() && cross->second.first == "0" && bundle::graph_crossnic(plan_, h) == 1) {
        add(file, cross->second.second, "NCCL_CROSS_NIC=0 makes NCCL skip the crossnic=\"1\" graph of " + plan_.hosts[h].name +
                                            " (src/graph/search.cc:936)");
        break;
      }
  }

  static std::string hex_list(const std::vector<int>& values) {
    std::string out;
    for (int v : values) {
      std::ostringstream s;
      s << "0x" << std::hex << v;
      out += (out.empty() ? "" : " ") + s.str();
    }
    return out;
  }

  void graph(const std::string& file, const std::string& text, std::size_t host) {
    for (const Line& l : lines_of(text)) {
      if (l.text.find('\t') != std::string::npos)
        add(file, l.number, "tab character: NCCL's XML parser separates tokens by spaces and line breaks only");
      if (trim(l.text).rfind("<?", 0) == 0) add(file, l.number, "XML prolog: NCCL's parser cannot read it; start with <graphs>");
      // xmlGetNode reads attributes while the next character is a space: a line break inside a tag
      // ends it with "expected >" (src/graph/xml.cc:176-193).
      if (const std::size_t open = l.text.rfind('<'); open != std::string::npos && l.text.find('>', open) == std::string::npos)
        add(file, l.number, "a tag continues on the next line: NCCL's parser needs each tag on one line");
      if (std::regex_search(l.text, std::regex(R"(\srank\s*=)")))
        add(file, l.number, "rank= attribute: NCCL reads it as a global rank, valid on one node only; use dev alone");
    }
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
    if (!parsed) {
      add(file, line_at_offset(text, parsed.offset), std::string("not well-formed XML: ") + parsed.description());
      return;
    }
    const auto line = [&](const pugi::xml_node& n) { return line_at_offset(text, n.offset_debug()); };
    const pugi::xml_node root = doc.child("graphs");
    if (!root) {
      add(file, 1, "the root element must be <graphs version=\"1\">");
      return;
    }
    if (std::string(root.attribute("version").value()) != "1")
      add(file, line(root), "<graphs> version (expected 1, found '" + std::string(root.attribute("version").value()) + "')");
    const std::vector<bundle::GraphChannel> want = bundle::graph_channels(plan_, host);
    std::map<int, pugi::xml_node> graphs;
    for (const pugi::xml_node g : root.children("graph")) {
      const int id = g.attribute("id").as_int(-1);
      if (!graphs.emplace(id, g).second) add(file, line(g), "graph id " + std::to_string(id) + " appears twice");
    }
    for (const auto& [id, pattern] : {std::pair{0, 4}, std::pair{1, 1}}) {
      const auto it = graphs.find(id);
      if (it == graphs.end()) {
        add(file, 0, std::string("no <graph id=\"") + std::to_string(id) + "\"> (" + (id == 0 ? "ring" : "tree") + ")");
        continue;
      }
      const pugi::xml_node g = it->second;
      const int found_pattern = g.attribute("pattern").as_int(-1);
      if (id == 0 ? found_pattern != pattern : (found_pattern < 1 || found_pattern > 3))
        add(file, line(g), "graph " + std::to_string(id) + " pattern (expected " + std::to_string(pattern) + ", found " +
                               std::to_string(found_pattern) + ")");
      const auto channels = std::distance(g.children("channel").begin(), g.children("channel").end());
      const std::string nchannels = g.attribute("nchannels").value();
      if (nchannels != std::to_string(channels))
        add(file, line(g), "nchannels=\"" + nchannels + "\" but the graph has " + std::to_string(channels) +
                               " <channel> elements (NCCL trusts nchannels)");
      if (channels != plan_.channels)
        add(file, line(g), "graph " + std::to_string(id) + " has " + std::to_string(channels) + " channels (expected " +
                               std::to_string(plan_.channels) + ")");
      std::size_t c = 0;
      for (const pugi::xml_node ch : g.children("channel")) channel(file, text, ch, c < want.size() ? &want[c] : nullptr, c), ++c;
    }
    elements(file, text, root);
  }

  /// NCCL keeps at most 16 attributes per element (src/graph/xml.cc:179-183) and reads no text.
  void elements(const std::string& file, const std::string& text, const pugi::xml_node& node) {
    if (std::distance(node.attributes().begin(), node.attributes().end()) > kMaxXmlAttributes)
      add(file, line_at_offset(text, node.offset_debug()), "more than 16 attributes: NCCL ignores the rest");
    for (const pugi::xml_node child : node.children()) {
      if (child.type() == pugi::node_element) elements(file, text, child);
      // Between elements NCCL skips spaces and line breaks only, then expects '<' (xml.cc:142-151).
      if ((child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) &&
          trim(child.value()).find_first_not_of("\n") != std::string::npos)
        add(file, line_at_offset(text, child.offset_debug()), "text between elements: NCCL's parser expects '<'");
    }
  }

  void channel(const std::string& file, const std::string& text, const pugi::xml_node& ch,
               const bundle::GraphChannel* want, std::size_t c) {
    const int at = line_at_offset(text, ch.offset_debug());
    std::vector<int> gpus;
    std::vector<std::pair<std::size_t, int>> nets;  // (position among children, dev)
    std::size_t position = 0;
    bool devs_ok = true;
    for (const pugi::xml_node e : ch.children()) {
      if (e.type() != pugi::node_element) continue;
      const std::string name = e.name(), dev = e.attribute("dev").value();
      if (name != "gpu" && name != "net") continue;  // NCCL ignores other elements
      if (dev.rfind("0x", 0) != 0 || dev.size() < 3 || dev.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos) {
        add(file, line_at_offset(text, e.offset_debug()), "dev=\"" + dev + "\" is not a 0x-prefixed hex number (NCCL reads dev as hex)");
        devs_ok = false;
        ++position;
        continue;
      }
      const int value = int(std::stol(dev.substr(2), nullptr, 16));
      if (name == "gpu") gpus.push_back(value);
      else nets.emplace_back(position, value);
      ++position;
    }
    if (!want || !devs_ok) return;
    const std::string label = "channel " + std::to_string(c);
    if (gpus != want->gpus)
      add(file, at, label + " GPUs (expected " + hex_list(want->gpus) + ", found " + hex_list(gpus) + ")");
    if (!want->has_nets) {
      if (!nets.empty()) add(file, at, label + ": a single-node graph has no <net>");
      return;
    }
    const bool shape = nets.size() == 2 && nets[0].first == 0 && nets[1].first == position - 1;
    if (!shape) {
      add(file, at, label + ": expected <net> first and last around the GPUs");
      return;
    }
    if (nets[0].second != want->net_in || nets[1].second != want->net_out)
      add(file, at, label + " NICs (expected in " + hex_list({want->net_in}) + " out " + hex_list({want->net_out}) + ", found in " +
                        hex_list({nets[0].second}) + " out " + hex_list({nets[1].second}) + ")");
  }

  void check_script(const std::string& file, const std::string& text, const std::string& expected) {
    std::vector<Line> found, want;
    for (const Line& l : lines_of(text))
      if (l.text.rfind("#@", 0) == 0) found.push_back(l);
    for (const Line& l : lines_of(expected))
      if (l.text.rfind("#@", 0) == 0) want.push_back(l);
    for (std::size_t i = 0; i < std::max(found.size(), want.size()); ++i) {
      if (i < found.size() && i < want.size() && found[i].text == want[i].text) continue;
      add(file, i < found.size() ? found[i].number : 0,
          "plan data differs from plan.json (expected '" + (i < want.size() ? want[i].text : "nothing") + "', found '" +
              (i < found.size() ? found[i].text : "nothing") + "')");
      return;  // one is enough: the rest shifts
    }
  }

  const Topology& topology_;
  const Plan& plan_;
  std::string dir_;
  std::vector<std::string>& out_;
};

}  // namespace

std::vector<std::string> check_bundle(const Topology& topology, const std::string& dir) {
  std::vector<std::string> out;
  Plan plan;
  try {
    plan = load_plan(topology, (std::filesystem::path(dir) / "plan.json").string());
  } catch (const InputError& e) {
    for (const Problem& p : e.problems())
      out.push_back("plan.json:" + (p.location.empty() ? std::string() : p.location + ":") + " " + p.message);
    return out;
  }
  try {
    Checker(topology, plan, dir, out).run();
  } catch (const std::invalid_argument& e) {  // a plan launch_files() cannot write (host names)
    out.push_back(std::string("plan.json: ") + e.what());
  }
  return out;
}

}  // namespace ringlab::planner
