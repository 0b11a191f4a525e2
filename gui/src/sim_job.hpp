// SimJob: runs the simulator for the window, off the GUI thread, with progress and cancel.
//
// A run is one collective over a list of message sizes on the document's cluster (ranks: its GPUs
// in order), through sim::run_collective, the call the command line uses. run() is the
// synchronous core (tests and --screenshot call it); start() runs it on a worker thread and emits
// finished() on the GUI thread. The worker gets its own copy of the cluster, so the user may edit
// the document meanwhile.
#pragma once

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::gui {

struct SimPoint {
  Bytes size;
  double time_us = 0;
  double busbw_gbps = 0;
  std::string algorithm;  ///< what ran, e.g. "ring" or "nccl:tree/simple"
};

struct SimOutcome {
  std::string algorithm;              ///< as requested: ring, tree, nccl, auto, ...
  std::vector<SimPoint> points;       ///< one per size that applies
  std::vector<double> utilisation;    ///< per link id, largest size: the busier direction's share
  std::vector<LinkId> bottlenecks;    ///< largest size: links of Result::bottlenecks, busiest first
  std::string error;                  ///< why nothing ran (an algorithm that does not apply, ...)
  bool cancelled = false;
};

class SimJob : public QObject {
  Q_OBJECT

 public:
  explicit SimJob(QObject* parent = nullptr);
  ~SimJob() override;

  /// Simulates allreduce with `algorithm` (a --algo name) for each size. `progress` gets 0..100.
  static SimOutcome run(const Topology& cluster, const std::string& algorithm, const std::vector<Bytes>& sizes,
                        const std::atomic<bool>* cancel = nullptr, const std::function<void(int)>& progress = {});
  /// The sizes the window sweeps by default: 1 MiB to 1 GiB, x4.
  static std::vector<Bytes> default_sizes();

  /// Starts run() on a worker thread; false while another run is going.
  bool start(const Topology& cluster, const std::string& algorithm, std::vector<Bytes> sizes);
  void cancel() { cancel_ = true; }
  bool running() const { return running_; }
  /// Waits for a started run (tests); the finished() signal is still delivered by the event loop.
  void wait();

 signals:
  void progress(int percent);
  void finished(ringlab::gui::SimOutcome outcome);

 private:
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  std::unique_ptr<class QThread> thread_;
};

}  // namespace ringlab::gui

Q_DECLARE_METATYPE(ringlab::gui::SimOutcome)
