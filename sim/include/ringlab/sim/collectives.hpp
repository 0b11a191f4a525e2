// Collective algorithms: compile a collective over a rank order into a Schedule.
//
// Every builder works on the same buffer model: each rank holds a buffer of `message` bytes (the size
// nccl-tests reports; for ReduceScatter/AllGather the whole array, rank r owning block r =
// [N*r/p, N*(r+1)/p) in whole elements). The buffer is split per channel and then into pieces of at
// most `chunk` bytes per step. Every op's dependencies are derived from which earlier op last
// produced the bytes it reads, so phases of composed algorithms overlap exactly as far as the data
// allows; in addition a connection (sender, receiver, channel) carries one piece at a time in issue
// order (NCCL's per-peer FIFO). Pieces therefore pipeline along chains and trees
// ((p-1 + k-1) * (alpha + c/B) for a k-piece chain broadcast), while on a ring, whose every link is
// busy in every step, chunking only adds one alpha per piece. Building is deterministic and O(ops).
//
// Algorithms (name in files and on the command line) and the collectives each supports:
//   ring              all five. AllReduce = reduce-scatter + allgather around the ring of ranks in
//                     order (rank i sends to i+1; CollectiveSpec::channel_rings gives each channel
//                     its own order); Broadcast/Reduce are a pipelined chain from/to the root along
//                     the ring (NCCL's ring pattern for them).
//   tree              AllReduce, Broadcast, Reduce. NCCL's double binary tree (trees.cc
//                     ncclGetBtree/ncclGetDtree: the second tree mirrored for even p, shifted for odd p),
//                     built over rank positions; each tree carries half the data; op.channel =
//                     2*channel + tree. AllReduce reduces up to the root and broadcasts down.
//   hierarchical      all five (leader mode: not ReduceScatter/AllGather; rail mode with inter tree:
//                     not ReduceScatter/AllGather: both rejected naming what to use instead). Nodes
//                     are the hosts of the ranks' GPUs, in first-seen order; within a node ranks keep
//                     their order. Leader mode (TensorFlow's HierarchicalCopy) funnels each node
//                     through one rank, the root in its own node and the first rank elsewhere:
//                       AllReduce  direct reduce to the leader, ring or tree allreduce among
//                                  leaders, direct broadcast back;
//                       Broadcast  chain (inter ring) or double binary tree (inter tree) of leaders
//                                  from the root, then each leader broadcasts directly in its node;
//                       Reduce     the mirror: direct reduce to each leader, chain/tree reduce of
//                                  leaders to the root.
//                     Rail mode: the ranks of local position l form rail l, each over its own NIC;
//                     needs the same rank count on every node.
//                       AllReduce  intra-node ring reduce-scatter, per-rail ring or tree allreduce
//                                  of each rank's 1/L, intra-node ring allgather;
//                       Broadcast  the root scatters its node's L blocks, each rail broadcasts its
//                                  block (chain/tree), intra-node ring allgather everywhere (van de
//                                  Geijn; the root also receives its own blocks back);
//                       Reduce     the mirror: intra-node ring reduce-scatter, per-rail chain/tree
//                                  reduce to the root's node, its ranks send their block to the root;
//                       ReduceScatter  intra-node ring reduce-scatter of columns (member l gets the
//                                  blocks of every node's member l, one message per node per step),
//                                  then per-rail ring reduce-scatter of each rank's own block;
//                       AllGather  the mirror: per-rail ring allgather, then intra-node of columns.
//                     Network bytes per rank: (n-1)/n * N/L for ReduceScatter/AllGather.
//   ring2d            all five: rail mode with inter-node rings (rows = nodes, columns = local index).
//   halving_doubling  AllReduce, ReduceScatter, AllGather. Rabenseifner's recursive halving
//                     (reduce-scatter) and doubling (allgather), partner i XOR d. Power-of-two rank
//                     counts only: other counts are rejected (use ring or tree).
//   direct            all five. All-to-all reduce-scatter (every rank sends each 1/p block straight to
//                     its owner) and all-to-all allgather; Broadcast/Reduce are a star from/to the root.
//   reduce_broadcast  AllReduce, Broadcast, Reduce. Every rank sends its buffer to the root, which
//                     reduces and sends the result to every rank (TensorFlow ReductionToOneDevice).
//   parameter_server  AllReduce. The buffer is sharded over the servers; workers push each shard to its
//                     server, the server reduces (p-1 Reduce ops per piece), workers pull it back.
//                     Servers: CollectiveSpec::servers, or by default the first CPU of every host that
//                     holds a rank (one server per worker host, the usual co-located PS layout).
//   in_network        AllReduce, ReduceScatter, AllGather, Broadcast, Reduce. Ranks send to the nearest
//                     switch with in_network_reduction (SHARP, or NVLS on an NVSwitch) that all ranks
//                     reach; it aggregates at line rate (no Reduce op is emitted there) and sends the
//                     result back. nccl-tests quotes busbw for in-network reduction with (n-1)/(n+1);
//                     ringlab keeps busbw_factor() unchanged so all algorithms compare on one scale.
//   nccl              what NCCL would run: nccl_choose() (nccl_tuning.hpp) picks ring, tree or
//                     in_network, the protocol and the channel count, and the chunk is that protocol's
//                     step size; with a compressed payload it skips in_network (NVLS, CollNet) and
//                     takes the model's best remaining pair. The caller sets SimOptions::protocol
//                     from nccl_choose() with the same payload.
//
// Payload compression (payload.hpp): quantisation works with every algorithm except in_network;
// top-k works for AllReduce with ring, direct and halving_doubling (allgather of sparse parts).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/payload.hpp"
#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/topology.hpp"
#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

enum class Algorithm : std::uint8_t {
  Ring,
  Tree,
  Hierarchical,
  Ring2D,
  HalvingDoubling,
  Direct,
  ReduceBroadcast,
  ParameterServer,
  InNetwork,
  Nccl,
};
inline constexpr int kAlgorithmCount = 10;

/// Hierarchical: how the node level is organised.
enum class Hierarchy : std::uint8_t { Leader, Rail };
/// Hierarchical, and tree with host chains: the algorithm run between nodes (InNetwork: SHARP's
/// aggregation tree per group, as NCCL's CollNet Direct does per rail and CollNet Chain per channel).
enum class InterAlgorithm : std::uint8_t { Ring, Tree, InNetwork };

struct CollectiveSpec {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  Bytes message;                            ///< per-rank buffer in bytes of `payload.dtype`, a whole number of elements
  Payload payload;                          ///< element type and compression
  int channels = 1;                         ///< parallel rings/trees (op.channel; the simulator keys ECMP on it), >= 1
  Bytes chunk;                              ///< largest piece a step moves per block; 0 = no pipelining (one piece)
  /// Cut each channel's share into pieces of exactly `chunk` bytes with the remainder last, as NCCL's
  /// kernels loop over theirs (so a few more bytes never buy a finer pipeline); false: as many equal
  /// pieces as `chunk` needs. Set by the nccl algorithm, except for ring AllReduce, ReduceScatter and
  /// AllGather.
  bool whole_chunks = false;
  int root = 0;                             ///< Broadcast/Reduce root, a rank index
  Hierarchy hierarchy = Hierarchy::Leader;  ///< hierarchical only
  InterAlgorithm inter = InterAlgorithm::Ring;  ///< hierarchical; tree with host_chains (InNetwork only)
  /// hierarchical rail AllReduce: each node's level runs on its reducing NVSwitch (NVLS: the switch
  /// sums block l of every rank for rank l, and multicasts it back), not as a ring; NCCL's NVLS-Tree
  /// with inter = tree. Set by the nccl algorithm.
  bool intra_in_network = false;
  std::vector<DeviceId> servers;                ///< parameter_server: PS devices; empty = default
  /// ring (also when nccl picks ring): the ring order of each channel. Channel c uses
  /// channel_rings[c % size()], a permutation of rank indices 0..p-1: ring position k holds rank
  /// channel_rings[c][k] and sends to position k+1 (chains for Broadcast/Reduce run along it from
  /// the root). Empty = identity (rank i sends to i+1). Other algorithms and top-k ignore it.
  std::vector<std::vector<int>> channel_rings;
  /// tree AllReduce with channel_rings: NCCL's tree (src/graph/trees.cc, connect.cc). Channel c
  /// chains each host's ranks in the order channel_rings[c] visits them, below the host's first rank
  /// there (its head, by the channel's NIC); the heads are joined by the double binary tree over the
  /// hosts in ring order, or with inter = InNetwork meet in the network's reduction (NCCL's CollNet
  /// Chain). Set by the nccl algorithm; false = the flat double binary tree over ranks.
  bool host_chains = false;
  /// Algorithm::Nccl: the NCCL environment NCCL's choice runs under (NCCL_ALGO, NCCL_PROTO, ...).
  NcclEnv nccl_env;
};

/// Compiles `spec` over `ranks` (rank r runs on GPU ranks[r]; the order is the ring order).
/// Throws std::invalid_argument with a message naming the algorithm when the algorithm does not
/// apply: unsupported collective, non-power-of-two p for halving_doubling, no reducing switch for
/// in_network, unequal node sizes for rail mode, a message that is not a whole number of elements,
/// ranks that are not distinct devices of `topology`. A single rank gives an empty schedule.
/// Deterministic: the same inputs give the same schedule.
Schedule build_schedule(const Topology& topology, std::span<const DeviceId> ranks, const CollectiveSpec& spec);

/// True when `algorithm` implements `collective` (independent of topology and rank count).
bool supports(Algorithm algorithm, Collective collective);

std::string_view to_string(Algorithm algorithm);
std::string_view to_string(Hierarchy hierarchy);
std::string_view to_string(InterAlgorithm inter);
/// Names as in the table above; also accepts "rabenseifner", "hd", "ps", "sharp", "nvls",
/// "2d_ring", "leader", "reduction_to_one_device". nullopt on a miss.
std::optional<Algorithm> find_algorithm(std::string_view name);
std::optional<Hierarchy> find_hierarchy(std::string_view name);
std::optional<InterAlgorithm> find_inter_algorithm(std::string_view name);
/// Comma-separated list of the algorithm names, for error messages.
std::string algorithm_names();

/// The nearest switch with in-network reduction that every rank reaches (smallest worst-case hop
/// count, then smallest total, then lowest id), or nullopt when there is none.
std::optional<DeviceId> find_reducing_switch(const Topology& topology, std::span<const DeviceId> ranks);

/// Default parameter servers: the first CPU (lowest local index) of every host holding a rank, in
/// first-seen order. Throws std::invalid_argument when such a host has no CPU device.
std::vector<DeviceId> default_parameter_servers(const Topology& topology, std::span<const DeviceId> ranks);

}  // namespace ringlab::sim
