// Shared pieces of the importers: text helpers, the NodeLayout builder, table lookups, and the
// ImportReport / file reading entry points of import.hpp.
#include "import_common.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ringlab/topology/error.hpp"

namespace ringlab {

void ImportReport::append(const ImportReport& other) {
  assumptions.insert(assumptions.end(), other.assumptions.begin(), other.assumptions.end());
  warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
}

namespace {

/// Length of the UTF-8 sequence starting at `text[i]`, or 0 when it is not valid UTF-8 (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  const auto cont = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned b1 = byte(i + 1);
    if ((b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 > 0x9F)) return 0;
    return cont(i + 1) && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned b1 = byte(i + 1);
    if ((b0 == 0xF0 && b1 < 0x90) || (b0 == 0xF4 && b1 > 0x8F)) return 0;
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/// Throws InputError naming the line of the first byte that is not UTF-8 (names become JSON strings).
void check_utf8(std::string_view text, const std::string& file_name) {
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      throw InputError(file_name, detail::line_location(line), std::string("invalid UTF-8 byte ") + hex +
                                                                   ": expected UTF-8 text");
    }
    if (text[i] == '\n') ++line;
    i += n;
  }
}

}  // namespace

std::string read_import_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path, "", "cannot read the file: expected an existing topology file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  check_utf8(text.str(), path);
  return text.str();
}

namespace detail {

std::vector<TextLine> split_lines(std::string_view text) {
  std::vector<TextLine> lines;
  int number = 1;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(TextLine{number++, line});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string line_location(int line) { return "line " + std::to_string(line); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (!digit(a[i]) || !digit(b[j])) {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
      continue;
    }
    std::size_t ie = i, je = j;
    while (ie < a.size() && digit(a[ie])) ++ie;
    while (je < b.size() && digit(b[je])) ++je;
    const std::string_view x = std::string_view(a).substr(i, ie - i), y = std::string_view(b).substr(j, je - j);
    const auto xs = x.substr(std::min(x.find_first_not_of('0'), x.size()));
    const auto ys = y.substr(std::min(y.find_first_not_of('0'), y.size()));
    if (xs.size() != ys.size()) return xs.size() < ys.size();
    if (xs != ys) return xs < ys;
    i = ie, j = je;
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

std::optional<long> parse_count(std::string_view s) {
  long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::optional<GpuModel> model_of_sm(int sm) {
  for (const SmRow& row : kSmModels)
    if (row.sm == sm) return row.model;
  return std::nullopt;
}

std::optional<int> sm_of_model(GpuModel model) {
  const int sm = gpu_spec(model).sm;
  if (sm > 0) return sm;
  return std::nullopt;
}

NodeTemplate template_of_model(GpuModel model) {
  // The first template (in the table's order: the DGX/HGX boards before the cloud catalogue) with
  // that GPU model, e.g. a100_40gb -> aws_p4d.
  for (int t = 0; t < kNodeTemplateCount; ++t)
    if (NodeTemplate(t) != NodeTemplate::Generic && node_template(NodeTemplate(t)).gpu_model == model)
      return NodeTemplate(t);
  return kImportPolicy.fallback_template;
}

std::optional<LinkKind> network_kind_of_rate(Bandwidth rate, LinkFamily family) {
  constexpr double kRelativeTolerance = 1e-9;
  for (int k = 0; k < kLinkKindCount; ++k) {
    const LinkDefaults& row = link_defaults(LinkKind(k));
    if (row.family != family) continue;
    if (std::abs(row.per_lane / rate - 1.0) < kRelativeTolerance) return row.kind;
  }
  return std::nullopt;
}

// ---- LayoutBuilder ---------------------------------------------------------------------------------

LayoutBuilder::LayoutBuilder(std::string file, std::string host)
    : host_name_(std::move(host)), counts_(kDeviceKindCount, 0) {
  layout_.file = std::move(file);
  host_ = layout_.node.add_host(host_name_);
}

DeviceId LayoutBuilder::add(Device d, std::string_view stem, bool indexed) {
  d.host = host_;
  d.local_index = counts_[std::size_t(d.kind)]++;
  d.name = host_name_ + "/" + std::string(stem) + (indexed ? std::to_string(d.local_index) : "");
  return layout_.node.add_device(std::move(d));
}

DeviceId LayoutBuilder::add_gpu(GpuModel model) {
  Device d;
  d.kind = DeviceKind::Gpu;
  d.gpu_model = model;
  return add(std::move(d), "gpu", true);
}
DeviceId LayoutBuilder::add_cpu() { return add(Device{.kind = DeviceKind::Cpu}, "cpu", true); }
DeviceId LayoutBuilder::add_pcie_switch() { return add(Device{.kind = DeviceKind::PcieSwitch}, "pcie", true); }
DeviceId LayoutBuilder::add_nvswitch(bool reduction) {
  Device d;
  d.kind = DeviceKind::NvSwitch;
  d.in_network_reduction = reduction;
  return add(std::move(d), "nvswitch", false);
}
DeviceId LayoutBuilder::add_nic(std::string hca, LinkKind port, Bandwidth bandwidth, bool near_gpu,
                                Transport transport) {
  const DeviceId id = add(Device{.kind = DeviceKind::Nic}, "nic", true);
  layout_.nics.push_back(NodeNic{id, std::move(hca), port, bandwidth, near_gpu, transport});
  return id;
}

void LayoutBuilder::link(DeviceId a, DeviceId b, LinkKind kind, int lanes, std::optional<Bandwidth> bandwidth) {
  Link l = Topology::default_link(a, b, kind, lanes);
  if (bandwidth) l.bandwidth = *bandwidth;
  layout_.node.add_link(l);
}

}  // namespace detail
}  // namespace ringlab
