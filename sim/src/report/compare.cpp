// compare(): predicted against measured Results, matched by run point (see compare.hpp).
#include "ringlab/sim/compare.hpp"

#include <algorithm>
#include <cmath>

#include "report/text_format.hpp"

namespace ringlab::sim {
namespace {

using detail::fixed;
using detail::pad;

bool same_point(const Result& a, const Result& b) {
  return a.collective == b.collective && a.message == b.message && a.key.dtype == b.key.dtype;
}

/// Differences in configuration between a prediction and a measurement of the same point.
std::vector<std::string> differences(const Result& p, const Result& m) {
  std::vector<std::string> notes;
  auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
    if (!a.empty() && !b.empty() && a != b) notes.push_back(what + " " + a + " vs " + b);
  };
  differ("algorithm", p.algorithm, m.algorithm);
  differ("protocol", p.key.protocol, m.key.protocol);
  if (p.key.channels > 0 && m.key.channels > 0 && p.key.channels != m.key.channels)
    notes.push_back("channels " + std::to_string(p.key.channels) + " vs " + std::to_string(m.key.channels));
  differ("rank order", p.key.order, m.key.order);
  if (p.ranks != m.ranks) notes.push_back("ranks " + std::to_string(p.ranks) + " vs " + std::to_string(m.ranks));
  return notes;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::ordered_json point_json(const Result& r) {
  return {{"collective", to_string(r.collective)}, {"message_bytes", r.message.count()}, {"dtype", r.key.dtype}};
}

}  // namespace

Duration measured_time(const Result& measured) {
  return measured.iterations ? measured.iterations->median : measured.time;
}

Comparison compare(std::span<const Result> predicted, std::span<const Result> measured) {
  Comparison out;
  std::vector<bool> used(measured.size(), false);
  std::vector<double> errors, model_errors;
  for (const Result& p : predicted) {
    std::size_t m = 0;
    while (m < measured.size() && (used[m] || !same_point(p, measured[m]))) ++m;
    if (m == measured.size()) {
      out.unmatched_predicted.push_back(p);
      continue;
    }
    used[m] = true;
    const Result& actual = measured[m];
    ComparedRow row;
    row.collective = p.collective;
    row.message = p.message;
    row.dtype = p.key.dtype;
    row.predicted = p.time;
    row.measured = measured_time(actual);
    const double t = row.measured.seconds();
    row.error = t > 0 ? (row.predicted.seconds() - t) / t : (row.predicted.picoseconds() == 0 ? 0.0 : INFINITY);
    row.predicted_busbw = p.busbw();
    Result at_median = actual;
    at_median.time = row.measured;
    row.measured_busbw = at_median.busbw();
    row.wrong = actual.wrong;
    row.notes = differences(p, actual);
    if (actual.algorithm.starts_with("nccl:")) {
      ++out.choices_logged;
      if (p.algorithm == actual.algorithm) ++out.choices_as_predicted;
    }
    if (actual.wrong && *actual.wrong > 0) row.notes.push_back(std::to_string(*actual.wrong) + " wrong elements");
    if (p.nccl_model && t > 0) {
      row.nccl_model = p.nccl_model;
      row.nccl_model_error = (p.nccl_model->seconds() - t) / t;
      model_errors.push_back(std::abs(*row.nccl_model_error));
    }
    errors.push_back(std::abs(row.error));
    out.measured_gpus_per_thread = std::max(out.measured_gpus_per_thread, actual.source.gpus_per_thread);
    out.rows.push_back(std::move(row));
  }
  for (std::size_t m = 0; m < measured.size(); ++m)
    if (!used[m]) out.unmatched_measured.push_back(measured[m]);
  out.median_abs_error = median(errors);
  out.nccl_model_median_abs_error = median(model_errors);
  out.nccl_model_rows = model_errors.size();
  for (std::size_t i = 0; i < errors.size(); ++i)
    if (!out.worst || errors[i] > out.worst_abs_error) {
      out.worst = i;
      out.worst_abs_error = errors[i];
    }
  return out;
}

void write_comparison_table(std::ostream& out, const Comparison& c) {
  out << "#       size      type   collective    predicted     measured     pred.busbw   meas.busbw    error  notes\n";
  out << "#        (B)                                (us)         (us)       (GB/s)       (GB/s)      (%)\n";
  for (const ComparedRow& r : c.rows) {
    std::string notes;
    for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
    out << pad(std::to_string(r.message.count()), 12) << pad(r.dtype, 10) << pad(std::string(to_string(r.collective)), 13)
        << pad(fixed(r.predicted.microseconds(), 2), 13) << pad(fixed(r.measured.microseconds(), 2), 13)
        << pad(fixed(r.predicted_busbw.gigabytes_per_second(), 2), 13)
        << pad(fixed(r.measured_busbw.gigabytes_per_second(), 2), 13) << pad(fixed(100 * r.error, 1), 9)
        << (notes.empty() ? "" : "  " + notes) << '\n';
  }
  out << "# matched rows: " << c.rows.size() << ", median |error|: " << fixed(100 * c.median_abs_error, 1) << " %";
  if (c.worst)
    out << ", worst: " << fixed(100 * c.worst_abs_error, 1) << " % at " << c.rows[*c.worst].message.count() << " B";
  out << '\n';
  if (c.nccl_model_rows > 0)
    out << "# NCCL's own tuning model (its chosen pair's latency + bytes / bandwidth) against the same "
           "measurements: median |error| "
        << fixed(100 * c.nccl_model_median_abs_error, 1) << " % over " << c.nccl_model_rows << " rows\n";
  if (c.measured_gpus_per_thread > 1)
    out << "# measured with " << c.measured_gpus_per_thread
        << " GPUs per host thread (nccl-tests -g): one thread launched every call on each of them, a host cost\n"
           "# no prediction holds; where it exceeds the collective's own time (small sizes) the measured time is\n"
           "# the host's. NCCL's maintainers advise one GPU per process for latency (NVIDIA/nccl-tests issue 333)\n";
  if (c.choices_logged > 0)
    out << "# NCCL's logged algorithm: " << c.choices_as_predicted << " of " << c.choices_logged
        << " sizes as predicted\n";
  if (!c.unmatched_predicted.empty())
    out << "# predicted rows without a measurement: " << c.unmatched_predicted.size() << '\n';
  if (!c.unmatched_measured.empty())
    out << "# measured rows without a prediction: " << c.unmatched_measured.size() << '\n';
}

nlohmann::ordered_json to_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["schema"] = kComparisonSchema;
  j["version"] = kComparisonVersion;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ComparedRow& r : c.rows) {
    nlohmann::ordered_json row;
    row["collective"] = to_string(r.collective);
    row["message_bytes"] = r.message.count();
    row["dtype"] = r.dtype;
    row["predicted_ps"] = r.predicted.picoseconds();
    row["measured_ps"] = r.measured.picoseconds();
    row["error"] = r.error;
    row["predicted_busbw_GBps"] = r.predicted_busbw.gigabytes_per_second();
    row["measured_busbw_GBps"] = r.measured_busbw.gigabytes_per_second();
    if (r.wrong) row["wrong"] = *r.wrong;
    if (r.nccl_model) {
      row["nccl_model_ps"] = r.nccl_model->picoseconds();
      row["nccl_model_error"] = *r.nccl_model_error;
    }
    row["notes"] = r.notes;
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  j["median_abs_error"] = c.median_abs_error;
  j["worst_abs_error"] = c.worst_abs_error;
  j["worst_row"] = c.worst ? nlohmann::ordered_json(*c.worst) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json up = nlohmann::ordered_json::array();
  for (const Result& r : c.unmatched_predicted) up.push_back(point_json(r));
  nlohmann::ordered_json um = nlohmann::ordered_json::array();
  for (const Result& r : c.unmatched_measured) um.push_back(point_json(r));
  j["unmatched_predicted"] = std::move(up);
  j["unmatched_measured"] = std::move(um);
  j["nccl_choices"] = {{"logged", c.choices_logged}, {"as_predicted", c.choices_as_predicted}};
  if (c.nccl_model_rows > 0)
    j["nccl_model"] = {{"rows", c.nccl_model_rows}, {"median_abs_error", c.nccl_model_median_abs_error}};
  if (c.measured_gpus_per_thread > 0) j["measured_gpus_per_thread"] = c.measured_gpus_per_thread;
  return j;
}

}  // namespace ringlab::sim
