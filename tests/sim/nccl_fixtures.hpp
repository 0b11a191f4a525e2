// NCCL tuning-model fixtures shared by the nccl tests.
#pragma once

#include "ringlab/sim/nccl_tuning.hpp"

namespace ringlab::sim::test {

/// One H100 node as NCCL's model sees it: 8 GPUs with 18 NVLink4 links (450 GB/s), 16 channels;
/// `version` picks NCCL's tuning tables (0 = the newest).
inline NcclModel h100_node_model(int version = 0) {
  using namespace ringlab::literals;
  NcclModel m;
  m.ranks = 8;
  m.nodes = 1;
  m.channels = 16;
  m.nvlink = true;
  m.nvswitch = true;
  m.gpu = GpuModel::H100;
  m.intra = 450_GBps;
  m.nvlinks = 18;
  m.env.version = version;
  return m;
}

}  // namespace ringlab::sim::test
