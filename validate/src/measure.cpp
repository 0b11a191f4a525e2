// Size sweep, iteration statistics and measured Results (see measure.hpp).
#include "ringlab/validate/measure.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ringlab::validate {

std::vector<Bytes> size_sweep(Bytes min, Bytes max, double factor, Bytes increment, std::int64_t element,
                              std::int64_t multiple) {
  const std::int64_t unit = element * multiple;
  std::vector<Bytes> sizes;
  const auto add = [&](std::int64_t bytes) {
    const std::int64_t rounded = std::max(unit, bytes / unit * unit);
    if (sizes.empty() || sizes.back().count() != rounded) sizes.push_back(Bytes{rounded});
  };
  for (std::int64_t s = min.count(); s <= max.count();) {
    add(s);
    const std::int64_t next = factor > 1 ? std::int64_t(std::floor(double(s) * factor)) : s + increment.count();
    if (next <= s) break;  // factor too close to 1 to move on
    s = next;
  }
  return sizes;
}

sim::IterationStats iteration_stats(std::span<const Duration> times, int warmup) {
  std::vector<std::int64_t> ps;
  ps.reserve(times.size());
  for (Duration t : times) ps.push_back(t.picoseconds());
  std::sort(ps.begin(), ps.end());
  const std::size_t n = ps.size();
  sim::IterationStats s;
  s.count = int(n);
  s.warmup = warmup;
  s.min = Duration{ps.front()};
  s.max = Duration{ps.back()};
  s.median = Duration{n % 2 ? ps[n / 2] : (ps[n / 2 - 1] + ps[n / 2]) / 2};
  const double sum = std::accumulate(ps.begin(), ps.end(), 0.0);
  s.mean = Duration::from_picoseconds(sum / double(n));
  const std::size_t rank = std::size_t(std::ceil(0.99 * double(n)));
  s.p99 = Duration{ps[std::max<std::size_t>(rank, 1) - 1]};
  return s;
}

sim::Result measured_result(const Measurement& m, const sim::ResultSource& source, const sim::RunKey& key) {
  sim::Result r;
  r.source = source;
  r.key = key;
  r.collective = m.collective;
  r.algorithm = m.algorithm;
  r.message = m.message;
  r.ranks = m.ranks;
  r.iterations = iteration_stats(m.iterations, m.warmup);
  r.time = r.iterations->median;
  r.rank_finish = m.rank_median;
  r.wrong = m.wrong;
  return r;
}

}  // namespace ringlab::validate
