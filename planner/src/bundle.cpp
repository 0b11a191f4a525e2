// The launch bundle: every launcher's file for a plan, written atomically, and read back to check
// (bundle.hpp; facts and sources: shared/reference/launchers.md).
#include "ringlab/planner/bundle.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <pugixml.hpp>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::planner {
namespace {

constexpr int kTfPort = 2222;  ///< TF_CONFIG's customary worker port (TensorFlow's distributed examples)

std::string join(const std::vector<int>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

std::string hex(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// The topology's GPU of `host` with local index `local`.
DeviceId gpu_of(const Topology& t, const std::string& host, int local) {
  for (DeviceId d : t.host_devices(*t.find_host(host)))
    if (t.device(d).kind == DeviceKind::Gpu && t.device(d).local_index == local) return d;
  return 0;
}

// ---- per-launcher text ---------------------------------------------------------------------------

std::string hostfile(const Plan& p) {
  std::string s = "# Open MPI / DeepSpeed hostfile in planned node order: mpirun --hostfile hostfile --map-by slot\n";
  for (const HostPlan& h : p.hosts) s += h.name + " slots=" + std::to_string(h.size()) + "\n";
  return s;
}

std::string rankfile(const Plan& p) {
  std::string s = "# Open MPI rankfile (v5: --map-by rankfile:file=rankfile, v4: -rf rankfile); slot = core of the local rank\n";
  for (const HostPlan& h : p.hosts)
    for (int i = 0; i < h.size(); ++i)
      s += "rank " + std::to_string(h.first_rank + i) + "=" + h.name + " slot=" + std::to_string(i) + "\n";
  return s;
}

std::string slurm_hosts(const Plan& p) {
  std::string s;
  for (const HostPlan& h : p.hosts)
    for (int i = 0; i < h.size(); ++i) s += h.name + "\n";
  return s;
}

std::string srun_script(const Plan& p) {
  std::string s = "#!/bin/sh\n# Slurm: tasks in planned order (SLURM_HOSTFILE, --distribution=arbitrary); run inside an allocation\n"
                  "# holding these hosts. Usage: ./srun.sh python train.py ...\n"
                  "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
                  "export SLURM_HOSTFILE=\"$here/slurm.hosts\" RINGLAB_PLAN_DIR=\"$here\"\n"
                  "set -a; . \"$here/nccl.env\"; set +a\n";
  s += "exec srun -n " + std::to_string(p.ranks()) +
       " --distribution=arbitrary sh -c 'export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS "
       "CUDA_VISIBLE_DEVICES=$(\"'\"$here\"'/gpus.sh\"); exec \"$@\"' sh \"$@\"\n";
  return s;
}

/// gpus.sh: prints this host's CUDA_VISIBLE_DEVICES (local rank i -> the planned GPU).
std::string gpus_script(const Plan& p) {
  std::string s = "#!/bin/sh\n# Prints CUDA_VISIBLE_DEVICES for this host: local rank i uses the planned GPU i.\ncase \"$(hostname -s)\" in\n";
  for (const HostPlan& h : p.hosts) s += "  " + h.name + ") echo " + join(h.gpus, ",") + " ;;\n";
  s += "  *) echo \"gpus.sh: host $(hostname -s) is not in the plan\" >&2; exit 1 ;;\nesac\n";
  return s;
}

std::string machinefile(const Plan& p) {
  std::string s = "# MPICH / Intel MPI (Hydra) machinefile in planned node order: mpiexec -f machinefile\n";
  for (const HostPlan& h : p.hosts) s += h.name + ":" + std::to_string(h.size()) + "\n";
  return s;
}

std::string torchrun_script(const Plan& p) {
  std::string s =
      "#!/bin/sh\n# torchrun per node with the STATIC rendezvous: --node-rank fixes the node order. Do not use\n"
      "# --rdzv-backend=c10d: the dynamic rendezvous ranks nodes by sorted host name and ignores --node-rank.\n"
      "# Usage on every node: ./torchrun.sh train.py ...\n"
      "here=$(cd \"$(dirname \"$0\")\" && pwd)\nexport RINGLAB_PLAN_DIR=\"$here\"\nset -a; . \"$here/nccl.env\"; set +a\n"
      "case \"$(hostname -s)\" in\n";
  for (std::size_t k = 0; k < p.hosts.size(); ++k)
    s += "  " + p.hosts[k].name + ") NODE_RANK=" + std::to_string(k) + " ;;\n";
  s += "  *) echo \"torchrun.sh: host $(hostname -s) is not in the plan\" >&2; exit 1 ;;\nesac\n";
  s += "CUDA_VISIBLE_DEVICES=$(\"$here/gpus.sh\") exec torchrun --nnodes=" + std::to_string(p.hosts.size()) +
       " --nproc-per-node=" + std::to_string(p.hosts.front().size()) + " --node-rank=$NODE_RANK --master-addr=" +
       p.master_host + " --master-port=" + std::to_string(p.master_port) + " \"$@\"\n";
  return s;
}

std::string tf_config(const Plan& p, std::size_t index) {
  nlohmann::json workers = nlohmann::json::array();
  for (const HostPlan& h : p.hosts) workers.push_back(h.name + ":" + std::to_string(kTfPort));
  return nlohmann::json{{"cluster", {{"worker", workers}}}, {"task", {{"type", "worker"}, {"index", index}}}}.dump() + "\n";
}

std::string env_file(const Plan& p, bool debug) {
  std::string s = debug ? "# Debug-only NCCL settings the plan was timed with. NCCL's documentation: these \"should not be\n"
                          "# used in production nor retained in scripts\"; use them to reproduce the prediction.\n"
                        : "# NCCL system settings for this plan, safe to ship. Source with `set -a; . nccl.env; set +a`\n"
                          "# and set RINGLAB_PLAN_DIR to the bundle directory.\n";
  for (const NcclSetting& e : p.nccl_env)
    if (e.debug_only == debug) s += "# " + e.reason + "\n" + e.name + "=\"" + e.value + "\"\n";
  return s;
}

/// NCCL's graph XML for one host (grammar: launchers.md 3; NCCL src/graph/xml.cc and search.cc).
std::string graph_xml(const Topology& t, const Plan& p, const HostPlan& h) {
  const Router router(t, p.ecmp);
  const bool multi_host = p.hosts.size() > 1;
  double intra = 0, inter = 0;
  bool nvlink = false;
  for (const HostChannel& c : h.channels)
    for (std::size_t i = 0; i + 1 < c.local_ranks.size(); ++i) {
      const Route r = router.route(gpu_of(t, h.name, h.gpus[std::size_t(c.local_ranks[i])]),
                                   gpu_of(t, h.name, h.gpus[std::size_t(c.local_ranks[i + 1])]));
      intra = intra == 0 ? r.bottleneck.gigabytes_per_second() : std::min(intra, r.bottleneck.gigabytes_per_second());
      for (DirectionId d : r.directions) nvlink |= link_family(t.link(Topology::direction_link(d)).kind) == LinkFamily::NvLink;
    }
  for (DeviceId d : t.host_devices(*t.find_host(h.name)))
    if (t.device(d).kind == DeviceKind::Nic)
      for (const Adjacency& a : t.neighbors(d))
        if (!is_host_internal(t.device(a.peer).kind)) inter = std::max(inter, t.link(a.link).bandwidth.gigabytes_per_second());
  bool cross = false;
  for (const HostChannel& c : h.channels) cross |= c.nic_in != c.nic_out;
  std::string s = "<graphs version=\"1\">\n";
  for (int id : {0, 1}) {
    s += "  <graph id=\"" + std::to_string(id) + "\" pattern=\"" + (id == 0 ? "4" : "1") + "\" crossnic=\"" +
         (cross ? "1" : "0") + "\" nchannels=\"" + std::to_string(h.channels.size()) + "\" speedintra=\"" +
         one_decimal(intra) + "\" speedinter=\"" + one_decimal(multi_host ? inter : intra) +
         "\" latencyinter=\"0\" typeintra=\"" + (nvlink ? "NVL" : "PHB") + "\" typeinter=\"" + (multi_host ? "PIX" : "LOC") +
         "\" samechannels=\"0\">\n";
    for (const HostChannel& c : h.channels) {
      s += "    <channel>\n";
      if (multi_host) s += "      <net dev=\"" + hex(c.nic_in) + "\"/>\n";
      for (int r : c.local_ranks) s += "      <gpu dev=\"" + hex(r) + "\"/>\n";
      if (multi_host) s += "      <net dev=\"" + hex(c.nic_out) + "\"/>\n";
      s += "    </channel>\n";
    }
    s += "  </graph>\n";
  }
  return s + "</graphs>\n";
}

std::string check_script(const Plan& p) {
  std::string expected, ring;
  for (const HostPlan& h : p.hosts)
    for (int i = 0; i < h.size(); ++i)
      expected += std::to_string(h.first_rank + i) + " " + h.name + " " + std::to_string(h.gpus[std::size_t(i)]) + "\n";
  for (int r = 0; r < p.ranks(); ++r) ring += (r ? " " : "") + std::to_string(r);
  std::string s = R"SH(#!/bin/sh
# ringlab self-check: did NCCL take the plan? Checks, from NCCL_DEBUG=INFO output, that NCCL loaded the
# graph file ("channels loaded from XML graph", NCCL src/graph/search.cc), that every rank landed on its
# planned host and GPU (the "Init COMPLETE" line: host prefix, rank, nvmlDev) and that channel 0's ring
# ("Channel 00/NN :" printed by rank 0) is the planned one.
# Usage: ./check.sh COMMAND ARGS...   runs one NCCL job (e.g. mpirun ... all_reduce_perf -b 8 -e 8) and checks it
#        ./check.sh --log FILE        checks an existing NCCL_DEBUG=INFO log
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--log" ]; then
  log=$2
else
  log=$(mktemp)
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV RINGLAB_PLAN_DIR="$here" "$@" >"$log" 2>&1 || echo "note: the command failed; checking its output anyway"
fi
fail=0
if grep -q "channels loaded from XML graph" "$log"; then
  echo "PASS NCCL loaded the graph file"
else
  echo "FAIL NCCL did not load a graph file (NCCL_GRAPH_FILE unset or unreadable, or crossnic=1 with NCCL_CROSS_NIC=0)"
  fail=1
fi
expected=$(mktemp)
cat >"$expected" <<'PLAN'
)SH" + expected + R"SH(PLAN
awk -v plan="$expected" '
BEGIN { while ((getline line < plan) > 0) { split(line, f, " "); host[f[1]] = f[2]; gpu[f[1]] = f[3]; n++ } }
/Init COMPLETE/ {
  h = $0; sub(/:.*/, "", h); sub(/\..*/, "", h)
  r = ""; g = ""
  for (i = 1; i < NF; i++) { if ($i == "rank") r = $(i + 1); if ($i == "nvmlDev") g = $(i + 1) }
  if (r == "") next
  seen[r] = 1
  if (h != host[r]) { printf "FAIL rank %s runs on %s, planned %s\n", r, h, host[r]; bad = 1 }
  else if (g != "" && g != gpu[r]) { printf "FAIL rank %s runs on GPU %s of %s, planned GPU %s\n", r, g, h, gpu[r]; bad = 1 }
}
END {
  for (r = 0; r < n; r++) if (!(r in seen)) { printf "FAIL rank %d: no Init COMPLETE line\n", r; bad = 1 }
  if (!bad) printf "PASS %d ranks on their planned hosts and GPUs\n", n
  exit bad
}' "$log" || fail=1
ring=")SH" + ring + R"SH("
got=$(grep -m1 "Channel 00/[0-9]* :" "$log" | sed 's/.*Channel 00\/[0-9]* ://' | tr -s ' ' | sed 's/^ //;s/ $//')
if [ -z "$got" ]; then
  echo "FAIL no 'Channel 00/NN :' ring line in the log"; fail=1
elif [ "$got" = "$ring" ]; then
  echo "PASS channel 0 ring is the planned ring"
else
  echo "FAIL channel 0 ring: planned $ring, NCCL built $got"; fail=1
fi
rm -f "$expected"
exit $fail
)SH";
  return s;
}

std::string readme(const Plan& p) {
  return "ringlab plan bundle for " + p.scenario + ": " + std::to_string(p.ranks()) + " ranks on " +
         std::to_string(p.hosts.size()) + " hosts (docs/plan-format.md)\n"
         "  Open MPI:   mpirun --hostfile hostfile --map-by slot -x NCCL_GRAPH_FILE ... (or the rankfile)\n"
         "  Slurm:      ./srun.sh python train.py        (SLURM_HOSTFILE=slurm.hosts, --distribution=arbitrary)\n"
         "  MPICH:      mpiexec -f machinefile ...\n"
         "  torchrun:   ./torchrun.sh train.py           (on every node; static rendezvous)\n"
         "  TensorFlow: TF_CONFIG=$(cat tf_config/$(hostname -s).json)\n"
         "  NCCL:       set -a; . ./nccl.env; set +a     (system settings; nccl-debug.env only to reproduce)\n"
         "  per host:   CUDA_VISIBLE_DEVICES=$(./gpus.sh) so local rank i uses the planned GPU\n"
         "  check:      ./check.sh mpirun --hostfile hostfile ... all_reduce_perf -b 8 -e 8\n"
         "  verify the files still encode the plan: ringlab plan --check DIR\n";
}

}  // namespace

std::vector<BundleFile> launch_files(const Topology& t, const Plan& p) {
  std::vector<BundleFile> files;
  files.push_back({"plan.json", plan_to_json(t, p).dump(2) + "\n", false});
  files.push_back({"README.txt", readme(p), false});
  files.push_back({"hostfile", hostfile(p), false});
  files.push_back({"rankfile", rankfile(p), false});
  files.push_back({"slurm.hosts", slurm_hosts(p), false});
  files.push_back({"srun.sh", srun_script(p), true});
  files.push_back({"gpus.sh", gpus_script(p), true});
  files.push_back({"machinefile", machinefile(p), false});
  files.push_back({"torchrun.sh", torchrun_script(p), true});
  for (std::size_t k = 0; k < p.hosts.size(); ++k)
    files.push_back({"tf_config/" + p.hosts[k].name + ".json", tf_config(p, k), false});
  files.push_back({"nccl.env", env_file(p, false), false});
  files.push_back({"nccl-debug.env", env_file(p, true), false});
  for (const HostPlan& h : p.hosts) files.push_back({"nccl-graph/" + h.name + ".xml", graph_xml(t, p, h), false});
  files.push_back({"check.sh", check_script(p), true});
  return files;
}

void write_bundle(const Topology& t, const Plan& p, const std::string& dir) {
  namespace fs = std::filesystem;
  for (const BundleFile& f : launch_files(t, p)) {
    const fs::path path = fs::path(dir) / f.path;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path temp = path.string() + ".tmp";
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << f.text;
      out.close();
      if (!out) {
        fs::remove(temp, ec);
        throw InputError(path.string(), "", "cannot write the file");
      }
    }
    if (f.executable) fs::permissions(temp, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                                 fs::perms::others_read | fs::perms::others_exec, ec);
    fs::rename(temp, path, ec);
    if (ec) {
      fs::remove(temp);
      throw InputError(path.string(), "", "cannot write the file: " + ec.message());
    }
  }
}

// ---- check -----------------------------------------------------------------------------------------

namespace {

struct Checker {
  std::string dir;
  std::vector<std::string> problems;

  std::optional<std::vector<std::string>> lines(const std::string& name) {
    std::ifstream in(std::filesystem::path(dir) / name);
    if (!in) {
      problems.push_back(name + ": missing");
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  void problem(const std::string& file, std::size_t line, const std::string& what) {
    problems.push_back(file + ":" + std::to_string(line) + ": " + what);
  }
  /// Compares the file's meaningful lines (comments and blanks skipped) with `expected`, in order.
  void same_lines(const std::string& file, const std::vector<std::string>& expected) {
    const auto got = lines(file);
    if (!got) return;
    std::size_t k = 0;
    for (std::size_t i = 0; i < got->size(); ++i) {
      std::string l = (*got)[i];
      while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.pop_back();
      if (l.empty() || l[0] == '#') continue;
      if (k >= expected.size()) problem(file, i + 1, "unexpected line '" + l + "'");
      else if (l != expected[k]) problem(file, i + 1, "expected '" + expected[k] + "', found '" + l + "'");
      ++k;
    }
    if (k < expected.size()) problem(file, got->size(), "missing line '" + expected[k] + "' and " + std::to_string(expected.size() - k - 1) + " more");
  }
};

std::vector<std::string> meaningful(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') out.push_back(l);
  return out;
}

void check_graph(Checker& c, const Plan& p, const HostPlan& h) {
  const std::string name = "nccl-graph/" + h.name + ".xml";
  const auto text = c.lines(name);
  if (!text) return;
  for (std::size_t i = 0; i < text->size(); ++i)
    if ((*text)[i].find('\t') != std::string::npos) c.problem(name, i + 1, "a tab character (NCCL's XML parser rejects tabs)");
  pugi::xml_document doc;
  const std::string all = [&] {
    std::string s;
    for (const auto& l : *text) s += l + "\n";
    return s;
  }();
  const pugi::xml_parse_result parsed = doc.load_string(all.c_str());
  if (!parsed) {
    c.problems.push_back(name + ": not XML: " + parsed.description());
    return;
  }
  if (all.rfind("<?xml", 0) == 0) c.problem(name, 1, "an <?xml?> prolog (NCCL's parser does not take one)");
  const pugi::xml_node graphs = doc.child("graphs");
  int counts[2] = {-1, -1};
  for (const pugi::xml_node g : graphs.children("graph")) {
    const int id = g.attribute("id").as_int(-1);
    const int declared = g.attribute("nchannels").as_int(-1);
    int children = 0;
    for (const pugi::xml_node ch : g.children("channel")) {
      std::vector<int> gpus;
      for (const pugi::xml_node gpu : ch.children("gpu")) {
        if (gpu.attribute("rank")) c.problems.push_back(name + ": <gpu rank=...> names a global rank: the file is valid on one node only");
        const std::string dev = gpu.attribute("dev").value();
        if (dev.rfind("0x", 0) != 0) c.problems.push_back(name + ": gpu dev '" + dev + "' is not hex (NCCL parses dev as hex)");
        gpus.push_back(int(std::strtol(dev.c_str(), nullptr, 16)));
      }
      if (children < int(h.channels.size()) && gpus != h.channels[std::size_t(children)].local_ranks)
        c.problems.push_back(name + ": graph " + std::to_string(id) + " channel " + std::to_string(children) +
                             ": GPUs differ from the plan's");
      ++children;
    }
    if (declared != children)
      c.problems.push_back(name + ": graph " + std::to_string(id) + " says nchannels=\"" + std::to_string(declared) +
                           "\" but has " + std::to_string(children) + " <channel> elements (NCCL trusts nchannels)");
    if (id == 0 || id == 1) counts[id] = children;
  }
  if (counts[0] != int(h.channels.size())) c.problems.push_back(name + ": graph id 0 (ring) does not hold the plan's " + std::to_string(h.channels.size()) + " channels");
  if (counts[0] != counts[1]) c.problems.push_back(name + ": graphs 0 and 1 have different channel counts (NCCL takes the minimum)");
  (void)p;
}

}  // namespace

std::vector<std::string> check_bundle(const Topology& t, const std::string& dir) {
  const std::string plan_path = (std::filesystem::path(dir) / "plan.json").string();
  const Plan p = plan_from_json(t, read_json_file(plan_path, "plan"), plan_path);
  Checker c{dir, {}};
  const std::vector<BundleFile> files = launch_files(t, p);
  auto expected = [&](const std::string& name) {
    for (const BundleFile& f : files)
      if (f.path == name) return meaningful(f.text);
    return std::vector<std::string>{};
  };
  for (const char* name : {"hostfile", "rankfile", "slurm.hosts", "machinefile", "gpus.sh", "torchrun.sh"})
    c.same_lines(name, expected(name));
  for (std::size_t k = 0; k < p.hosts.size(); ++k) {
    const std::string name = "tf_config/" + p.hosts[k].name + ".json";
    const auto text = c.lines(name);
    if (!text) continue;
    std::string all;
    for (const auto& l : *text) all += l;
    const nlohmann::json want = nlohmann::json::parse(tf_config(p, k));
    const nlohmann::json got = nlohmann::json::parse(all, nullptr, false);
    if (got.is_discarded()) c.problems.push_back(name + ": not valid JSON");
    else if (got.value("/task/index"_json_pointer, -1) != int(k))
      c.problems.push_back(name + ": task.index is " + got.value("/task/index"_json_pointer, nlohmann::json()).dump() +
                           ", expected " + std::to_string(k));
    else if (got != want) c.problems.push_back(name + ": cluster.worker differs from the planned node order");
  }
  for (const HostPlan& h : p.hosts) check_graph(c, p, h);
  return c.problems;
}

}  // namespace ringlab::planner
