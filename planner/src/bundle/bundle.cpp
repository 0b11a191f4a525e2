// launch_files() and write_bundle(): the bundle's file list and its atomic writer, with the helpers
// every writer and the checker share (bundle_internal.hpp).
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bundle/bundle_internal.hpp"
#include "ringlab/planner/plan_json.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/output_file.hpp"

namespace ringlab::planner {
namespace bundle {

constexpr int kJsonIndent = 2;
/// Names NCCL's documentation lists as debugging-only: "should not be used in production nor
/// retained in scripts" (docs/userguide env.rst; launchers.md 4).
constexpr std::array<const char*, 6> kDebugOnly{"NCCL_ALGO",          "NCCL_PROTO",    "NCCL_MIN_NCHANNELS",
                                                "NCCL_MAX_NCHANNELS", "NCCL_P2P_LEVEL", "NCCL_PXN_DISABLE"};

std::string join(const std::vector<int>& values, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + std::to_string(values[i]);
  return out;
}

std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

std::string host_pattern(const std::string& host) {
  const std::string s = short_name(host);
  return s == host ? host + "|" + host + ".*" : host + "|" + s;
}

std::vector<int> global_ring(const Plan& plan, int channel) {
  std::vector<int> ring;
  for (const HostPlan& h : plan.hosts)
    for (int local : h.channels[std::size_t(channel)].local_ranks) ring.push_back(h.first_rank + local);
  const auto zero = std::find(ring.begin(), ring.end(), 0);
  std::rotate(ring.begin(), zero, ring.end());
  return ring;
}

std::size_t host_of_rank(const Plan& plan, int rank) {
  for (std::size_t h = 0; h < plan.hosts.size(); ++h)
    if (rank >= plan.hosts[h].first_rank && rank < plan.hosts[h].first_rank + plan.hosts[h].size()) return h;
  throw std::invalid_argument("rank " + std::to_string(rank) + " is on no host of the plan");
}

bool is_debug_setting(const NcclSetting& setting) {
  return setting.debug_only ||
         std::find(kDebugOnly.begin(), kDebugOnly.end(), setting.name) != kDebugOnly.end();
}

std::vector<GraphChannel> graph_channels(const Plan& plan, std::size_t host) {
  const HostPlan& h = plan.hosts[host];
  std::vector<GraphChannel> out;
  for (const HostChannel& c : h.channels) {
    GraphChannel g;
    g.has_nets = plan.hosts.size() > 1;
    // A host with no NIC on the route (nic -1) still needs a net in a multi-node graph: NIC 0.
    g.net_in = std::max(c.nic_in, 0);
    g.net_out = std::max(c.nic_out, 0);
    for (int local : c.local_ranks) g.gpus.push_back(h.gpus[std::size_t(local)]);
    out.push_back(std::move(g));
  }
  return out;
}

int graph_crossnic(const Plan& plan, std::size_t host) {
  for (const GraphChannel& c : graph_channels(plan, host))
    if (c.has_nets && c.net_in != c.net_out) return 1;
  return 0;
}

BundleFile plan_file(const Topology& topology, const Plan& plan) {
  return {"plan.json", plan_to_json(topology, plan).dump(kJsonIndent) + "\n", false,
          "the plan: rank order, hosts, channels, NCCL settings (ringlab simulate --rank-order reads it)"};
}

BundleFile readme(const std::vector<BundleFile>& files) {
  std::string text =
      "Launch bundle written by `ringlab plan` (docs/plan-format.md). Every file encodes the same rank\n"
      "order; `ringlab plan --check DIR` re-reads them all. Copy the folder to a path every node sees.\n\n";
  std::size_t width = 0;
  for (const BundleFile& f : files) width = std::max(width, f.path.size());
  for (const BundleFile& f : files)
    text += f.path + std::string(width + 2 - f.path.size(), ' ') + f.purpose + "\n";
  text += "README.txt" + std::string(width + 2 - std::string("README.txt").size(), ' ') + "this list\n";
  return {"README.txt", text, false, "which file serves which launcher"};
}

namespace {

bool is_portable_name(const std::string& name) {
  return !name.empty() && name[0] != '.' && name[0] != '-' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                  c == '_';
         });
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename (write_output);
/// scripts then get their execute bits.
void write_atomically(const std::filesystem::path& path, const std::string& text, bool executable) {
  write_output(path.string(), [&](std::ostream& out) { out << text; });
  if (!executable) return;
  using std::filesystem::perms;
  std::error_code ec;
  std::filesystem::permissions(
      path, perms::owner_all | perms::group_read | perms::group_exec | perms::others_read | perms::others_exec, ec);
  if (ec) throw InputError(path.string(), "", "cannot make the script executable: " + ec.message());
}

}  // namespace
}  // namespace bundle

std::vector<BundleFile> launch_files(const Topology& topology, const Plan& plan) {
  using namespace bundle;
  for (const HostPlan& h : plan.hosts)
    if (!is_portable_name(h.name))
      throw std::invalid_argument("host name '" + h.name +
                                  "' cannot be written into launch files: letters, digits, '.', '-' and '_' only");
  std::vector<BundleFile> files;
  files.push_back(plan_file(topology, plan));
  files.push_back(hostfile(plan));
  files.push_back(rankfile(topology, plan));
  files.push_back(machinefile(plan));
  files.push_back(slurm_hosts(plan));
  files.push_back(srun_script(plan));
  files.push_back(torchrun_script(plan));
  for (std::size_t h = 0; h < plan.hosts.size(); ++h) files.push_back(tf_config(plan, h));
  files.push_back(nccl_env(plan));
  files.push_back(nccl_debug_env(plan));
  for (std::size_t h = 0; h < plan.hosts.size(); ++h) files.push_back(graph_file(topology, plan, h));
  files.push_back(check_script(plan));
  files.insert(files.begin() + 1, readme(files));
  return files;
}

void write_bundle(const Topology& topology, const Plan& plan, const std::string& dir) {
  const std::vector<BundleFile> files = launch_files(topology, plan);  // all text first: nothing half-written
  for (const BundleFile& f : files) {
    const std::filesystem::path path = std::filesystem::path(dir) / f.path;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw InputError(path.parent_path().string(), "", "cannot create the folder: " + ec.message());
    bundle::write_atomically(path, f.text, f.executable);
  }
}

}  // namespace ringlab::planner
