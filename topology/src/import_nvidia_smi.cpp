// `nvidia-smi topo -m`: the GPU/NIC connection matrix of one host.
//
// Cells: X (self), NV# (# bonded NVLinks), PIX (at most one PCIe bridge), PXB (several bridges, no host
// bridge), PHB (through a host bridge), NODE (between host bridges of one NUMA node), SYS (across the
// SMP interconnect; SOC in old drivers). Trailing columns: CPU Affinity, NUMA Affinity, GPU NUMA ID
// (GPU rows only). NIC columns are NIC0.. with a "NIC Legend" (NIC0: mlx5_0) or mlx5_N directly.
//
// The layout rebuilt from it: one CPU per NUMA node (GPUs by their NUMA / CPU affinity, NICs by their
// PCIe relation to GPUs), one PCIe switch per group of devices joined by PIX or PXB, everything else
// attached to its CPU; NVLink through one NVSwitch when every GPU pair shows the same NV# (3+ GPUs),
// else direct links per pair. What the matrix cannot say (GPU model, PCIe generation, NIC speed) comes
// from the template of the GPU model the NVLink count points to, and is written to the report.
#include <algorithm>
#include <map>
#include <numeric>
#include <regex>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

enum class Rel { Self, NvLink, Pix, Pxb, Phb, Node, Sys };

struct Cell {
  Rel rel = Rel::Sys;
  int nvlinks = 0;
};

std::optional<Cell> parse_cell(std::string_view s) {
  if (s == "X") return Cell{Rel::Self, 0};
  if (s == "PIX") return Cell{Rel::Pix, 0};
  if (s == "PXB") return Cell{Rel::Pxb, 0};
  if (s == "PHB") return Cell{Rel::Phb, 0};
  if (s == "NODE") return Cell{Rel::Node, 0};
  if (s == "SYS" || s == "SOC") return Cell{Rel::Sys, 0};
  if (s.size() > 2 && s.starts_with("NV"))
    if (auto n = detail::parse_count(s.substr(2)); n && *n > 0) return Cell{Rel::NvLink, int(*n)};
  return std::nullopt;
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

std::string strip_ansi(std::string_view s) {
  static const std::regex escape("\x1b\\[[0-9;]*m");
  return std::regex_replace(std::string(s), escape, "");
}

bool is_gpu_column(std::string_view s) { return s.starts_with("GPU") && detail::parse_count(s.substr(3)).has_value(); }

class SmiParser {
 public:
  SmiParser(const std::string& file, const std::string& host) : problems_(file), file_(file), host_(host) {}

  NodeLayout parse(std::string_view text) {
    read(text);
    problems_.throw_if_any();
    return build();
  }

 private:
  // ---- reading ----

  void read(std::string_view text) {
    bool in_legend = false, in_nic_legend = false;
    for (const detail::TextLine& l : detail::split_lines(text)) {
      const std::string line = strip_ansi(l.text);
      const auto fields = detail::split_fields(line);
      if (fields.empty()) continue;
      if (fields[0] == "Legend:") in_legend = true;
      if (fields[0] == "NIC" && fields.size() > 1 && fields[1] == "Legend:") {
        in_nic_legend = true;
        continue;
      }
      if (in_nic_legend) {
        read_nic_legend(fields, l.number);
        continue;
      }
      if (in_legend || fields[0].starts_with("$")) continue;
      if (columns_.empty()) {
        read_header(line, fields, l.number);
        continue;
      }
      read_row(fields, l.number);
    }
    if (columns_.empty()) {
      problems_.add("", "no header row: expected a line of column names such as \"GPU0 GPU1 ... CPU Affinity\"");
      return;
    }
    for (std::size_t i = 0; i < columns_.size(); ++i)
      if (!row_line_[i])
        problems_.add(detail::line_location(header_line_), "no row for column " + columns_[i] +
                                                               ": expected one row per column");
  }

  void read_header(const std::string& line, const std::vector<std::string_view>& fields, int number) {
    if (!is_gpu_column(fields[0])) {
      problems_.add(detail::line_location(number), "unexpected text before the header: expected the column names "
                                                   "(GPU0 GPU1 ... CPU Affinity)");
      return;
    }
    header_line_ = number;
    for (std::string_view f : fields) {
      if (f == "CPU") break;  // "CPU Affinity", then the other affinity columns
      columns_.emplace_back(f);
    }
    for (const char* name : {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"})
      if (line.find(name) != std::string::npos) affinity_columns_.emplace_back(name);
    for (const std::string& c : columns_) (is_gpu_column(c) ? gpus_ : nics_).push_back(index_of(c));
    cells_.assign(columns_.size(), std::vector<Cell>(columns_.size()));
    row_line_.assign(columns_.size(), 0);
    numa_.assign(columns_.size(), "");
  }

  std::size_t index_of(const std::string& c) const {
    return std::size_t(std::find(columns_.begin(), columns_.end(), c) - columns_.begin());
  }

  void read_row(const std::vector<std::string_view>& fields, int number) {
    const std::string where = detail::line_location(number);
    const std::size_t row = index_of(std::string(fields[0]));
    if (row == columns_.size()) {
      problems_.add(where, "row \"" + std::string(fields[0]) + "\" is not a column of the header: expected one of " +
                               column_list());
      return;
    }
    if (row_line_[row]) {
      problems_.add(where, "second row for " + columns_[row] + " (first at line " + std::to_string(row_line_[row]) +
                               "): expected one row per column");
      return;
    }
    row_line_[row] = number;
    const bool gpu = is_gpu_column(columns_[row]);
    const std::size_t n = columns_.size();
    const std::size_t extra = fields.size() - 1 - std::min(fields.size() - 1, n);
    if (fields.size() - 1 < n || (!gpu && extra > 0) || (gpu && extra > affinity_columns_.size())) {
      problems_.add(where, "row " + columns_[row] + " has " + std::to_string(fields.size() - 1) + " entries: expected " +
                               std::to_string(n) + " connections (" + column_list() + ")" +
                               (gpu ? " followed by up to " + std::to_string(affinity_columns_.size()) +
                                          " affinity values"
                                    : ""));
      return;
    }
    for (std::size_t c = 0; c < n; ++c) {
      const auto cell = parse_cell(fields[1 + c]);
      if (!cell) {
        problems_.add(where, "unknown connection \"" + std::string(fields[1 + c]) + "\" in column " + columns_[c] +
                                 ": expected X, NV#, PIX, PXB, PHB, NODE or SYS");
        continue;
      }
      if ((cell->rel == Rel::Self) != (c == row))
        problems_.add(where, "column " + columns_[c] + ": " + (c == row ? "expected X on the diagonal"
                                                                       : "X off the diagonal: expected a connection"));
      if (cell->rel == Rel::NvLink && !(gpu && is_gpu_column(columns_[c])))
        problems_.add(where, "NVLink between " + columns_[row] + " and " + columns_[c] +
                                 ": expected NV# only between GPUs");
      cells_[row][c] = *cell;
    }
    read_affinity(fields, row, n);
  }

  // NUMA key of a GPU: its NUMA Affinity when numeric, else its CPU Affinity.
  void read_affinity(const std::vector<std::string_view>& fields, std::size_t row, std::size_t n) {
    std::map<std::string, std::string> values;
    for (std::size_t k = 0; k < affinity_columns_.size() && 1 + n + k < fields.size(); ++k)
      values[affinity_columns_[k]] = std::string(fields[1 + n + k]);
    if (auto numa = values["NUMA Affinity"]; detail::parse_count(numa)) numa_[row] = "numa " + numa;
    else if (auto cpus = values["CPU Affinity"]; !cpus.empty() && cpus != "N/A") numa_[row] = "cpus " + cpus;
  }

  void read_nic_legend(const std::vector<std::string_view>& fields, int number) {
    if (fields.size() == 2 && fields[0].ends_with(":")) {
      const std::string nic(fields[0].substr(0, fields[0].size() - 1));
      if (index_of(nic) != columns_.size()) {
        legend_[nic] = std::string(fields[1]);
        return;
      }
    }
    problems_.add(detail::line_location(number), "bad NIC legend line: expected \"NICn: <device>\" for a NIC column");
  }

  std::string column_list() const {
    std::string out;
    for (const std::string& c : columns_) out += (out.empty() ? "" : " ") + c;
    return out;
  }

  // ---- building ----

  // Same NV# between every GPU pair -> that count through an NVSwitch (with 3+ GPUs).
  std::optional<int> uniform_nvlinks() const {
    if (gpus_.size() < 3) return std::nullopt;
    const Cell first = cells_[gpus_[0]][gpus_[1]];
    for (std::size_t a : gpus_)
      for (std::size_t b : gpus_)
        if (a != b && (cells_[a][b].rel != Rel::NvLink || cells_[a][b].nvlinks != first.nvlinks)) return std::nullopt;
    return first.nvlinks;
  }

  // GPU model whose NVLinks per GPU equal `links` (first in the GPU table), else generic. No NVLink
  // names no model (several PCIe boards have none).
  static GpuModel model_with_nvlinks(int links) {
    if (links <= 0) return GpuModel::Generic;
    for (int m = 0; m < kGpuModelCount; ++m)
      if (GpuModel(m) != GpuModel::Generic && gpu_spec(GpuModel(m)).nvlinks == links) return GpuModel(m);
    return GpuModel::Generic;
  }

  int max_nvlinks_per_gpu() const {
    int best = 0;
    for (std::size_t a : gpus_) {
      int sum = 0;
      for (std::size_t b : gpus_) sum += a != b && cells_[a][b].rel == Rel::NvLink ? cells_[a][b].nvlinks : 0;
      best = std::max(best, sum);
    }
    return best;
  }

  void assume(const std::string& text) { layout_report_.assumptions.push_back(file_ + ": " + text); }

  NodeLayout build() {
    const auto nvswitch_links = uniform_nvlinks();
    const int per_gpu = nvswitch_links ? *nvswitch_links : max_nvlinks_per_gpu();
    const GpuModel model = model_with_nvlinks(per_gpu);
    const NodeSpec tmpl = node_template(detail::template_of_model(model));
    const LinkKind nvlink = gpu_spec(model).nvlink;
    if (per_gpu == 0)
      assume("no NVLink: GPU model unknown, taken as generic");
    else
      assume(std::to_string(per_gpu) + " NVLinks per GPU: GPU model assumed " + std::string(to_string(model)) +
             " with " + std::string(to_string(nvlink)) + " (GPU table)");
    assume("no PCIe generation or width: " + std::string(to_string(tmpl.pcie)) + " x" + std::to_string(tmpl.pcie_lanes) +
           ", NIC ports " + std::string(to_string(tmpl.nic)) + " as in template " + std::string(to_string(tmpl.base)));

    detail::LayoutBuilder b(file_, host_);
    std::vector<DeviceId> id(columns_.size());
    for (std::size_t g : gpus_) id[g] = b.add_gpu(model);
    add_nvlinks(b, id, nvswitch_links, nvlink, tmpl.nvswitch_reduction);

    const auto [cpu_of, cpu_count] = cpu_groups();
    std::vector<DeviceId> cpus;
    for (int c = 0; c < cpu_count; ++c) cpus.push_back(b.add_cpu());
    UnionFind sw(columns_.size());
    for (std::size_t a = 0; a < columns_.size(); ++a)
      for (std::size_t c = 0; c < columns_.size(); ++c)
        if (cells_[a][c].rel == Rel::Pix || cells_[a][c].rel == Rel::Pxb) sw.join(a, c);
    std::map<std::size_t, DeviceId> switch_of_root;
    std::map<std::size_t, bool> root_has_gpu;
    for (std::size_t d = 0; d < columns_.size(); ++d) {
      const std::size_t r = sw.find(d);
      root_has_gpu[r] = root_has_gpu[r] || is_gpu_column(columns_[d]);
      if (r == d) continue;
      if (!switch_of_root.count(r)) {
        switch_of_root[r] = b.add_pcie_switch();
        b.link(switch_of_root[r], cpus[std::size_t(cpu_of[r])], tmpl.pcie, tmpl.pcie_lanes);
      }
    }
    const bool any_pxb = std::any_of(cells_.begin(), cells_.end(), [](const auto& row) {
      return std::any_of(row.begin(), row.end(), [](const Cell& c) { return c.rel == Rel::Pxb; });
    });
    if (any_pxb) assume("PXB (several PCIe bridges) is modelled as one PCIe switch, like PIX");
    add_nics(b, id, root_has_gpu, sw, tmpl);
    for (std::size_t d = 0; d < columns_.size(); ++d) {
      auto it = switch_of_root.find(sw.find(d));
      const DeviceId parent = it != switch_of_root.end() ? it->second : cpus[std::size_t(cpu_of[d])];
      b.link(id[d], parent, tmpl.pcie, tmpl.pcie_lanes);
    }
    for (std::size_t x = 0; x < cpus.size(); ++x)
      for (std::size_t y = x + 1; y < cpus.size(); ++y) b.link(cpus[x], cpus[y], LinkKind::Smp, 0);
    b.report().append(layout_report_);
    NodeLayout layout = b.take();
    layout.cpu_vendor_assumption = file_ + ": topo -m does not show the CPU vendor: Intel CPUs, ringlab's default "
                                           "(NCCL's PCIe overhead and tuning depend on it; --cpu-vendor, or the "
                                           "hosts' cpu_vendor key, says otherwise)";
    return layout;
  }

  void add_nvlinks(detail::LayoutBuilder& b, const std::vector<DeviceId>& id, std::optional<int> nvswitch_links,
                   LinkKind nvlink, bool reduction) {
    if (nvswitch_links) {
      const DeviceId nvswitch = b.add_nvswitch(reduction);
      for (std::size_t g : gpus_) b.link(id[g], nvswitch, nvlink, *nvswitch_links);
      assume("the same NV" + std::to_string(*nvswitch_links) + " between every GPU pair: one NVSwitch" +
             (reduction ? " with NVLink SHARP, as in the template" : ""));
      return;
    }
    for (std::size_t x = 0; x < gpus_.size(); ++x)
      for (std::size_t y = x + 1; y < gpus_.size(); ++y)
        if (const Cell c = cells_[gpus_[x]][gpus_[y]]; c.rel == Rel::NvLink) b.link(id[gpus_[x]], id[gpus_[y]], nvlink, c.nvlinks);
  }

  void add_nics(detail::LayoutBuilder& b, std::vector<DeviceId>& id, std::map<std::size_t, bool>& root_has_gpu,
                UnionFind& sw, const NodeSpec& tmpl) {
    const Bandwidth port = Topology::default_link(0, 1, tmpl.nic, tmpl.nic_ports).bandwidth;
    bool unnamed = false;
    for (std::size_t n : nics_) {
      const std::string& column = columns_[n];
      std::string hca = column.starts_with("NIC") ? (legend_.count(column) ? legend_.at(column) : "") : column;
      unnamed = unnamed || hca.empty();
      id[n] = b.add_nic(hca, tmpl.nic, port, root_has_gpu[sw.find(n)]);
    }
    if (unnamed) assume("NIC columns without a NIC Legend: HCA names unknown");
  }

  // CPU (NUMA node) of every device: GPUs grouped by NUMA key, joined with every device they reach
  // without crossing SYS. Groups are numbered by their lowest NUMA key, then by first device.
  std::pair<std::vector<int>, int> cpu_groups() {
    UnionFind u(columns_.size());
    std::map<std::string, std::size_t, bool (*)(const std::string&, const std::string&)> first_with_key(
        detail::natural_less);
    for (std::size_t d = 0; d < columns_.size(); ++d) {
      if (numa_[d].empty()) continue;
      auto [it, fresh] = first_with_key.emplace(numa_[d], d);
      if (!fresh) u.join(d, it->second);
    }
    for (std::size_t a = 0; a < columns_.size(); ++a)
      for (std::size_t c = 0; c < columns_.size(); ++c)
        if (cells_[a][c].rel != Rel::Sys && cells_[a][c].rel != Rel::NvLink) u.join(a, c);
    std::map<std::size_t, int> number;
    for (const auto& [key, d] : first_with_key) number.emplace(u.find(d), int(number.size()));
    for (std::size_t d = 0; d < columns_.size(); ++d) number.emplace(u.find(d), int(number.size()));
    std::vector<int> cpu(columns_.size());
    for (std::size_t d = 0; d < columns_.size(); ++d) cpu[d] = number.at(u.find(d));
    if (first_with_key.empty()) assume("no CPU or NUMA affinity: CPUs inferred from the SYS entries");
    return {cpu, int(number.size())};
  }

  ProblemList problems_;
  std::string file_, host_;
  std::vector<std::string> columns_;
  std::vector<std::string> affinity_columns_;
  std::vector<std::size_t> gpus_, nics_;
  std::vector<std::vector<Cell>> cells_;
  std::vector<int> row_line_;
  std::vector<std::string> numa_;
  std::map<std::string, std::string> legend_;
  int header_line_ = 0;
  ImportReport layout_report_;
};

}  // namespace

NodeLayout parse_nvidia_smi_topo(std::string_view text, const std::string& file, const std::string& host) {
  return SmiParser(file, host).parse(text);
}

}  // namespace ringlab
