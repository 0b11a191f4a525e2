// RankOrder: which GPU each rank runs on, and optionally a different ring per channel.
//
// The order is the lever the planner turns and the thing the validation harness must reproduce:
// NCCL stitches nodes into rings and trees in global rank order (shared/reference/launchers.md 1),
// and launchers fix that order from a hostfile, a rankfile or SLURM_HOSTFILE. Every algorithm builds
// over a RankOrder: ring neighbours, tree shapes, hierarchical leaders and parameter-server placement
// follow `ranks`; flat-ring channels may each use their own permutation (NCCL builds one ring per
// channel).
//
// Sources, all resolved against a Topology into GPU device ids:
//   - declaration order (the default: the i-th GPU declared in the scenario is rank i);
//   - a scenario's "rank_order" (in the "simulate" and "train" sections): an array of names, or
//     {"ranks": [names], "channel_rings": [[rank indices or names], ...]};
//   - a file (--rank-order FILE): plain text, one entry per line, or JSON (a plan written by the
//     planner, or any object with a "rank_order" member, or a bare array).
// A text entry is a GPU name ("r1h6/gpu0") or a host name. A host named on one line only stands for
// all its GPUs in local order (so a hostfile with one host per line works as is); a host named on
// several lines takes its next GPU per line (SLURM_HOSTFILE's one line per task); "host slots=N"
// (Open MPI, DeepSpeed) and "host:N" (MPICH) take its next N GPUs; "a,b,c" lists several entries
// (Slurm). '#' starts a comment; blank lines are ignored. Unknown names, repeated GPUs, a host asked
// for more GPUs than it has, and an order that does not name exactly the GPUs the run needs are
// InputErrors naming the file and the line (or JSON pointer).
#pragma once

#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "ringlab/topology/json_reader.hpp"
#include "ringlab/topology/topology.hpp"

namespace ringlab::sim {

struct RankOrder {
  std::vector<DeviceId> ranks;                  ///< rank r runs on GPU ranks[r]
  /// Optional per-channel rings: channel c uses channel_rings[c % size()], a permutation of the rank
  /// indices 0..p-1 in ring order (position k sends to position k+1). Empty: every channel uses 0..p-1.
  std::vector<std::vector<int>> channel_rings;
  std::string source = "declaration order";     ///< where the order came from, for reports

  int size() const { return int(ranks.size()); }
  bool per_channel() const { return !channel_rings.empty(); }
  /// 16 hex digits identifying the order (FNV-1a over the GPU names and rings): equal orders on
  /// the same cluster give equal digests.
  std::string digest(const Topology& topology) const;
  /// The order as JSON: an array of GPU names, or {"ranks": [...], "channel_rings": [...]}.
  nlohmann::json to_json(const Topology& topology) const;
};

/// The first `count` GPUs in declaration order; count 0 means every GPU.
/// Precondition: 0 <= count <= topology.gpus().size().
RankOrder declaration_order(const Topology& topology, int count = 0);

/// Reads a "rank_order" value of a scenario section (see above) at node.path: an array of names, an
/// object {"ranks", "channel_rings"}, or a string naming a rank-order file (relative paths are taken
/// from the directory of `scenario_file`). `count` is the rank count the run asks for (0: every GPU
/// of the cluster). Problems go to `reader`, and nullopt is returned when there were any; a named
/// file with problems throws its own InputError.
std::optional<RankOrder> read_rank_order(const Topology& topology, JsonReader& reader, const JsonNode& node, int count,
                                         const std::string& scenario_file = {});

/// Reads a rank-order file (text or JSON, detected by its first non-blank character). `count` as
/// above. Throws InputError naming `path` and the line or JSON pointer of every problem.
RankOrder load_rank_order(const Topology& topology, const std::string& path, int count);

/// Parses the contents of a rank-order file (text or JSON) as load_rank_order() does; `path` names it
/// in problems and becomes RankOrder::source.
RankOrder parse_rank_order(const Topology& topology, const std::string& text, const std::string& path, int count);

/// Parses rank-order text as load_rank_order() does a text file; `file` names it in problems.
RankOrder parse_rank_order_text(const Topology& topology, std::string_view text, const std::string& file, int count);

}  // namespace ringlab::sim
