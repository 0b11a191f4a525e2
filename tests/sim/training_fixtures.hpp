// Training jobs built by hand for the training tests: a model of equal layers, a GPU whose micro-batch
// time is exactly the one asked for (peak 1 TFLOP/s, efficiency 0.5 at every batch), collectives
// without compute cost, so step times follow the closed forms of analytic_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "ringlab/sim/training.hpp"

namespace ringlab::test {

inline constexpr double kTestPeak = 1e12;
inline constexpr double kTestMfu = 0.5;

inline sim::GpuCompute test_gpu() {
  sim::GpuCompute g = *sim::find_gpu_compute("generic");
  g.name = "test";
  g.peak_flops = {kTestPeak, kTestPeak, kTestPeak, kTestPeak};
  g.mfu_max = {kTestMfu, kTestMfu, kTestMfu, kTestMfu};
  return g;
}

/// DDP, fp32, batch 1, `layers` layers of `params` parameters each, forward+backward = micro_seconds.
inline sim::TrainJob test_job(const std::vector<DeviceId>& ranks, int layers, std::int64_t params,
                              double micro_seconds) {
  sim::TrainJob j;
  j.workload.name = "test";
  for (int i = 0; i < layers; ++i) j.workload.layers.push_back({"l" + std::to_string(i), params});
  j.workload.half_batch = 0;
  j.workload.flops_per_sample = micro_seconds * kTestPeak * kTestMfu;
  j.workload.activation_elements = 0;
  j.batch = 1;
  j.order.ranks = ranks;
  j.rank_gpus.assign(ranks.size(), test_gpu());
  j.strategy.kind = sim::StrategyKind::TorchDdp;
  j.strategy.precision = sim::Precision::Fp32;
  j.strategy.gradient_dtype = sim::DataType::Fp32;
  j.collective_compute = false;
  j.steps = 20;
  return j;
}

}  // namespace ringlab::test
