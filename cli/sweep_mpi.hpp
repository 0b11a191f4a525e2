// MPI for `ringlab sweep`, kept behind a small class so that mpi.h is included by one translation unit
// only (sweep_mpi.cpp; cmake/check_layering.cmake enforces it). When the process was not started by an
// MPI launcher, MPI is never initialised and the process is the single rank 0 of 1.
#pragma once

#include <string>
#include <vector>

namespace ringlab::cli {

class SweepMpi {
 public:
  /// Initialises MPI (threads funnelled through the main thread) when a launcher's environment is
  /// present: OMPI_COMM_WORLD_SIZE (Open MPI's mpirun) or PMI_SIZE (MPICH's Hydra, Slurm's srun).
  SweepMpi();
  /// Finalises MPI if this object initialised it.
  ~SweepMpi();
  SweepMpi(const SweepMpi&) = delete;
  SweepMpi& operator=(const SweepMpi&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Ranks on this machine, this one included (1 without MPI).
  int local_size() const { return local_size_; }

  /// Collective: on rank 0, every rank's `local` bytes in rank order; on the others, nothing.
  std::vector<std::string> gather(const std::string& local) const;
  /// Collective: rank 0's `value` on every rank.
  int broadcast(int value) const;

 private:
  bool initialised_ = false;
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
};

}  // namespace ringlab::cli
