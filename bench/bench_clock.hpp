// Timing shared by the bench programs: wall and user-CPU seconds of a phase, and medians.
// User CPU time (getrusage) includes waited-for children, so a run that forks (the SimGrid engine)
// is charged for its child; it is the figure to compare on a machine shared with other work.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace ringlab::bench {

/// User CPU seconds of this process and its waited-for children.
inline double user_cpu_seconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    total += double(u.ru_utime.tv_sec) + double(u.ru_utime.tv_usec) * 1e-6;
  }
  return total;
}

/// Peak resident memory of this process, MiB.
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

/// Wall and user-CPU seconds of one phase.
struct Timing {
  double wall = 0;
  double cpu = 0;
};

class Stopwatch {
 public:
  Stopwatch() : wall_(std::chrono::steady_clock::now()), cpu_(user_cpu_seconds()) {}
  Timing elapsed() const {
    return Timing{std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count(),
                  user_cpu_seconds() - cpu_};
  }

 private:
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

/// Median (the upper one for an even count). Precondition: v is not empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ringlab::bench
