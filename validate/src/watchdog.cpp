// See watchdog.hpp.
#include "watchdog.hpp"

namespace ringlab::validate {

Watchdog::Watchdog(std::chrono::duration<double> timeout, std::function<void(const std::string&)> expire)
    : timeout_(timeout), expire_(std::move(expire)) {
  if (timeout_.count() > 0) thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(std::string what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = std::move(what);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
    armed_ = true;
  }
  wake_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = false;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      wake_.wait(lock);
      continue;
    }
    if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      const std::string what = what_;
      lock.unlock();
      expire_(what);  // does not return
      return;
    }
  }
}

}  // namespace ringlab::validate
