// Watchdog: ends the job with a clear message when a rank makes no progress for too long (a peer
// that died or hangs leaves NCCL and MPI calls waiting forever). The runner re-arms it before every
// step; when a deadline passes, the watchdog thread prints what this rank was doing and aborts the
// whole MPI job (MPI_Abort), so the run ends within the timeout instead of hanging silently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ringlab::validate {

class Watchdog {
 public:
  /// `expire` is called on the watchdog thread with the description of the stalled step; it must not
  /// return (it aborts the job). `timeout` <= 0 disables the watchdog.
  Watchdog(std::chrono::duration<double> timeout, std::function<void(const std::string&)> expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// Starts a new deadline, `timeout` from now, for the step `what` ("size 1048576, iteration 3").
  void arm(std::string what);
  /// No deadline until the next arm().
  void disarm();

 private:
  void loop();

  std::chrono::duration<double> timeout_;
  std::function<void(const std::string&)> expire_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point deadline_;
  std::string what_;
  bool armed_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ringlab::validate
