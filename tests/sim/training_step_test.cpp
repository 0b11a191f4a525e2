// Training steps against hand-computed expectations: on a star of single-GPU hosts a ring all-reduce
// of N bytes takes 2(p-1)*alpha + 2(p-1)/p*N/B (alpha = overhead + 4 hop latencies), so a step's time
// follows from the strategy's rules: no overlap = compute + all-reduces; full overlap hides every
// bucket but the last; accumulation pays the sync once per k micro-batches; ZeRO-3/FSDP move 1.5x
// the all-reduce volume (Rajbhandari et al. 2020).
#include <catch2/catch.hpp>

#include "collective_fixtures.hpp"
#include "training_fixtures.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

constexpr Bandwidth kB = 100_Gbps;
constexpr Duration kLatency = 1_us;
constexpr Duration kOverhead = 2_us;
constexpr double kMicro = 0.1;                 // seconds of forward + backward
constexpr std::int64_t kParams = 1 << 20;      // per layer: 4 MiB of fp32 gradients

double ring_allreduce(int p, double bytes) {
  const double alpha = (kOverhead + 4 * kLatency).seconds();
  return 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * bytes * 8.0 / kB.bits_per_second();
}
double ring_half(int p, double bytes) {  // reduce-scatter or all-gather
  const double alpha = (kOverhead + 4 * kLatency).seconds();
  return (p - 1) * alpha + double(p - 1) / p * bytes * 8.0 / kB.bits_per_second();
}

struct Setup {
  test::Cluster cluster;
  TrainJob job;
};

Setup setup(int p, int layers) {
  Setup s{test::leaf_cluster(p, 1, kB, kLatency, kOverhead), {}};
  s.job = test::test_job(s.cluster.gpus, layers, kParams, kMicro);
  return s;
}

StepResult step(const Setup& s) {
  CollectiveTimer timer(s.cluster.topology, s.job.order, s.job.ecmp, s.job.seed, false);
  return simulate_step(s.job, timer);
}

}  // namespace

TEST_CASE("no overlap, one bucket: step = compute + one ring all-reduce of all gradients", "[training]") {
  const int p = GENERATE(2, 4, 8);
  Setup s = setup(p, 8);
  s.job.strategy.overlap = false;
  s.job.strategy.bucket = Bytes{std::int64_t(1) << 40};
  s.job.strategy.first_bucket = s.job.strategy.bucket;
  const StepResult r = step(s);
  CHECK(r.compute.seconds() == Approx(kMicro).epsilon(1e-9));
  CHECK(r.step.seconds() == Approx(kMicro + ring_allreduce(p, 8.0 * kParams * 4)).epsilon(1e-9));
  CHECK(r.exposed_comm() == r.comm);
  CHECK(r.overlap() == Duration{});
}

TEST_CASE("no overlap, a bucket per layer: step = compute + the buckets back to back", "[training]") {
  const int p = 4;
  Setup s = setup(p, 8);
  s.job.strategy.overlap = false;
  s.job.strategy.bucket = s.job.strategy.first_bucket = Bytes{kParams * 4};
  const StepResult r = step(s);
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].count == 8);
  CHECK(r.step.seconds() == Approx(kMicro + 8 * ring_allreduce(p, kParams * 4.0)).epsilon(1e-9));
}

TEST_CASE("full overlap hides every bucket but the last", "[training]") {
  // Each layer's backward (2/3 * 0.1 s / 8 = 8.3 ms) outlasts its bucket's all-reduce (~0.6 ms), so
  // only the bucket of the first layer, produced last, is exposed.
  const int p = GENERATE(2, 4, 8);
  Setup s = setup(p, 8);
  s.job.strategy.bucket = s.job.strategy.first_bucket = Bytes{kParams * 4};
  const StepResult r = step(s);
  const double bucket = ring_allreduce(p, kParams * 4.0);
  CHECK(r.step.seconds() == Approx(kMicro + bucket).epsilon(1e-9));
  CHECK(r.exposed_comm().seconds() == Approx(bucket).epsilon(1e-9));
  CHECK(r.overlap().seconds() == Approx(7 * bucket).epsilon(1e-9));
}

TEST_CASE("DDP buckets: the first holds 1 MiB, the rest fill to 25 MiB in backward order", "[training]") {
  Workload w;
  for (int i = 0; i < 20; ++i) w.layers.push_back({"l", 1 << 20});  // 4 MiB of fp32 each
  const auto b = gradient_buckets(w, 4, Bytes{1 << 20}, Bytes{25 << 20});
  // Backward order: layer 19 alone (>= 1 MiB), then 7 layers (28 MiB >= 25), 7 more, then the last 5.
  REQUIRE(b.size() == 4);
  CHECK(b[0] == std::make_pair(Bytes{4 << 20}, 19));
  CHECK(b[1] == std::make_pair(Bytes{28 << 20}, 12));
  CHECK(b[2] == std::make_pair(Bytes{28 << 20}, 5));
  CHECK(b[3] == std::make_pair(Bytes{20 << 20}, 0));
}

TEST_CASE("Horovod fusion never exceeds the threshold, a larger layer travels alone", "[training]") {
  Workload w;
  for (std::int64_t params : {std::int64_t{40} << 20, std::int64_t{3} << 20, std::int64_t{3} << 20, std::int64_t{3} << 20,
                              std::int64_t{3} << 20, std::int64_t{3} << 20})
    w.layers.push_back({"l", params});  // fp32: 160 MiB, then five of 12 MiB
  const auto b = gradient_buckets(w, 4, Bytes{0}, Bytes{64 << 20}, BucketRule::NeverExceed);
  // Backward order: 12+12+12+12+12 = 60 MiB fits; the 160 MiB layer would overflow it and exceeds
  // the threshold on its own, so it goes alone.
  REQUIRE(b.size() == 2);
  CHECK(b[0] == std::make_pair(Bytes{60 << 20}, 1));
  CHECK(b[1] == std::make_pair(Bytes{160 << 20}, 0));
  // DDP's rule on the same layers with the same cap: the 160 MiB layer joins the open bucket.
  const auto d = gradient_buckets(w, 4, Bytes{0}, Bytes{64 << 20}, BucketRule::FillToCap);
  REQUIRE(d.size() == 1);
  CHECK(d[0] == std::make_pair(Bytes{220 << 20}, 0));
}

TEST_CASE("100 equal buckets cost one collective simulation", "[training]") {
  Setup s = setup(4, 100);
  s.job.strategy.bucket = s.job.strategy.first_bucket = Bytes{kParams * 4};
  CollectiveTimer timer(s.cluster.topology, s.job.order, s.job.ecmp, s.job.seed, false);
  const StepResult r = simulate_step(s.job, timer);
  CHECK(r.collectives.at(0).count == 100);
  CHECK(timer.simulations() == 1);
}

TEST_CASE("accumulation k: sync once per k micro-batches, so its cost per sample falls by k", "[training]") {
  const int p = 4;
  const int k = GENERATE(2, 4, 8);
  Setup s = setup(p, 8);
  s.job.strategy.overlap = false;
  const StepResult one = step(s);
  s.job.strategy.accumulation = k;
  const StepResult many = step(s);
  CHECK(many.compute.seconds() == Approx(k * kMicro).epsilon(1e-9));
  CHECK(many.exposed_comm() == one.exposed_comm());
  const double per_sample_one = one.exposed_comm().seconds() / (p * 1.0);
  const double per_sample_many = many.exposed_comm().seconds() / (p * double(k));
  CHECK(per_sample_many == Approx(per_sample_one / k).epsilon(1e-12));
}

TEST_CASE("communication volume: ZeRO-1/2 equal all-reduce (2 psi), ZeRO-3 and FSDP 1.5x (3 psi)", "[training]") {
  const int p = 4;
  Setup s = setup(p, 8);
  auto volume = [&](StrategyKind kind) {
    s.job.strategy.kind = kind;
    double v = 0;
    for (const CollectiveUse& c : step(s).collectives)
      v += c.count * double(c.bytes.count()) * busbw_factor(c.collective, p);
    return v;
  };
  const double ddp = volume(StrategyKind::TorchDdp);
  CHECK(ddp == Approx(2.0 * (p - 1) / p * 8 * kParams * 4).epsilon(1e-12));
  CHECK(volume(StrategyKind::Zero1) == Approx(ddp).epsilon(1e-12));
  CHECK(volume(StrategyKind::Zero2) == Approx(ddp).epsilon(1e-12));
  CHECK(volume(StrategyKind::Zero3) == Approx(1.5 * ddp).epsilon(1e-12));
  CHECK(volume(StrategyKind::Fsdp) == Approx(1.5 * ddp).epsilon(1e-12));
}

TEST_CASE("FSDP: per layer two all-gathers and one reduce-scatter, each a ring (p-1)(alpha + N/(pB))", "[training]") {
  const int p = 4;
  Setup s = setup(p, 8);
  s.job.strategy.kind = StrategyKind::Fsdp;
  const StepResult r = step(s);
  CHECK(r.comm.seconds() == Approx(8 * 3 * ring_half(p, kParams * 4.0)).epsilon(1e-9));
  // The first forward all-gather cannot be hidden and the last reduce-scatter follows all compute.
  CHECK(r.step.seconds() == Approx(kMicro + 2 * ring_half(p, kParams * 4.0)).epsilon(1e-9));
}

TEST_CASE("mixed precision halves the gradient bytes and uses the 16-bit peak", "[training]") {
  Setup s = setup(4, 8);
  s.job.strategy.precision = Precision::Mixed16;
  s.job.strategy.gradient_dtype = DataType::Bf16;
  for (GpuCompute& g : s.job.rank_gpus) g.peak_flops[std::size_t(Precision::Mixed16)] = 4 * test::kTestPeak;
  const StepResult r = step(s);
  CHECK(r.compute.seconds() == Approx(kMicro / 4).epsilon(1e-9));
  CHECK(r.collectives.at(0).bytes.count() % 2 == 0);
  double bytes = 0;
  for (const CollectiveUse& c : r.collectives) bytes += double(c.count) * double(c.bytes.count());
  CHECK(bytes == 8.0 * kParams * 2);
}

TEST_CASE("memory: ZeRO's 16 bytes per parameter under mixed-precision Adam, sharded by stage", "[training]") {
  Setup s = setup(4, 10);  // 10 Mi parameters
  const double psi = 10.0 * kParams;
  s.job.strategy.precision = Precision::Mixed16;
  s.job.workload.optimizer_state_bytes = 8;
  auto mem = [&](StrategyKind k) {
    s.job.strategy.kind = k;
    return estimate_memory(s.job);
  };
  const MemoryEstimate ddp = mem(StrategyKind::TorchDdp);
  CHECK(double((ddp.weights + ddp.gradients + ddp.optimizer).count()) == Approx(16 * psi).epsilon(1e-9));
  CHECK(double(mem(StrategyKind::Zero1).optimizer.count()) == Approx(12 * psi / 4).epsilon(1e-9));
  CHECK(double(mem(StrategyKind::Zero2).gradients.count()) == Approx(2 * psi / 4).epsilon(1e-9));
  const MemoryEstimate z3 = mem(StrategyKind::Zero3);
  CHECK(double(z3.weights.count()) == Approx(2 * psi / 4 + 2 * 2.0 * kParams).epsilon(1e-9));
}

TEST_CASE("memory fit: Llama-2 70B does not fit 80 GB GPUs with DDP, fits with FSDP over 64 GPUs", "[training]") {
  test::Cluster c = test::leaf_cluster(64, 1, kB, kLatency, kOverhead);
  TrainJob job = test::test_job(c.gpus, 1, 1, kMicro);
  job.workload = *find_workload("llama2-70b");
  job.rank_gpus.assign(c.gpus.size(), *find_gpu_compute("h100"));
  job.strategy.precision = Precision::Mixed16;
  job.strategy.activation_checkpointing = true;
  job.batch = 1;
  const MemoryEstimate ddp = estimate_memory(job);
  CHECK_FALSE(ddp.fits());
  CHECK(double(ddp.total().count()) > 16 * 68.9e9);
  job.strategy.kind = StrategyKind::Fsdp;
  CHECK(estimate_memory(job).fits());
}

TEST_CASE("presets: parameter counts of the cited architectures", "[training]") {
  CHECK(find_workload("resnet50")->parameters() == 25557032);
  CHECK(find_workload("gpt2-1.5b")->parameters() == 1557611200);
  CHECK(find_workload("llama2-7b")->parameters() == 6738415616);
  CHECK(find_workload("llama2-70b")->parameters() == 68976648192);
  // 6 N per token (Kaplan et al.) for 4096 tokens.
  CHECK(find_workload("llama2-7b")->flops_per_sample == Approx(6.0 * 6738415616.0 * 4096).epsilon(1e-12));
}

TEST_CASE("one-host strategies refuse a multi-host job", "[training]") {
  Setup s = setup(4, 8);
  s.job.strategy.kind = StrategyKind::TfMirrored;
  CHECK_THROWS_AS(step(s), std::invalid_argument);
}
