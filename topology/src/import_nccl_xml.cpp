// NCCL topology XML (what NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads), parsed with pugixml:
//   <system version="1"> <cpu numaid=..> <pci busid class link_speed link_width> ... </pci> </cpu> </system>
// with <gpu dev sm rank gdr> (children <nvlink target count tclass/>) inside a GPU's <pci>, and
// <nic><net name dev speed(Mb/s) port .../></nic> inside a NIC's <pci> or directly inside a <cpu>.
//
// Mapping: each <cpu> is a CPU; each PCI bridge (class 0x0604xx) with a GPU or NIC below it is a PCIe
// switch; each GPU / <net> is a GPU / NIC attached by its <pci> element's link (link_speed -> pcie
// generation, link_width -> lanes). NVLinks to another GPU's bus id are direct links; all others
// (NVSwitch bus ids, or the "fffffff:ff:ff.0" placeholder of VM dumps) go to one logical NVSwitch, the
// GPU's link counts summed. Devices are numbered GPUs by dev, CPUs and switches in document order,
// NICs by net dev.
#include <pugixml.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "import_common.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab {
namespace {

constexpr unsigned kClassMask = 0xff0000;
constexpr unsigned kBridgeClass = 0x060400;
constexpr unsigned kBridgeMask = 0xffff00;
constexpr unsigned kDisplayClass = 0x030000;
constexpr unsigned kNetworkClass = 0x020000;
constexpr double kMbps = 1e6;

enum class Kind { Cpu, Bridge, Gpu, Nic, Other };

struct PcieLink {
  std::optional<double> gt_per_s;
  std::optional<int> width;
};

struct Element {
  Kind kind = Kind::Other;
  int parent = -1;  // index into elements, -1 for a CPU
  int line = 0;
  PcieLink link;
  std::string busid;
  bool used = false;  // a bridge with a GPU or NIC below it
  // GPU
  int dev = -1;
  std::optional<GpuModel> model;
  std::vector<std::tuple<std::string, int, int>> nvlinks;  // target, count, line
  // NIC
  std::string name;
  std::optional<Bandwidth> speed;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

class XmlParser {
 public:
  XmlParser(std::string_view text, const std::string& file, const std::string& host)
      : text_(text), problems_(file), file_(file), host_(host) {}

  NodeLayout parse() {
    pugi::xml_document doc;
    const pugi::xml_parse_result r = doc.load_buffer(text_.data(), text_.size());
    if (!r)
      throw InputError(file_, detail::line_location(line_of(std::size_t(r.offset))),
                       std::string("malformed XML: ") + r.description());
    const pugi::xml_node system = doc.child("system");
    if (!system) throw InputError(file_, "line 1", "no <system> element: expected an NCCL topology XML");
    for (pugi::xml_node cpu : system.children()) {
      if (std::string_view(cpu.name()) != "cpu") {
        problems_.add(at(cpu), "unexpected <" + std::string(cpu.name()) + ">: expected <cpu> elements in <system>");
        continue;
      }
      Element e{.kind = Kind::Cpu, .line = line_of(cpu)};
      elements_.push_back(e);
      walk_children(cpu, int(elements_.size()) - 1);
    }
    if (elements_.empty()) problems_.add(at(system), "no <cpu> element: expected at least one <cpu>");
    problems_.throw_if_any();
    return build();
  }

 private:
  int line_of(std::size_t offset) const {
    return 1 + int(std::count(text_.begin(), text_.begin() + std::ptrdiff_t(std::min(offset, text_.size())), '\n'));
  }
  int line_of(const pugi::xml_node& n) const { return line_of(std::size_t(n.offset_debug())); }
  std::string at(const pugi::xml_node& n) const { return detail::line_location(line_of(n)); }

  std::optional<long> int_attr(const pugi::xml_node& n, const char* name, bool required, long lo = 0) {
    const pugi::xml_attribute a = n.attribute(name);
    if (!a) {
      if (required) problems_.add(at(n), "<" + std::string(n.name()) + "> has no " + name + "=: expected an integer");
      return std::nullopt;
    }
    const std::string v = a.value();
    char* end = nullptr;
    const long x = std::strtol(v.c_str(), &end, 0);
    if (v.empty() || *end != '\0' || x < lo) {
      problems_.add(at(n), std::string(name) + "=\"" + v + "\": expected an integer >= " + std::to_string(lo));
      return std::nullopt;
    }
    return x;
  }

  PcieLink pcie_link(const pugi::xml_node& pci) {
    PcieLink link;
    const std::string speed = pci.attribute("link_speed").value();
    char* end = nullptr;
    const double gt = std::strtod(speed.c_str(), &end);
    if (!speed.empty() && end != speed.c_str()) {
      const bool known = std::any_of(detail::kPcieGens.begin(), detail::kPcieGens.end(),
                                     [&](const detail::PcieRow& r) { return r.gt_per_s == gt; });
      if (known) link.gt_per_s = gt;
      else problems_.add(at(pci), "link_speed=\"" + speed + "\": expected 2.5, 5, 8, 16, 32 or 64 GT/s");
    }
    if (pci.attribute("link_width")) {
      if (auto w = int_attr(pci, "link_width", false, 1)) link.width = int(*w);
    }
    return link;
  }

  void walk_children(const pugi::xml_node& node, int parent) {
    for (pugi::xml_node child : node.children()) {
      const std::string_view name = child.name();
      if (name == "pci") walk_pci(child, parent);
      else if (name == "nic") add_nets(child, parent);
      else if (name == "gpu" || name == "nvlink" || name == "c2c") continue;  // read with their <pci>
      else problems_.add(at(child), "unexpected <" + std::string(name) + ">: expected <pci> or <nic>");
    }
  }

  void walk_pci(const pugi::xml_node& pci, int parent) {
    const auto cls = int_attr(pci, "class", true);
    if (!cls) return;
    Element e{.parent = parent, .line = line_of(pci), .link = pcie_link(pci), .busid = lower(pci.attribute("busid").value())};
    const unsigned c = unsigned(*cls);
    const pugi::xml_node gpu = pci.child("gpu"), nic = pci.child("nic");
    if ((c & kBridgeMask) == kBridgeClass) e.kind = Kind::Bridge;
    else if (gpu || (c & kClassMask) == kDisplayClass) e.kind = Kind::Gpu;
    else if (nic || (c & kClassMask) == kNetworkClass) e.kind = Kind::Nic;
    if (e.kind == Kind::Gpu) read_gpu(gpu, e);
    elements_.push_back(e);
    const int self = int(elements_.size()) - 1;
    if (e.kind == Kind::Other) {
      ++ignored_;
      return;
    }
    if (e.kind == Kind::Nic && nic) return add_nets(nic, parent, self);
    if (e.kind == Kind::Nic) {  // a bare NIC <pci>, as in NCCL_TOPO_FILE files without <nic>
      elements_[std::size_t(self)].dev = bare_nics_++;
      return mark_used(self);
    }
    if (e.kind == Kind::Gpu) return mark_used(self);
    walk_children(pci, self);
  }

  void read_gpu(const pugi::xml_node& gpu, Element& e) {
    if (!gpu) {
      e.dev = int(gpu_count_++);
      return;
    }
    ++gpu_count_;
    if (auto dev = int_attr(gpu, "dev", true)) e.dev = int(*dev);
    if (auto sm = int_attr(gpu, "sm", false)) {
      e.model = detail::model_of_sm(int(*sm));
      if (!e.model) unknown_sm_.insert(int(*sm));
    }
    for (pugi::xml_node l : gpu.children("nvlink")) {
      const auto count = int_attr(l, "count", true, 1);
      if (count) e.nvlinks.emplace_back(lower(l.attribute("target").value()), int(*count), line_of(l));
    }
  }

  // Each <net> of a <nic> is one NIC device. Inside a NIC's <pci> (index `pci`), the first one takes
  // that element and the others copy its place and link; directly inside a <cpu>, they attach to it.
  void add_nets(const pugi::xml_node& nic, int parent, std::optional<int> pci = std::nullopt) {
    bool first = pci.has_value();
    for (pugi::xml_node net : nic.children()) {
      if (std::string_view(net.name()) != "net") {
        problems_.add(at(net), "unexpected <" + std::string(net.name()) + "> in <nic>: expected <net>");
        continue;
      }
      Element e = pci ? elements_[std::size_t(*pci)] : Element{.kind = Kind::Nic, .parent = parent};
      e.line = line_of(net);
      e.name = net.attribute("name").value();
      if (auto dev = int_attr(net, "dev", true)) e.dev = int(*dev);
      if (auto speed = int_attr(net, "speed", false, 1)) e.speed = Bandwidth::from_bits_per_second(double(*speed) * kMbps);
      if (first) {
        elements_[std::size_t(*pci)] = e;
        mark_used(*pci);
      } else {
        elements_.push_back(e);
        mark_used(int(elements_.size()) - 1);
      }
      first = false;
    }
  }

  void mark_used(int i) {
    for (int p = elements_[std::size_t(i)].parent; p >= 0; p = elements_[std::size_t(p)].parent)
      elements_[std::size_t(p)].used = true;
  }

  // ---- building ----

  void assume(const std::string& text) { report_.assumptions.push_back(file_ + ": " + text); }

  GpuModel gpu_model() {
    std::set<GpuModel> models;
    for (const Element& e : elements_)
      if (e.kind == Kind::Gpu) models.insert(e.model.value_or(GpuModel::Generic));
    if (models.size() > 1) report_.warnings.push_back(file_ + ": GPUs of several models: all taken as the first GPU's");
    for (int sm : unknown_sm_) assume("sm=" + std::to_string(sm) + " is not in the SM table: GPU model generic");
    for (const Element& e : elements_)
      if (e.kind == Kind::Gpu) return e.model.value_or(GpuModel::Generic);
    return GpuModel::Generic;
  }

  // Kind and bandwidth of a PCIe link; the template's generation and width fill what the file omits.
  std::pair<LinkKind, std::optional<Bandwidth>> pcie(const PcieLink& l, const NodeSpec& tmpl, int& width) {
    width = l.width.value_or(tmpl.pcie_lanes);
    if (!l.gt_per_s) {
      defaulted_pcie_ = true;
      return {tmpl.pcie, std::nullopt};
    }
    if (!l.width) defaulted_pcie_ = true;
    for (const detail::PcieRow& row : detail::kPcieGens) {
      if (row.gt_per_s != *l.gt_per_s) continue;
      if (row.kind) return {*row.kind, std::nullopt};
      return {detail::kPcieLegacyTimingKind, Bandwidth::from_bits_per_second(row.gt_per_s * 1e9 * row.encoding * width)};
    }
    return {tmpl.pcie, std::nullopt};
  }

  bool near_gpu(std::size_t nic) const {
    std::set<int> bridges;
    for (int p = elements_[nic].parent; p >= 0; p = elements_[std::size_t(p)].parent)
      if (elements_[std::size_t(p)].kind == Kind::Bridge) bridges.insert(p);
    for (const Element& e : elements_) {
      if (e.kind != Kind::Gpu) continue;
      for (int p = e.parent; p >= 0; p = elements_[std::size_t(p)].parent)
        if (bridges.count(p)) return true;
    }
    return false;
  }

  std::vector<std::size_t> sorted_by_dev(Kind kind) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < elements_.size(); ++i)
      if (elements_[i].kind == kind) out.push_back(i);
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return elements_[a].dev < elements_[b].dev; });
    for (std::size_t k = 1; k < out.size(); ++k)
      if (elements_[out[k]].dev == elements_[out[k - 1]].dev)
        problems_.add(detail::line_location(elements_[out[k]].line),
                      "dev=\"" + std::to_string(elements_[out[k]].dev) + "\" repeats (line " +
                          std::to_string(elements_[out[k - 1]].line) + "): expected unique device numbers");
    return out;
  }

  NodeLayout build() {
    const GpuModel model = gpu_model();
    const NodeSpec tmpl = node_template(detail::template_of_model(model));
    const auto gpus = sorted_by_dev(Kind::Gpu);
    const auto nics = sorted_by_dev(Kind::Nic);
    problems_.throw_if_any();
    if (gpus.empty()) throw InputError(file_, "", "no GPU: expected <pci> elements with a <gpu> (or a GPU class)");

    detail::LayoutBuilder b(file_, host_);
    std::vector<std::optional<DeviceId>> id(elements_.size());
    for (std::size_t g : gpus) id[g] = b.add_gpu(model);
    add_nvlinks(b, gpus, id, model, tmpl);
    problems_.throw_if_any();
    for (std::size_t i = 0; i < elements_.size(); ++i)
      if (elements_[i].kind == Kind::Cpu) id[i] = b.add_cpu();
    for (std::size_t i = 0; i < elements_.size(); ++i)
      if (elements_[i].kind == Kind::Bridge && elements_[i].used) id[i] = b.add_pcie_switch();
    add_nics(b, nics, id, tmpl);
    for (std::size_t i = 0; i < elements_.size(); ++i) {
      const Element& e = elements_[i];
      if (!id[i] || e.parent < 0) continue;
      int width = 0;
      const auto [kind, bandwidth] = pcie(e.link, tmpl, width);
      b.link(*id[i], *id[std::size_t(e.parent)], kind, width, bandwidth);
    }
    std::vector<DeviceId> cpus;
    for (std::size_t i = 0; i < elements_.size(); ++i)
      if (elements_[i].kind == Kind::Cpu) cpus.push_back(*id[i]);
    for (std::size_t x = 0; x < cpus.size(); ++x)
      for (std::size_t y = x + 1; y < cpus.size(); ++y) b.link(cpus[x], cpus[y], LinkKind::Smp, 0);
    if (defaulted_pcie_)
      assume("PCIe links without link_speed or link_width: " + std::string(to_string(tmpl.pcie)) + " x" +
             std::to_string(tmpl.pcie_lanes) + " as in template " + std::string(to_string(tmpl.base)));
    if (ignored_) assume(std::to_string(ignored_) + " PCI device(s) that are neither GPU, NIC nor bridge are left out");
    if (cpus.size() > 1) assume("CPUs joined pairwise by smp links (defaults table)");
    b.report().append(report_);
    return b.take();
  }

  void add_nvlinks(detail::LayoutBuilder& b, const std::vector<std::size_t>& gpus,
                   const std::vector<std::optional<DeviceId>>& id, GpuModel model, const NodeSpec& tmpl) {
    std::map<std::string, std::size_t> gpu_by_bus;
    for (std::size_t g : gpus) gpu_by_bus[elements_[g].busid] = g;
    std::set<std::string> switch_targets;
    std::vector<int> to_switch(elements_.size(), 0);
    std::map<std::pair<std::size_t, std::size_t>, int> direct;
    for (std::size_t g : gpus) {
      for (const auto& [target, count, line] : elements_[g].nvlinks) {
        const auto peer = gpu_by_bus.find(target);
        if (peer == gpu_by_bus.end()) {
          switch_targets.insert(target);
          to_switch[g] += count;
          continue;
        }
        if (peer->second == g) {
          problems_.add(detail::line_location(line), "<nvlink target=\"" + target +
                                                         "\"> is the GPU's own bus id: expected another GPU or an NVSwitch");
          continue;
        }
        const auto key = std::minmax(g, peer->second);
        direct.emplace(std::pair{key.first, key.second}, count);  // listed from both ends: first wins
      }
    }
    const LinkKind nvlink = gpu_spec(model).nvlink;
    if (!switch_targets.empty()) {
      const DeviceId nvswitch = b.add_nvswitch(tmpl.nvswitch_reduction);
      for (std::size_t g : gpus)
        if (to_switch[g]) b.link(*id[g], nvswitch, nvlink, to_switch[g]);
      assume(std::to_string(switch_targets.size()) + " NVSwitch target(s) merged into one logical NVSwitch" +
             (tmpl.nvswitch_reduction ? " with NVLink SHARP, as in template " + std::string(to_string(tmpl.base)) : ""));
    }
    for (const auto& [pair, count] : direct) b.link(*id[pair.first], *id[pair.second], nvlink, count);
    if (!direct.empty() || !switch_targets.empty())
      assume("NVLink generation " + std::string(to_string(nvlink)) + " of GPU model " + std::string(to_string(model)) +
             " (GPU table)");
  }

  void add_nics(detail::LayoutBuilder& b, const std::vector<std::size_t>& nics, std::vector<std::optional<DeviceId>>& id,
                const NodeSpec& tmpl) {
    bool defaulted = false;
    for (std::size_t n : nics) {
      const Element& e = elements_[n];
      LinkKind port = tmpl.nic;
      Bandwidth bw = Topology::default_link(0, 1, tmpl.nic, tmpl.nic_ports).bandwidth;
      if (e.speed) {
        bw = *e.speed;
        port = detail::network_kind_of_rate(bw).value_or(detail::kIbLegacyTimingKind);
      } else {
        defaulted = true;
      }
      id[n] = b.add_nic(e.name, port, bw, near_gpu(n));
    }
    if (defaulted) assume("NICs without speed=: " + std::string(to_string(tmpl.nic)) + " as in template " +
                          std::string(to_string(tmpl.base)));
    if (!nics.empty()) assume("NIC speeds mapped to InfiniBand kinds first, then Ethernet (NCCL's net does not say which)");
  }

  std::string_view text_;
  ProblemList problems_;
  std::string file_, host_;
  std::vector<Element> elements_;
  std::set<int> unknown_sm_;
  std::size_t gpu_count_ = 0;
  int ignored_ = 0;
  int bare_nics_ = 0;
  bool defaulted_pcie_ = false;
  ImportReport report_;
};

}  // namespace

NodeLayout parse_nccl_topo_xml(std::string_view text, const std::string& file, const std::string& host) {
  return XmlParser(text, file, host).parse();
}

}  // namespace ringlab
