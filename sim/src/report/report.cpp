// nccl-tests style table, JSON and CSV writers for collective results.
#include "ringlab/sim/report.hpp"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

#include "report/text_format.hpp"

namespace ringlab::sim {
namespace {

using detail::fixed;
using detail::pad;

constexpr std::string_view kNcclPrefix = "nccl:";

struct DisplayName {
  std::string_view name;     ///< ringlab's name
  std::string_view display;  ///< NCCL's, as its INFO logs print it
};
// NCCL's algorithm and protocol names (NCCL 2.19+ ncclAlgoStr / ncclProtoStr).
constexpr std::array<DisplayName, 7> kNcclAlgorithmNames{{{"tree", "Tree"},
                                                          {"ring", "Ring"},
                                                          {"collnet_direct", "CollNetDirect"},
                                                          {"collnet_chain", "CollNetChain"},
                                                          {"nvls", "NVLS"},
                                                          {"nvls_tree", "NVLSTree"},
                                                          {"pat", "PAT"}}};
constexpr std::array<DisplayName, 3> kNcclProtocolNames{{{"ll", "LL"}, {"ll128", "LL128"}, {"simple", "Simple"}}};

template <std::size_t N>
std::string display_name(const std::array<DisplayName, N>& table, std::string_view name) {
  for (const DisplayName& d : table)
    if (d.name == name) return std::string(d.display);
  return std::string(name);
}

std::string half_row(const ReportRow& row) {
  const Result& r = row.result;
  return pad(format_time_us(r.time.microseconds()), 8) + pad(fixed(r.algbw().gigabytes_per_second(), 2), 8) +
         pad(fixed(r.busbw().gigabytes_per_second(), 2), 8) + pad("N/A", 7);
}

double average_busbw(std::span<const ReportRow> rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const ReportRow& row : rows) sum += row.result.busbw().gigabytes_per_second();
  return sum / double(rows.size());
}

}  // namespace

std::string algorithm_label(const std::string& algorithm, const std::string& protocol, int channels) {
  std::string name = algorithm;
  if (std::string_view(algorithm).starts_with(kNcclPrefix)) {
    const std::string_view choice = std::string_view(algorithm).substr(kNcclPrefix.size());
    name = display_name(kNcclAlgorithmNames, choice.substr(0, choice.find('/')));
  }
  return name + "/" + display_name(kNcclProtocolNames, protocol) + ", " + std::to_string(channels) +
         (channels == 1 ? " channel" : " channels");
}

std::string format_time_us(double us) {
  if (us >= 10000.0) return fixed(us, 0);
  if (us >= 100.0) return fixed(us, 1);
  return fixed(us, 2);
}

void write_table(std::ostream& out, const ReportHeader& h, std::span<const ReportRow> rows) {
  out << "# ringlab simulate: " << h.collective << ", algorithm " << h.algorithm << ", " << h.ranks
      << " ranks, calibration " << h.calibration << '\n';
  out << "# scenario: " << h.scenario << '\n';
  out << "# rank order: " << h.order_source << (h.order_digest.empty() ? "" : " (digest " + h.order_digest + ")") << '\n';
  if (!h.notes.empty()) out << "# " << h.notes << '\n';
  if (!h.nccl_model.empty()) out << "# nccl model: " << h.nccl_model << '\n';
  out << "# in-place equals out-of-place in simulation; #wrong is N/A (no data is checked)\n#\n";
  out << "#                                                              out-of-place                       in-place"
         "          \n";
  out << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw"
         " #wrong  algorithm\n";
  out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
         "\n";
  for (const ReportRow& row : rows) {
    const Result& r = row.result;
    const std::int64_t count = row.element_size > 0 ? r.message.count() / row.element_size : 0;
    out << pad(std::to_string(r.message.count()), 12) << pad(std::to_string(count), 14) << pad(row.type, 10)
        << pad(row.redop, 8) << pad(std::to_string(row.root), 8) << half_row(row) << half_row(row) << "  "
        << algorithm_label(r.algorithm, row.protocol, row.channels) << '\n';
  }
  out << "# Out of bounds values : 0 OK\n";
  out << "# Avg bus bandwidth    : " << fixed(average_busbw(rows), 4) << "\n#\n";
}

void write_json(std::ostream& out, const ReportHeader& h, std::span<const ReportRow> rows, const Topology& topology) {
  nlohmann::ordered_json doc;
  doc["schema"] = kSimulateReportSchema;
  doc["version"] = kSimulateReportVersion;
  doc["ringlab"] = 1;
  doc["scenario"] = h.scenario;
  doc["collective"] = h.collective;
  doc["algorithm"] = h.algorithm;
  doc["ranks"] = h.ranks;
  doc["calibration"] = h.calibration;
  doc["rank_order"] = {{"source", h.order_source}, {"digest", h.order_digest}, {"order", h.order}};
  if (!h.nccl_model.empty()) doc["nccl_model"] = h.nccl_model;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const ReportRow& row : rows) {
    const Result& r = row.result;
    nlohmann::ordered_json j;
    j["size_B"] = r.message.count();
    j["count"] = row.element_size > 0 ? r.message.count() / row.element_size : 0;
    j["type"] = row.type;
    j["redop"] = row.redop;
    j["root"] = row.root;
    j["algorithm"] = r.algorithm;
    j["protocol"] = row.protocol;
    j["channels"] = row.channels;
    j["time_us"] = std::stod(fixed(r.time.microseconds(), 6));
    j["algbw_GBps"] = std::stod(fixed(r.algbw().gigabytes_per_second(), 6));
    j["busbw_GBps"] = std::stod(fixed(r.busbw().gigabytes_per_second(), 6));
    nlohmann::ordered_json bottlenecks = nlohmann::ordered_json::array();
    for (DirectionId c : r.bottlenecks) {
      for (const DirectionStats& s : r.directions) {
        if (s.direction != c) continue;
        bottlenecks.push_back({{"link", topology.direction_name(c)},
                               {"bytes_B", s.bytes.count()},
                               {"utilisation", std::stod(fixed(s.utilisation, 6))}});
      }
    }
    j["bottlenecks"] = bottlenecks;
    j["critical_path_ops"] = r.critical_path.size();
    j["events"] = r.events;
    j["flows"] = r.flows;
    if (r.channel_fold > 1) j["channel_fold"] = r.channel_fold;  // events and flows are the folded run's
    results.push_back(j);
  }
  doc["results"] = results;
  out << doc.dump(2) << '\n';
}

void write_csv(std::ostream& out, std::span<const ReportRow> rows) {
  out << "size_B,count,type,redop,root,algorithm,protocol,channels,ranks,time_us,algbw_GBps,busbw_GBps\n";
  for (const ReportRow& row : rows) {
    const Result& r = row.result;
    out << r.message.count() << ',' << (row.element_size > 0 ? r.message.count() / row.element_size : 0) << ','
        << row.type << ',' << row.redop << ',' << row.root << ',' << r.algorithm << ',' << row.protocol << ','
        << row.channels << ',' << r.ranks << ',' << fixed(r.time.microseconds(), 6) << ','
        << fixed(r.algbw().gigabytes_per_second(), 6) << ',' << fixed(r.busbw().gigabytes_per_second(), 6) << '\n';
  }
}

}  // namespace ringlab::sim
