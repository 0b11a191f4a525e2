// NCCL topology XML (what NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads), parsed with pugixml:
//   <system version="1"> <cpu numaid=..> <pci busid class link_speed link_width> ... </pci> </cpu> </system>
// with <gpu dev sm rank gdr> (children <nvlink target count tclass/>) inside a GPU's <pci>, and
// <nic><net name dev speed(Mb/s) port .../></nic> inside a NIC's <pci> or directly inside a <cpu>.
//
// Mapping: each <cpu> is a CPU; each PCI bridge (class 0x0604xx) with a GPU or NIC below it is a PCIe
// switch; each GPU / <net> is a GPU / NIC attached by its <pci> element's link (link_speed -> pcie
// generation, link_width -> lanes; link_width="0", what VMs report, takes the template's width).
// NVLinks to another GPU's bus id are direct links; NVLinks to NVSwitches (tclass 0x068000, or the
// "fffffff:ff:ff.0" placeholder of VM dumps) go to one logical NVSwitch, the GPU's link counts summed;
// NVLinks to GPUs or CPUs the file does not list are left out with a warning. Devices are numbered GPUs
// by dev, CPUs and switches in document order, NICs by net dev.
//
// What real files leave out, and what is then assumed (each said in the ImportReport):
//  - NCCL_TOPO_FILE hints (Azure NDv4/NDv5, AWS p4d) list GPUs as bare <pci> elements without <gpu>:
//    the GPU model comes from the PCI device id when the file gives one, else from the fill template
//    (--node-template); their NVLink is the template's when one applies, else none (a warning).
//  - A NIC is InfiniBand when its PCI class says so (0x0207xx); an RDMA NIC (a GUID, an mlx* name) on
//    an Ethernet class (0x0200xx) is RoCE; an RDMA NIC without a class could be either: InfiniBand is
//    assumed and said. Its kind is the one of its family with the <net speed> rate (Mb/s).
#include <pugixml.hpp>

#include <algorithm>
#include <cstdio>
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
  bool unreported_width = false;  // link_width="0"
};

struct NvLinkRef {
  std::string target;
  int count = 0;
  int line = 0;
  std::optional<unsigned> tclass;
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
  std::vector<NvLinkRef> nvlinks;
  // NIC
  std::string name;
  std::string guid;
  std::optional<Bandwidth> speed;
  // PCI identity, for files without <gpu sm> or <net speed>
  unsigned pci_class = 0;
  std::optional<unsigned> vendor, device;
  bool gpu_element = false;  // a <gpu> child: NCCL's dump; without one, the file says nothing of NVLink
  bool sxm = false;          // model read from an SXM module's PCI device id
};

enum class NicFamily { InfiniBand, Ethernet, RoCE, RdmaUnknown };

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

/// A hexadecimal attribute ("0x10de"), nullopt when absent or not a number.
std::optional<unsigned> hex_attr(const pugi::xml_node& n, const char* name) {
  const std::string v = n.attribute(name).value();
  char* end = nullptr;
  const unsigned long x = std::strtoul(v.c_str(), &end, 16);
  if (v.empty() || *end != '\0') return std::nullopt;
  return unsigned(x);
}

const detail::PciGpuRow* pci_gpu(const Element& e) {
  if (e.vendor != detail::kPciVendorNvidia || !e.device) return nullptr;
  for (const detail::PciGpuRow& row : detail::kPciGpus)
    if (row.device == *e.device) return &row;
  return nullptr;
}

const detail::PciNicRow* pci_nic(const Element& e) {
  if (!e.vendor || !e.device) return nullptr;
  for (const detail::PciNicRow& row : detail::kPciNics)
    if (row.vendor == *e.vendor && row.device == *e.device) return &row;
  return nullptr;
}

std::string hex(unsigned x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%06x", x);
  return buf;
}

class XmlParser {
 public:
  XmlParser(std::string_view text, const std::string& file, const std::string& host, std::optional<NodeTemplate> fill)
      : text_(text), problems_(file), file_(file), host_(host), fill_(fill) {}

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
      if (!socket_link_) {
        socket_link_ = socket_link(cpu);
        vendor_ = cpu_vendor(cpu);
      }
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
    if (std::string_view(pci.attribute("link_width").value()) == "0") {
      link.unreported_width = true;  // VMs (Azure ND, IBM Cloud) pass devices through without their width
    } else if (pci.attribute("link_width")) {
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
    e.pci_class = c;
    e.vendor = hex_attr(pci, "vendor");
    e.device = hex_attr(pci, "device");
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
    const detail::PciGpuRow* row = pci_gpu(e);
    e.sxm = row && row->sxm;
    if (row && !gpu.attribute("sm")) {  // the model by PCI id only when the file gives no sm=
      e.model = row->model;
      by_pci_id_.insert(hex(*e.device).substr(4) + " (" + std::string(row->name) + ")");
    }
    if (!gpu) {
      e.dev = int(gpu_count_++);
      return;
    }
    e.gpu_element = true;
    ++gpu_count_;
    if (auto dev = int_attr(gpu, "dev", true)) e.dev = int(*dev);
    if (auto sm = int_attr(gpu, "sm", false)) {
      e.model = detail::model_of_sm(int(*sm));
      if (!e.model) unknown_sm_.insert(int(*sm));
    }
    for (pugi::xml_node l : gpu.children("nvlink")) {
      const auto count = int_attr(l, "count", true, 1);
      if (count)
        e.nvlinks.push_back(NvLinkRef{lower(l.attribute("target").value()), int(*count), line_of(l), hex_attr(l, "tclass")});
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
      e.guid = lower(net.attribute("guid").value());
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

  struct SocketLink {
    LinkKind kind;
    std::string why;
  };
  /// The socket link kind of a <cpu>'s vendor and CPUID family/model, by NCCL's own rule (src/graph/topo.cc
  /// ncclTopoAddCpu and ncclTopoGetInterCpuBw): Intel family 6 from model 0xCF Emerald Rapids, from 0x8F
  /// Sapphire Rapids, from 0x55 Skylake-class UPI, below that Broadwell's QPI; AMD xGMI. Other CPUs
  /// (Arm, POWER, Zhaoxin) or a file without the attributes: the generic smp link.
  static SocketLink socket_link(const pugi::xml_node& cpu) {
    const std::string arch = cpu.attribute("arch").value(), vendor = cpu.attribute("vendor").value();
    const std::string name = "vendor " + (vendor.empty() ? std::string("not given") : vendor);
    if (arch != "x86_64") return {LinkKind::Smp, "arch " + (arch.empty() ? std::string("not given") : arch)};
    if (vendor == "AuthenticAMD") return {LinkKind::Xgmi, name};
    if (vendor != "GenuineIntel") return {LinkKind::Smp, name};
    if (!cpu.attribute("familyid") || !cpu.attribute("modelid")) return {LinkKind::Smp, name + " without familyid/modelid"};
    const int family = cpu.attribute("familyid").as_int(-1), model = cpu.attribute("modelid").as_int(-1);
    const std::string id = name + " family " + std::to_string(family) + " model " + std::to_string(model);
    if (family != 6) return {LinkKind::Qpi, id};
    if (model >= 0xCF) return {LinkKind::UpiEmr, id};
    if (model >= 0x8F) return {LinkKind::UpiSpr, id};
    if (model >= 0x55) return {LinkKind::Smp, id};
    return {LinkKind::Qpi, id};
  }

  struct Vendor {
    CpuVendor vendor;
    std::string why;  ///< non-empty: an assumption to report
  };
  /// A <cpu>'s vendor as NCCL reads it (ncclTopoAddCpu): x86_64 Intel or AMD by the CPUID vendor,
  /// another architecture or vendor Other; a <cpu> that names neither, ringlab's default (Intel's).
  static Vendor cpu_vendor(const pugi::xml_node& cpu) {
    const std::string arch = cpu.attribute("arch").value(), vendor = cpu.attribute("vendor").value();
    if (!arch.empty() && arch != "x86_64") return {CpuVendor::Other, ""};
    if (vendor == "GenuineIntel") return {CpuVendor::Intel, ""};
    if (vendor == "AuthenticAMD") return {CpuVendor::Amd, ""};
    if (!vendor.empty()) return {CpuVendor::Other, ""};
    return {CpuVendor::Intel, "the <cpu> names no vendor: an Intel CPU, ringlab's default (--cpu-vendor says otherwise)"};
  }

  GpuModel gpu_model() {
    std::set<GpuModel> models;
    for (const Element& e : elements_)
      if (e.kind == Kind::Gpu) models.insert(e.model.value_or(GpuModel::Generic));
    if (models.size() > 1) report_.warnings.push_back(file_ + ": GPUs of several models: all taken as the first GPU's");
    for (int sm : unknown_sm_) assume("sm=" + std::to_string(sm) + " is not in the SM table: GPU model generic");
    std::string ids;
    for (const std::string& id : by_pci_id_) ids += (ids.empty() ? "" : ", ") + id;
    if (!ids.empty()) assume("GPU model from the PCI device id " + ids + " (PCI ID table), the file giving no sm=");
    const auto first = std::find_if(elements_.begin(), elements_.end(), [](const Element& e) { return e.kind == Kind::Gpu; });
    const std::optional<GpuModel> named = first == elements_.end() ? std::nullopt : first->model;
    if (fill_ && named && *named != node_template(*fill_).gpu_model)
      report_.warnings.push_back(file_ + ": the file's GPU model " + std::string(to_string(*named)) + " differs from template " +
                                 std::string(to_string(*fill_)) + "'s; the file's is kept");
    if (named) return *named;
    if (fill_) {
      const GpuModel m = node_template(*fill_).gpu_model;
      assume("the file names no GPU model (no sm=, no known PCI device id): " + std::string(to_string(m)) +
             " of template " + std::string(to_string(*fill_)));
      return m;
    }
    if (first != elements_.end()) assume("the file names no GPU model (no sm=, no known PCI device id): generic; give "
                                   "--node-template to name the machine");
    return GpuModel::Generic;
  }

  // Kind and bandwidth of a PCIe link; the template's generation and width fill what the file omits.
  std::pair<LinkKind, std::optional<Bandwidth>> pcie(const PcieLink& l, const NodeSpec& tmpl, int& width) {
    width = l.width.value_or(tmpl.pcie_lanes);
    unreported_width_ += l.unreported_width;
    if (!l.gt_per_s) {
      defaulted_pcie_ = true;
      return {tmpl.pcie, std::nullopt};
    }
    if (!l.width && !l.unreported_width) defaulted_pcie_ = true;
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
    const NodeSpec tmpl = node_template(fill_.value_or(detail::template_of_model(model)));
    const auto gpus = sorted_by_dev(Kind::Gpu);
    const auto nics = sorted_by_dev(Kind::Nic);
    problems_.throw_if_any();
    if (gpus.empty()) throw InputError(file_, "", "no GPU: expected <pci> elements with a <gpu> (or a GPU class)");

    detail::LayoutBuilder b(file_, host_);
    std::vector<std::optional<DeviceId>> id(elements_.size());
    for (std::size_t g : gpus) id[g] = b.add_gpu(model);
    add_nvlinks(b, gpus, id, model, tmpl);
    problems_.throw_if_any();
    add_assumed_nvlinks(b, gpus, id, model);
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
      for (std::size_t y = x + 1; y < cpus.size(); ++y) b.link(cpus[x], cpus[y], socket_link_->kind, 0);
    b.set_cpu_vendor(vendor_->vendor);
    if (unreported_width_)
      assume(std::to_string(unreported_width_) + " PCI link(s) with link_width=\"0\" (a VM that does not report the width): x" +
             std::to_string(tmpl.pcie_lanes) + " as in template " + std::string(to_string(tmpl.base)) +
             ", at the generation of their link_speed");
    if (defaulted_pcie_)
      assume("PCIe links without link_speed or link_width: " + std::string(to_string(tmpl.pcie)) + " x" +
             std::to_string(tmpl.pcie_lanes) + " as in template " + std::string(to_string(tmpl.base)));
    if (ignored_) assume(std::to_string(ignored_) + " PCI device(s) that are neither GPU, NIC nor bridge are left out");
    if (cpus.size() > 1)
      assume("CPUs joined pairwise by " + std::string(to_string(socket_link_->kind)) + " links (" + socket_link_->why +
             ", defaults table)");
    b.report().append(report_);
    NodeLayout layout = b.take();
    layout.cpu_vendor_stated = vendor_->why.empty();
    if (!layout.cpu_vendor_stated) layout.cpu_vendor_assumption = file_ + ": " + vendor_->why;
    return layout;
  }

  void add_nvlinks(detail::LayoutBuilder& b, const std::vector<std::size_t>& gpus,
                   const std::vector<std::optional<DeviceId>>& id, GpuModel model, const NodeSpec& tmpl) {
    std::map<std::string, std::size_t> gpu_by_bus;
    for (std::size_t g : gpus) gpu_by_bus[elements_[g].busid] = g;
    std::set<std::string> switch_targets;
    std::vector<int> to_switch(elements_.size(), 0);
    std::map<std::pair<std::size_t, std::size_t>, int> direct;
    for (std::size_t g : gpus) {
      for (const auto& [target, count, line, tclass] : elements_[g].nvlinks) {
        const auto peer = gpu_by_bus.find(target);
        if (peer == gpu_by_bus.end()) {
          if (const std::string what = unlisted_target(tclass); !what.empty()) {
            report_.warnings.push_back(file_ + ": " + detail::line_location(line) + ": <nvlink target=\"" + target + "\"> (" +
                                       std::to_string(count) + " links) goes to " + what +
                                       " the file does not list: left out");
            continue;
          }
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

  // What an <nvlink> target that is no listed GPU is, from its tclass: "" for an NVSwitch (tclass
  // 0x068000, or none given, as in older dumps), else "a GPU" / "a device of class ..." to leave out.
  static std::string unlisted_target(std::optional<unsigned> tclass) {
    if (!tclass || (*tclass & detail::kPciSubclassMask) == detail::kPciClassNvSwitch) return "";
    if ((*tclass & kClassMask) == detail::kPciBaseClassDisplay) return "a GPU (tclass " + hex(*tclass) + ")";
    return "a device of class " + hex(*tclass) + " (a CPU or bridge, not an NVSwitch)";
  }

  // GPUs without a <gpu> element (a PCI-only NCCL_TOPO_FILE): the file does not say their NVLink. It is
  // taken from the fill template, or from the GPU model's template when every GPU is an SXM module of
  // that model and their number is the template's; otherwise none is modelled, with a warning.
  void add_assumed_nvlinks(detail::LayoutBuilder& b, const std::vector<std::size_t>& gpus,
                           const std::vector<std::optional<DeviceId>>& id, GpuModel model) {
    std::size_t bare = 0;
    for (std::size_t g : gpus) bare += !elements_[g].gpu_element;
    if (bare != gpus.size()) return;
    std::optional<NodeTemplate> source = fill_;
    const bool all_sxm = std::all_of(gpus.begin(), gpus.end(), [&](std::size_t g) { return elements_[g].sxm; });
    if (!source && all_sxm) {
      const NodeTemplate t = detail::template_of_model(model);
      if (node_template(t).gpu_model == model && std::size_t(node_template(t).gpus) == gpus.size()) source = t;
    }
    const std::string what = std::to_string(gpus.size()) + " GPU(s) without a <gpu> element (a PCI-only NCCL_TOPO_FILE): ";
    if (!source || node_template(*source).gpu_interconnect != GpuInterconnect::NvSwitch) {
      report_.warnings.push_back(file_ + ": " + what + "the file does not say their NVLink, so none is modelled" +
                                 (source ? " (template " + std::string(to_string(*source)) + " has no NVSwitch)"
                                         : "; give --node-template to take a template's"));
      return;
    }
    const NodeSpec t = node_template(*source);
    const DeviceId nvswitch = b.add_nvswitch(t.nvswitch_reduction);
    for (std::size_t g : gpus) b.link(*id[g], nvswitch, t.nvlink, t.nvlinks);
    assume(what + "NVLink as in template " + std::string(to_string(*source)) + ": " + std::to_string(t.nvlinks) + " " +
           std::string(to_string(t.nvlink)) + " links per GPU to one NVSwitch" +
           (fill_ ? " (--node-template)" : " (" + std::to_string(gpus.size()) + " SXM GPUs of that model)"));
  }

  // InfiniBand or Ethernet, from the NIC's PCI class and whether it is an RDMA device (see the top).
  static NicFamily family_of(const Element& e) {
    const unsigned sub = e.pci_class & detail::kPciSubclassMask;
    if (sub == detail::kPciClassInfiniBand) return NicFamily::InfiniBand;
    const bool rdma = (!e.guid.empty() && e.guid != "0x0") || e.name.starts_with("mlx");
    if (sub == detail::kPciClassEthernet) return rdma ? NicFamily::RoCE : NicFamily::Ethernet;
    return rdma ? NicFamily::RdmaUnknown : NicFamily::Ethernet;
  }

  void add_nics(detail::LayoutBuilder& b, const std::vector<std::size_t>& nics, std::vector<std::optional<DeviceId>>& id,
                const NodeSpec& tmpl) {
    std::map<NicFamily, std::vector<std::string>> by_family;
    std::set<std::string> defaulted, by_pci_id;
    std::vector<std::string> efa_nics;
    for (std::size_t n : nics) {
      const Element& e = elements_[n];
      const NicFamily family = family_of(e);
      const LinkFamily link_family = family == NicFamily::InfiniBand || family == NicFamily::RdmaUnknown
                                         ? LinkFamily::InfiniBand
                                         : LinkFamily::Ethernet;
      Bandwidth bw = Topology::default_link(0, 1, tmpl.nic, tmpl.nic_ports).bandwidth;
      if (e.speed) {
        bw = *e.speed;
      } else if (const detail::PciNicRow* row = pci_nic(e)) {
        bw = Bandwidth::from_bits_per_second(row->gbps * 1e9);
        by_pci_id.insert(std::string(row->name) + " " + hex(*e.device).substr(4) + ": " + gbps(bw));
      }
      const LinkKind fallback = link_family == LinkFamily::InfiniBand ? detail::kIbLegacyTimingKind : detail::kEthCustomTimingKind;
      const LinkKind port = detail::network_kind_of_rate(bw, link_family).value_or(fallback);
      if (!e.speed && !pci_nic(e))
        defaulted.insert(gbps(bw) + " " + std::string(to_string(port)) +
                         (family == NicFamily::InfiniBand ? " (InfiniBand by PCI class 0x0207)" : ""));
      const std::string name = e.name.empty() ? "nic" + std::to_string(e.dev) : e.name;
      by_family[family].push_back(name);
      const bool efa = e.vendor == detail::kPciVendorAmazon && link_family == LinkFamily::Ethernet;
      if (efa) efa_nics.push_back(name);
      id[n] = b.add_nic(e.name, port, bw, near_gpu(n), efa ? Transport::Srd : Transport::Rdma);
    }
    for (const std::string& d : defaulted)
      assume("NICs without speed=: " + d + ", the rate of template " + std::string(to_string(tmpl.base)) + "'s NIC (" +
             std::string(to_string(tmpl.nic)) + ") in the NIC's own family");
    for (const std::string& p : by_pci_id) assume("NIC speed from the PCI device id: " + p + " (PCI NIC table)");
    const auto names = [](const std::vector<std::string>& v) {
      std::string out;
      for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
      return out;
    };
    if (!efa_nics.empty())
      assume("NICs " + names(efa_nics) + " are AWS EFA devices (PCI vendor 0x1d0f): transport srd");
    if (by_family.count(NicFamily::RoCE))
      assume("RDMA NICs " + names(by_family[NicFamily::RoCE]) +
             " sit on PCI class 0x020000 (Ethernet controller): RoCE, Ethernet kinds (an InfiniBand port is class 0x020700)");
    if (by_family.count(NicFamily::RdmaUnknown))
      assume("RDMA NICs " + names(by_family[NicFamily::RdmaUnknown]) +
             " have no PCI class: NCCL's XML does not tell InfiniBand from RoCE here; InfiniBand assumed");
  }

  static std::string gbps(Bandwidth b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g Gb/s", b.gbps());
    return buf;
  }

  std::string_view text_;
  ProblemList problems_;
  std::string file_, host_;
  std::optional<NodeTemplate> fill_;
  std::vector<Element> elements_;
  std::set<std::string> by_pci_id_;
  int unreported_width_ = 0;
  std::set<int> unknown_sm_;
  std::optional<SocketLink> socket_link_;  // from the first <cpu>
  std::optional<Vendor> vendor_;          // from the first <cpu>
  std::size_t gpu_count_ = 0;
  int ignored_ = 0;
  int bare_nics_ = 0;
  bool defaulted_pcie_ = false;
  ImportReport report_;
};

}  // namespace

NodeLayout parse_nccl_topo_xml(std::string_view text, const std::string& file, const std::string& host,
                               std::optional<NodeTemplate> fill) {
  return XmlParser(text, file, host, fill).parse();
}

}  // namespace ringlab
