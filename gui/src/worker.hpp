// run_in_worker: the window's jobs (simulate, plan) run off the GUI thread and hand their result
// back on it. One helper so every job does it the same way.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QThread>

#include <memory>
#include <utility>

namespace ringlab::gui {

/// Waits for the previous thread in `thread`, then runs `work()` on a new one and calls
/// `done(result)` on `owner`'s thread (queued), so `done` may touch widgets and emit signals.
template <class Work, class Done>
void run_in_worker(QObject* owner, std::unique_ptr<QThread>& thread, Work work, Done done) {
  if (thread) thread->wait();
  thread.reset(QThread::create([owner, work = std::move(work), done = std::move(done)]() mutable {
    auto result = work();
    QMetaObject::invokeMethod(
        owner, [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); },
        Qt::QueuedConnection);
  }));
  thread->start();
}

}  // namespace ringlab::gui
