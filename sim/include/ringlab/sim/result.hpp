// Result: what one simulated (or, later, measured) collective run produced. The validation harness
// returns the same shape, so predicted and measured runs compare field by field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

/// Traffic on one direction of one link.
struct ChannelStats {
  ChannelId channel = 0;
  Bytes bytes;            ///< bytes that crossed it
  Duration busy;          ///< time with at least one flow on it
  double utilisation = 0; ///< bytes / (capacity * run time), in [0, 1]
};

/// When one op ran. For a Recv, start is when its flow started moving and end is delivery.
struct OpSpan {
  OpId op = 0;
  Duration start;
  Duration end;
};

struct Result {
  Collective collective = Collective::AllReduce;
  std::string algorithm;
  Bytes message;          ///< per-rank buffer size as nccl-tests counts it
  int ranks = 0;
  Duration time;          ///< from the first op becoming ready to the last op finishing

  /// nccl-tests: algbw = S / t; busbw = algbw * busbw_factor(collective, ranks).
  Bandwidth algbw() const;
  Bandwidth busbw() const;

  std::vector<ChannelStats> channels;     ///< channels that carried bytes, by channel id
  std::vector<ChannelId> bottlenecks;     ///< most utilised channels, highest first (ties by id)
  std::vector<OpId> critical_path;        ///< ops on the longest dependency chain, first to last
  std::vector<OpSpan> timeline;           ///< every op, by op id (empty unless recorded)

  std::uint64_t events = 0;               ///< discrete events processed
  std::uint64_t flows = 0;                ///< network flows simulated
  std::uint64_t rate_updates = 0;         ///< max-min recomputations
};

}  // namespace ringlab::sim
