// SimJob: run_collective over sizes, on a worker thread (see sim_job.hpp).
#include "sim_job.hpp"

#include <QThread>

#include "worker.hpp"

#include <algorithm>

#include "ringlab/sim/collectives.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/sim/simulator.hpp"

namespace ringlab::gui {

SimJob::SimJob(QObject* parent) : QObject(parent) { qRegisterMetaType<SimOutcome>(); }

SimJob::~SimJob() {
  cancel_ = true;
  if (thread_) thread_->wait();
}

std::vector<Bytes> SimJob::default_sizes() {
  std::vector<Bytes> out;
  for (std::int64_t s = std::int64_t(1) << 20; s <= std::int64_t(1) << 30; s *= 4) out.push_back(Bytes{s});
  return out;
}

SimOutcome SimJob::run(const Topology& cluster, const std::string& algorithm, const std::vector<Bytes>& sizes,
                       const std::atomic<bool>* cancel, const std::function<void(int)>& progress) {
  SimOutcome out;
  out.algorithm = algorithm;
  sim::CollectiveRequest request;
  if (algorithm == "auto") {
    request.choice = sim::AlgorithmChoice::Auto;
  } else if (const auto a = sim::find_algorithm(algorithm)) {
    request.algorithm = *a;
  } else {
    out.error = "unknown algorithm \"" + algorithm + "\"";
    return out;
  }
  request.order.ranks = cluster.gpus();
  request.options.cancel = cancel;
  if (algorithm == "nccl") request.options.calibration = sim::Calibration::nccl();
  sim::CollectiveSweep sweep(cluster, request);  // one routing for every size
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (cancel && cancel->load()) {
      out.cancelled = true;
      return out;
    }
    if (progress) progress(int(100 * i / sizes.size()));
    try {
      const sim::CollectiveOutcome outcome = sweep.run(sizes[i]);
      if (!outcome.result) {
        out.error = outcome.not_applicable;
        continue;
      }
      const sim::Result& r = *outcome.result;
      out.points.push_back(
          SimPoint{sizes[i], r.time.seconds() * 1e6, r.busbw().gigabytes_per_second(), r.algorithm});
      if (i + 1 == sizes.size()) {
        out.utilisation.assign(cluster.link_count(), 0.0);
        for (const sim::DirectionStats& d : r.directions) {
          double& u = out.utilisation[Topology::direction_link(d.direction)];
          u = std::max(u, d.utilisation);
        }
        for (DirectionId c : r.bottlenecks) out.bottlenecks.push_back(Topology::direction_link(c));
      }
    } catch (const sim::Cancelled&) {
      out.cancelled = true;
      return out;
    }
  }
  if (progress) progress(100);
  return out;
}

bool SimJob::start(const Topology& cluster, const std::string& algorithm, std::vector<Bytes> sizes) {
  if (running_) return false;
  running_ = true;
  cancel_ = false;
  auto copy = std::make_shared<Topology>(cluster);
  run_in_worker(
      this, thread_,
      [this, copy, algorithm, sizes = std::move(sizes)] {
        return run(*copy, algorithm, sizes, &cancel_, [this](int p) { emit progress(p); });
      },
      [this](SimOutcome outcome) {
        running_ = false;
        emit finished(outcome);
      });
  return true;
}

void SimJob::wait() {
  if (thread_) thread_->wait();
}

}  // namespace ringlab::gui
