// PlanJob: make_plan on a worker thread (see plan_job.hpp).
#include "plan_job.hpp"

#include <QThread>

#include "worker.hpp"

#include <stdexcept>

#include "ringlab/topology/error.hpp"

namespace ringlab::gui {

PlanJob::PlanJob(QObject* parent) : QObject(parent) { qRegisterMetaType<PlanOutcome>(); }

PlanJob::~PlanJob() {
  if (thread_) thread_->wait();
}

PlanOutcome PlanJob::run(const Scenario& scenario, double time_limit_seconds) {
  PlanOutcome out;
  planner::PlanRequest request;
  request.search.time_limit_seconds = time_limit_seconds;
  try {
    out.report = planner::make_plan(scenario, request);
  } catch (const InputError& e) {
    out.error = e.what();
  } catch (const std::invalid_argument& e) {
    out.error = e.what();
  }
  return out;
}

bool PlanJob::start(const Scenario& scenario, double time_limit_seconds) {
  if (running_) return false;
  running_ = true;
  auto copy = std::make_shared<Scenario>(scenario);
  run_in_worker(
      this, thread_, [copy, time_limit_seconds] { return run(*copy, time_limit_seconds); },
      [this](PlanOutcome outcome) {
        running_ = false;
        emit finished(outcome);
      });
  return true;
}

void PlanJob::wait() {
  if (thread_) thread_->wait();
}

}  // namespace ringlab::gui
