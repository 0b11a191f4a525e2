// Reliability and variability: Young/Daly against a worked example, the goodput-maximising interval,
// long-duration parsing, straggler statistics, determinism with a seed, and asynchronous parameter
// servers bound by their link.
#include <catch2/catch.hpp>

#include <sstream>

#include "collective_fixtures.hpp"
#include "training_fixtures.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

TEST_CASE("Young and Daly: C = 5 min, M = 24 h", "[training]") {
  // Young: sqrt(2 * 300 * 86400) = 7200 s. Daly: x = C/(2M) = 1/576, sqrt(x) = 1/24:
  // 7200 * (1 + 1/72 + 1/5184) - 300 = 7001.3889 s.
  CHECK(young_interval(300, 86400) == Approx(7200).epsilon(1e-12));
  CHECK(daly_interval(300, 86400) == Approx(7200.0 * (1 + 1.0 / 72 + 1.0 / 5184) - 300).epsilon(1e-12));
  CHECK(daly_interval(300, 86400) == Approx(7001.3889).epsilon(1e-7));
  // Daly's wall time at tau = 7200, R = 600: 86400 e^(600/86400) (e^(7500/86400) - 1) / 7200 = 1.0957983.
  CHECK(daly_wall_time(1.0, 7200, 300, 600, 86400) == Approx(1.0957983275).epsilon(1e-9));
  CHECK(goodput(7200, 300, 600, 86400) == Approx(0.9125766803).epsilon(1e-9));
  // First-order check: 1 - (C/tau + tau/(2M) + R/M) = 0.9097.
  CHECK(goodput(7200, 300, 600, 86400) == Approx(1 - (300.0 / 7200 + 7200.0 / 172800 + 600.0 / 86400)).epsilon(5e-3));
}

TEST_CASE("the numeric best interval is Daly's to within 0.5 % and beats both neighbours", "[training]") {
  const double best = best_interval(300, 600, 86400);
  CHECK(best == Approx(daly_interval(300, 86400)).epsilon(5e-3));
  CHECK(goodput(best, 300, 600, 86400) >= goodput(best * 1.1, 300, 600, 86400));
  CHECK(goodput(best, 300, 600, 86400) >= goodput(best * 0.9, 300, 600, 86400));
}

TEST_CASE("system MTBF is the node MTBF over the nodes", "[training]") {
  Reliability r;
  r.node_mtbf_s = 100 * 86400.0;
  r.checkpoint_s = 300;
  r.restart_s = 600;
  const ReliabilityResult out = evaluate_reliability(r, 100, 800);
  CHECK(out.system_mtbf_s == Approx(86400));
  CHECK(out.young_interval_s == Approx(7200));
  CHECK(out.startup_s == Approx(r.startup.base_s + 800 * r.startup.per_rank_s));
}

TEST_CASE("long durations carry their unit", "[training]") {
  CHECK(parse_long_duration("50000h") == Approx(1.8e8));
  CHECK(parse_long_duration("90min") == Approx(5400));
  CHECK(parse_long_duration("1.5 d") == Approx(129600));
  CHECK(parse_long_duration("0") == 0);
  CHECK_THROWS_AS(parse_long_duration("12"), std::invalid_argument);
  CHECK_THROWS_AS(parse_long_duration("3 weeks"), std::invalid_argument);
}

namespace {
constexpr Bandwidth kB = 100_Gbps;
constexpr double kMicro = 0.1;
}  // namespace

TEST_CASE("a straggler in every step: the synchronous step is the step with compute x slow_factor", "[training]") {
  test::Cluster c = test::leaf_cluster(4, 1, kB, 1_us, 2_us);
  TrainJob job = test::test_job(c.gpus, 8, 1 << 20, kMicro);
  job.stragglers.slow_probability = 1.0;
  job.stragglers.slow_factor = 2.0;
  CollectiveTimer timer(c.topology, job.order, job.ecmp, job.seed, false);
  const StepStatistics s = sync_step_statistics(job, timer);
  const double slow = simulate_step(job, timer, 2.0).step.seconds();
  CHECK(s.mean_s == Approx(slow).epsilon(1e-12));
  CHECK(s.p99_s == Approx(slow).epsilon(1e-12));
  CHECK(slow > 2 * kMicro);
}

TEST_CASE("with stragglers, throughput and time to train follow the slowed synchronous step", "[training]") {
  test::Cluster c = test::leaf_cluster(4, 1, kB, 1_us, 2_us);
  TrainJob job = test::test_job(c.gpus, 8, 1 << 20, kMicro);
  job.samples = 1e6;
  const TrainReport calm = run_training(job, c.topology, "calm");
  job.stragglers.slow_probability = 1.0;  // one GPU always 2x slow: every step is the slowed step
  job.stragglers.slow_factor = 2.0;
  const TrainReport slowed = run_training(job, c.topology, "slowed");
  CollectiveTimer timer(c.topology, job.order, job.ecmp, job.seed, false);
  const double slow_step = simulate_step(job, timer, 2.0).step.seconds();
  CHECK(slowed.samples_per_second() == Approx(slowed.global_batch() / slow_step).epsilon(1e-12));
  CHECK(calm.samples_per_second() == Approx(calm.global_batch() / calm.step.step.seconds()).epsilon(1e-12));
  CHECK(slowed.time_to_train_s() > calm.time_to_train_s());
}

TEST_CASE("stragglers: the same seed gives the same distribution, another seed another", "[training]") {
  test::Cluster c = test::leaf_cluster(4, 1, kB, 1_us, 2_us);
  TrainJob job = test::test_job(c.gpus, 8, 1 << 20, kMicro);
  job.stragglers.jitter = 0.1;
  job.stragglers.slow_probability = 0.05;
  job.stragglers.slow_factor = 3.0;
  job.steps = 300;
  CollectiveTimer timer(c.topology, job.order, job.ecmp, job.seed, false);
  const StepStatistics a = sync_step_statistics(job, timer);
  const StepStatistics b = sync_step_statistics(job, timer);
  CHECK(a.mean_s == b.mean_s);
  CHECK(a.p99_s == b.p99_s);
  // The step waits for the slowest of 4: mean above the no-jitter step, p99 near a slow worker's.
  const double calm = simulate_step(job, timer).step.seconds();
  CHECK(a.mean_s > calm);
  CHECK(a.p50_s <= a.p99_s);
  CHECK(a.p99_s > 2.0 * kMicro);
  job.seed = 2;
  CHECK(sync_step_statistics(job, timer).mean_s != a.mean_s);
}

TEST_CASE("the whole report is byte-identical for the same inputs", "[training]") {
  test::Cluster c = test::leaf_cluster(4, 1, kB, 1_us, 2_us);
  TrainJob job = test::test_job(c.gpus, 8, 1 << 20, kMicro);
  job.stragglers.jitter = 0.2;
  job.samples = 1e6;
  const std::string one = to_json(run_training(job, c.topology, "t")).dump();
  const std::string two = to_json(run_training(job, c.topology, "t")).dump();
  CHECK(one == two);
}

TEST_CASE("async parameter server: throughput bound by the server's link when it saturates", "[training]") {
  // Four workers on 100 Gb/s, one server behind a 10 Gb/s link; each update pushes 40 MiB. Compute
  // (1 ms) is far shorter than one push on the server link (33.6 ms), so the link is the bottleneck:
  // updates/s = B / bytes.
  test::Cluster c = test::leaf_cluster(4, 1, kB, 1_us, 2_us);
  Topology& t = c.topology;
  const HostId host = t.add_host("ps0", 0);
  const DeviceId cpu = test::add(t, "ps0/cpu0", DeviceKind::Cpu, host, 0, 0);
  const DeviceId nic = test::add(t, "ps0/nic0", DeviceKind::Nic, host, 0, 0);
  t.add_link(test::custom_link(cpu, nic, kB, 1_us, 2_us));
  t.add_link(test::custom_link(nic, c.switches[0], 10_Gbps, 1_us, 2_us));
  TrainJob job = test::test_job(c.gpus, 10, 1 << 20, 1e-3);
  job.strategy.kind = StrategyKind::TfParameterServer;
  job.strategy.async = true;
  job.strategy.parameter_servers = {cpu};
  job.steps = 200;
  CollectiveTimer timer(t, job.order, job.ecmp, job.seed, false);
  const AsyncResult a = simulate_async_ps(job, timer);
  const double bytes = 10.0 * (1 << 20) * 4;
  CHECK(a.ps_link.gbps() == Approx(10));
  CHECK(a.updates_per_second == Approx(10e9 / 8 / bytes).epsilon(0.01));
  CHECK(a.samples_per_second == Approx(a.updates_per_second));
  CHECK(a.ps_link_utilisation > 0.99);
  // With the link saturated each update waits for the 3 others: staleness 3 in steady state.
  CHECK(a.mean_staleness == Approx(3).epsilon(0.01));
}
