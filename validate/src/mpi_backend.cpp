// The MPI back-end: CPU buffers; the library mode calls MPI's own collectives (MPI_Allreduce, ...),
// the schedule mode executes the schedule level by level with MPI_Isend/MPI_Irecv and CPU
// reductions. Times are MPI_Wtime around one iteration on this rank.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "backend.hpp"
#include "ringlab/topology/error.hpp"
#include "world.hpp"

namespace ringlab::validate {
namespace {

void check(int status, const char* call) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

MPI_Datatype mpi_type(ElementType type) {
  switch (type) {
    case ElementType::Double: return MPI_DOUBLE;
    case ElementType::Int32: return MPI_INT32_T;
    default: return MPI_FLOAT;
  }
}

/// A typed view of a byte buffer for fills and checks.
template <typename T>
void fill_range(std::vector<std::byte>& buffer, std::int64_t first_index, std::int64_t count, const CheckShape& s,
                bool poison) {
  T* p = reinterpret_cast<T*>(buffer.data());
  for (std::int64_t j = 0; j < count; ++j) p[j] = T(poison ? kPoison : initial_value(s, first_index + j));
}

template <typename T>
std::int64_t wrong_in(const std::vector<std::byte>& buffer, std::int64_t first_index, std::int64_t count,
                      const CheckShape& s) {
  const T* p = reinterpret_cast<const T*>(buffer.data());
  std::int64_t wrong = 0;
  for (std::int64_t j = 0; j < count; ++j) {
    double want = 0;
    if (expected_value(s, first_index + j, &want) && double(p[j]) != want) ++wrong;
  }
  return wrong;
}

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(const World& world) : world_(world) {}

  std::string engine() const override { return "mpi (" + world_.mpi_version() + ")"; }
  std::string device() const override { return "cpu"; }

  std::string unsupported(ElementType type, bool schedule) const override {
    if (schedule && type != ElementType::Float) return "the mpi back-end executes schedules in float only";
    if (type == ElementType::Half || type == ElementType::Bfloat16)
      return std::string("MPI has no ") + nccl_tests_name(type) + " reduction";
    return "";
  }

  void prepare(const Case& c) override {
    const std::size_t elem = std::size_t(element_bytes(c.type));
    if (c.count * std::int64_t(elem) > std::int64_t(INT32_MAX))
      throw InputError("", "-e", "the mpi back-end moves at most 2 GiB - 1 bytes per call (MPI counts are int)");
    data_.resize(std::size_t(c.count) * elem);
    send_.resize(std::size_t(c.input_count()) * elem);
    recv_.resize(std::size_t(c.output_count()) * elem);
    inbox_.clear();
    if (c.schedule)
      for (sim::Endpoint peer : inbox_peers(*c.schedule, sim::Endpoint(c.rank)))
        inbox_[peer].resize(std::size_t(c.count) * elem);
    requests_.reserve(64);
  }

  void fill(const Case& c) override {
    switch (c.type) {
      case ElementType::Double: return fill_typed<double>(c);
      case ElementType::Int32: return fill_typed<std::int32_t>(c);
      default: return fill_typed<float>(c);
    }
  }

  Duration run(const Case& c) override {
    const double start = MPI_Wtime();
    if (c.schedule) run_schedule(c);
    else run_library(c);
    return Duration::from_seconds(MPI_Wtime() - start);
  }

  std::int64_t count_wrong(const Case& c) override {
    switch (c.type) {
      case ElementType::Double: return wrong_typed<double>(c);
      case ElementType::Int32: return wrong_typed<std::int32_t>(c);
      default: return wrong_typed<float>(c);
    }
  }

 private:
  template <typename T>
  void fill_typed(const Case& c) {
    const CheckShape s = c.shape();
    if (c.in_place || c.schedule) return fill_range<T>(data_, 0, c.count, s, false);
    fill_range<T>(send_, c.input_offset(), c.input_count(), s, false);
    fill_range<T>(recv_, c.output_offset(), c.output_count(), s, true);
  }

  template <typename T>
  std::int64_t wrong_typed(const Case& c) {
    const CheckShape s = c.shape();
    if (!c.in_place && !c.schedule) return wrong_in<T>(recv_, c.output_offset(), c.output_count(), s);
    // MPI's in-place reduce-scatter leaves the rank's block at the start of the buffer.
    if (!c.schedule && c.collective == sim::Collective::ReduceScatter) return wrong_in<T>(data_, c.rank * c.block, c.block, s);
    return wrong_in<T>(data_, 0, c.count, s);
  }

  void run_library(const Case& c) {
    const MPI_Datatype t = mpi_type(c.type);
    const bool in = c.in_place;
    void* data = data_.data();
    switch (c.collective) {
      case sim::Collective::AllReduce:
        check(MPI_Allreduce(in ? MPI_IN_PLACE : send_.data(), in ? data : recv_.data(), int(c.count), t, MPI_SUM,
                            MPI_COMM_WORLD), "MPI_Allreduce");
        return;
      case sim::Collective::ReduceScatter:
        check(MPI_Reduce_scatter_block(in ? MPI_IN_PLACE : send_.data(), in ? data : recv_.data(), int(c.block), t,
                                       MPI_SUM, MPI_COMM_WORLD), "MPI_Reduce_scatter_block");
        return;
      case sim::Collective::AllGather:
        check(MPI_Allgather(in ? MPI_IN_PLACE : send_.data(), in ? 0 : int(c.block), t, in ? data : recv_.data(),
                            int(c.block), t, MPI_COMM_WORLD), "MPI_Allgather");
        return;
      case sim::Collective::Broadcast:
        if (!in && c.rank == c.root) std::memcpy(recv_.data(), send_.data(), send_.size());
        check(MPI_Bcast(in ? data : recv_.data(), int(c.count), t, c.root, MPI_COMM_WORLD), "MPI_Bcast");
        return;
      case sim::Collective::Reduce: {
        const bool root = c.rank == c.root;
        const void* source = in ? (root ? MPI_IN_PLACE : data) : send_.data();
        check(MPI_Reduce(source, in ? data : recv_.data(), int(c.count), t, MPI_SUM, c.root, MPI_COMM_WORLD),
              "MPI_Reduce");
        return;
      }
    }
  }

  std::byte* buffer(sim::Buffer b, sim::Endpoint slot) {
    if (b == sim::Buffer::Inbox) return inbox_.at(slot).data();
    return data_.data();
  }

  void run_schedule(const Case& c) {
    const sim::Schedule& s = *c.schedule;
    const std::int64_t elem = element_bytes(c.type);
    for (const Level& level : c.program->levels) {
      requests_.clear();
      for (sim::OpId id : level.transfers) {
        const sim::Op& op = s.op(id);
        MPI_Request request;
        const int bytes = int(op.count * elem);
        if (op.kind == sim::OpKind::Send) {
          std::byte* from = buffer(op.src, sim::Endpoint(c.rank)) + op.first * elem;
          check(MPI_Isend(from, bytes, MPI_BYTE, int(op.peer), 0, MPI_COMM_WORLD, &request), "MPI_Isend");
        } else {
          std::byte* to = buffer(op.dst, op.peer) + op.first * elem;
          check(MPI_Irecv(to, bytes, MPI_BYTE, int(op.peer), 0, MPI_COMM_WORLD, &request), "MPI_Irecv");
        }
        requests_.push_back(request);
      }
      if (!requests_.empty())
        check(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      for (sim::OpId id : level.local) run_local(s.op(id), elem);
    }
  }

  void run_local(const sim::Op& op, std::int64_t elem) {
    std::byte* dst = buffer(op.dst, op.peer) + op.first * elem;
    const std::byte* src = buffer(op.src, op.peer) + op.first * elem;
    if (op.kind == sim::OpKind::Copy) {
      std::memmove(dst, src, std::size_t(op.count * elem));
      return;
    }
    float* d = reinterpret_cast<float*>(dst);
    const float* x = reinterpret_cast<const float*>(src);
    for (std::int64_t i = 0; i < op.count; ++i) d[i] += x[i];
  }

  const World& world_;
  std::vector<std::byte> data_, send_, recv_;
  std::map<sim::Endpoint, std::vector<std::byte>> inbox_;
  std::vector<MPI_Request> requests_;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend(const World& world) { return std::make_unique<MpiBackend>(world); }

}  // namespace ringlab::validate
