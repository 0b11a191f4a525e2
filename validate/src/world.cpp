// MPI bootstrap and coordination (see world.hpp).
#include "world.hpp"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

namespace ringlab::validate {
namespace {

void check(int status, const char* call) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

}  // namespace

World::World(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  thread_multiple_ = provided >= MPI_THREAD_MULTIPLE;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  check(MPI_Comm_rank(local, &local_rank_), "MPI_Comm_rank");
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  host_.assign(name, std::size_t(length));
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                      MPI_COMM_WORLD),
        "MPI_Allgather");
  for (int r = 0; r < size_; ++r) hosts_.emplace_back(&all[std::size_t(r) * MPI_MAX_PROCESSOR_NAME]);
}

World::~World() { MPI_Finalize(); }

std::string World::mpi_version() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, std::size_t(length));
  if (const auto comma = v.find(','); comma != std::string::npos) v.resize(comma);  // "Open MPI v4.1.4, package: ..."
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

void World::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void World::max_all(std::vector<std::int64_t>& values) const {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
        "MPI_Allreduce");
}

std::int64_t World::sum_all(std::int64_t value) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return value;
}

std::vector<std::int64_t> World::gather_all(std::int64_t value) const {
  std::vector<std::int64_t> all(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD), "MPI_Allgather");
  return all;
}

std::vector<std::string> World::gather_strings(const std::string& text) const {
  const std::vector<std::int64_t> lengths = gather_all(std::int64_t(text.size()));
  std::vector<int> counts, offsets;
  int total = 0;
  for (std::int64_t n : lengths) {
    counts.push_back(int(n));
    offsets.push_back(total);
    total += int(n);
  }
  std::vector<char> all(std::size_t(total) + 1);
  check(MPI_Allgatherv(text.data(), int(text.size()), MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < counts.size(); ++r) out.emplace_back(&all[std::size_t(offsets[r])], std::size_t(counts[r]));
  return out;
}

void World::broadcast(std::vector<char>& bytes) const {
  std::int64_t n = std::int64_t(bytes.size());
  check(MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(std::size_t(n));
  check(MPI_Bcast(bytes.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void World::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace ringlab::validate
