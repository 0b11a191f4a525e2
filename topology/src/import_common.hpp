// Shared pieces of the importers (private): line splitting, a builder for node layouts, and lookups
// in the import defaults table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import_defaults.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/import.hpp"

namespace ringlab::detail {

/// Sanity bound on the names one hostlist may expand to (against typos such as "n[0-99999999]"), and
/// on the names a whole Slurm file may expand to (many such lines would otherwise exhaust memory).
inline constexpr std::size_t kMaxHostlistNames = 1'000'000;

/// Counts the names a Slurm file's hostlists expand to, against kMaxHostlistNames.
class NameBudget {
 public:
  /// Adds `count` names; false (and nothing added) when the file would pass the bound.
  bool take(std::size_t count) {
    if (count > kMaxHostlistNames - used_) return false;
    used_ += count;
    return true;
  }
  std::string message() const {
    return "the file's hostlists expand to more than " + std::to_string(kMaxHostlistNames) +
           " names in all: expected at most that many switches and nodes";
  }

 private:
  std::size_t used_ = 0;
};

/// One line of a text file, 1-based number and text without the line break (and without a '\r').
struct TextLine {
  int number = 0;
  std::string_view text;
};
std::vector<TextLine> split_lines(std::string_view text);
std::string_view trim(std::string_view s);
/// Whitespace-separated fields (spaces and tabs).
std::vector<std::string_view> split_fields(std::string_view s);
std::string line_location(int line);  ///< "line 12"
bool iequals(std::string_view a, std::string_view b);
/// Name order with digit runs compared as numbers: node2 < node10.
bool natural_less(const std::string& a, const std::string& b);
/// A non-negative integer, or nullopt when `s` is not one.
std::optional<long> parse_count(std::string_view s);

/// GPU model of a CUDA compute capability (sm), from kSmModels.
std::optional<GpuModel> model_of_sm(int sm);
/// The SM of a GPU model, from the GPU table (GpuSpec::sm); nullopt for generic.
std::optional<int> sm_of_model(GpuModel model);
/// The template of a GPU model (first template built on that model), else kImportPolicy's fallback.
NodeTemplate template_of_model(GpuModel model);
/// The kind of `family` (InfiniBand or Ethernet) whose port rate equals `rate`, if any.
std::optional<LinkKind> network_kind_of_rate(Bandwidth rate, LinkFamily family);

/// Builds a NodeLayout device by device. Device names are "<host>/<stem><local index>" ("nvswitch"
/// has no index), as the generators name them.
class LayoutBuilder {
 public:
  LayoutBuilder(std::string file, std::string host);
  DeviceId add_gpu(GpuModel model);
  DeviceId add_cpu();
  DeviceId add_pcie_switch();
  DeviceId add_nvswitch(bool reduction);
  DeviceId add_nic(std::string hca, LinkKind port, Bandwidth bandwidth, bool near_gpu,
                   Transport transport = Transport::Rdma);
  /// A link with the kind's defaults, its bandwidth replaced when `bandwidth` is given.
  void link(DeviceId a, DeviceId b, LinkKind kind, int lanes, std::optional<Bandwidth> bandwidth = std::nullopt);
  void set_cpu_vendor(CpuVendor vendor) { layout_.node.set_cpu_vendor(host_, vendor); }
  ImportReport& report() { return layout_.report; }
  NodeLayout take() { return std::move(layout_); }
  const Topology& node() const { return layout_.node; }

 private:
  DeviceId add(Device d, std::string_view stem, bool indexed);
  NodeLayout layout_;
  HostId host_;
  std::string host_name_;
  std::vector<int> counts_;  // per DeviceKind
};

/// Adds a Slurm-style tree (switch name -> child switches and nodes) to `fabric`: checks that every
/// named child switch exists and that there is no cycle, derives leaf/spine/core from each switch's
/// height, and adds one hca-less link per (node, leaf) and (child, parent) switch pair.
struct SlurmSwitch {
  std::string name;
  std::vector<std::string> switches;
  std::vector<std::string> nodes;
  std::string location;  ///< "line 4", for problems
};
void add_slurm_tree(Fabric& fabric, const std::vector<SlurmSwitch>& switches, ProblemList& problems);

}  // namespace ringlab::detail
