// Levels: a Schedule cut into the steps a harness executes, the same on every rank.
//
// NCCL's point-to-point calls run in groups (ncclGroupStart/End) on one CUDA stream, and a
// send/recv pair only completes when both ranks have issued it; MPI's non-blocking calls likewise
// need the matching receive to be posted. The harness therefore executes a schedule level by level:
// level L holds the Sends and Recvs whose dependencies all finished in earlier levels (issued
// together, one group), then the local ops (Reduce, Copy) that depend on them or on each other at
// that level (run in insertion order after the group). Levels are numbered globally, so a Send
// and its Recv always share a level and every rank issues its transfers to one peer in the same
// order as the peer issues the matching ones (op id order), which is what NCCL and MPI match by.
//
// Level of a local op: the highest level among its dependencies (0 with none). Level of a transfer:
// one more than the highest level among the dependencies of its Send and of its Recv. A rank never
// waits for another rank's local work except through a transfer, so levels add no barrier; they
// only serialise transfers behind the local work they depend on, as NCCL's own kernels do.
#pragma once

#include <string>
#include <vector>

#include "ringlab/sim/schedule.hpp"

namespace ringlab::validate {

struct Level {
  std::vector<sim::OpId> transfers;  ///< this rank's Sends and Recvs of the level, in op id order
  std::vector<sim::OpId> local;      ///< this rank's local ops of the level, in op id order
};

/// What one rank executes: its levels, index = global level number (levels where it has nothing
/// to do are empty, kept so that every rank sees the same numbering).
struct RankProgram {
  std::vector<Level> levels;
  std::size_t op_count() const;
};

/// Reasons the harness cannot execute `schedule` on real buffers, one line each; empty when it can.
/// Executable schedules use ranks only (no switch or parameter-server endpoints), Send/Recv/Reduce/
/// Copy ops (no compression codecs), overwriting Recvs, and the Data and Inbox buffers.
std::vector<std::string> unsupported(const sim::Schedule& schedule);

/// One program per rank. Precondition: unsupported(schedule) is empty.
std::vector<RankProgram> compile_programs(const sim::Schedule& schedule);

/// The ranks that send into rank `rank`'s Inbox (slot owners), ascending: the Inbox buffers it needs.
std::vector<sim::Endpoint> inbox_peers(const sim::Schedule& schedule, sim::Endpoint rank);

}  // namespace ringlab::validate
