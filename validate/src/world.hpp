// The MPI job the harness runs in: rank, size, node-local rank, host names, and the few collectives
// the runner itself needs (barriers, gathering timings). MPI only bootstraps and coordinates; the
// measured collective runs on the back-end (NCCL or MPI itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringlab::validate {

class World {
 public:
  /// MPI_Init_thread (asks for MPI_THREAD_MULTIPLE so the watchdog may call MPI_Abort).
  World(int* argc, char*** argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  const std::string& host() const { return host_; }
  bool abort_from_any_thread() const { return thread_multiple_; }
  /// Every rank's host name, in rank order (gathered once at start).
  const std::vector<std::string>& hosts() const { return hosts_; }
  std::string mpi_version() const;

  void barrier() const;
  /// Element-wise maximum over ranks of `values` (same length everywhere), on every rank.
  void max_all(std::vector<std::int64_t>& values) const;
  std::int64_t sum_all(std::int64_t value) const;
  /// Every rank's `value`, on every rank.
  std::vector<std::int64_t> gather_all(std::int64_t value) const;
  /// Every rank's `text`, in rank order, on every rank.
  std::vector<std::string> gather_strings(const std::string& text) const;
  /// Rank 0's bytes on every rank (`bytes` is resized on the others).
  void broadcast(std::vector<char>& bytes) const;
  /// Ends the whole job now (MPI_Abort), from any thread when abort_from_any_thread().
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  bool thread_multiple_ = false;
  std::string host_;
  std::vector<std::string> hosts_;
};

}  // namespace ringlab::validate
