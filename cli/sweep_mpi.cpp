// The only translation unit that includes mpi.h (besides validate/): launcher detection, MPI_Init and
// MPI_Finalize, and the two collectives the sweep driver needs.
#include "sweep_mpi.hpp"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace ringlab::cli {
namespace {

bool launched_by_mpi() { return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE"); }

void check(int status, const char* call) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

}  // namespace

SweepMpi::SweepMpi() {
  if (!launched_by_mpi()) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  initialised_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  check(MPI_Comm_size(local, &local_size_), "MPI_Comm_size");
  MPI_Comm_free(&local);
}

SweepMpi::~SweepMpi() {
  if (initialised_) MPI_Finalize();
}

std::vector<std::string> SweepMpi::gather(const std::string& local) const {
  if (!initialised_) return {local};
  if (local.size() > std::size_t(INT_MAX)) throw std::runtime_error("a rank's results exceed 2 GiB");
  const int length = int(local.size());
  std::vector<int> lengths(rank_ == 0 ? std::size_t(size_) : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(lengths.size(), 0);
  long long total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (total > INT_MAX) throw std::runtime_error("the gathered results exceed 2 GiB");
    offsets[r] = int(total);
    total += lengths[r];
  }
  std::string all(std::size_t(total), '\0');
  check(MPI_Gatherv(local.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < lengths.size(); ++r) parts.push_back(all.substr(std::size_t(offsets[r]), std::size_t(lengths[r])));
  return parts;
}

int SweepMpi::broadcast(int value) const {
  if (initialised_) check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

}  // namespace ringlab::cli
