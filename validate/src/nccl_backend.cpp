// The NCCL back-end: one GPU per rank (the node-local rank's device; a plan's nccl.env sets
// CUDA_VISIBLE_DEVICES so that local rank i sees its planned GPU as device i). The communicator is
// built from a unique id that rank 0 makes and MPI broadcasts. Library mode calls NCCL's collectives
// (ncclAllReduce, ...); schedule mode executes the schedule level by level, each level's transfers in
// one ncclGroupStart/End of ncclSend/ncclRecv and its reductions as kernels on the same stream. Times
// are CUDA events around one iteration on the rank's stream.
#include <cuda_runtime.h>
#include <nccl.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "kernels.hpp"
#include "world.hpp"

namespace ringlab::validate {
namespace {

void cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}
void nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw std::runtime_error(std::string(call) + ": " + ncclGetErrorString(status));
}

ncclDataType_t nccl_type(ElementType type) {
  switch (type) {
    case ElementType::Half: return ncclHalf;
    case ElementType::Bfloat16: return ncclBfloat16;
    case ElementType::Double: return ncclDouble;
    case ElementType::Int32: return ncclInt32;
    default: return ncclFloat;
  }
}

/// A device allocation that grows on demand.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }
  void reserve(std::size_t bytes) {
    if (bytes <= size_) return;
    cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
    cuda(cudaMalloc(&data_, bytes), "cudaMalloc");
    size_ = bytes;
  }
  std::byte* get() const { return static_cast<std::byte*>(data_); }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

class NcclBackend final : public Backend {
 public:
  explicit NcclBackend(const World& world) {
    int devices = 0;
    cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices == 0) throw std::runtime_error("no CUDA device");
    device_ = world.local_rank() % devices;
    cuda(cudaSetDevice(device_), "cudaSetDevice");
    cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda(cudaEventCreate(&start_), "cudaEventCreate");
    cuda(cudaEventCreate(&stop_), "cudaEventCreate");
    cuda(cudaMalloc(&wrong_, sizeof(unsigned long long)), "cudaMalloc");
    ncclUniqueId id{};
    std::vector<char> bytes;
    if (world.rank() == 0) {
      nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      bytes.assign(reinterpret_cast<const char*>(&id), reinterpret_cast<const char*>(&id) + sizeof id);
    }
    world.broadcast(bytes);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(&id));
    nccl(ncclCommInitRank(&comm_, world.size(), id, world.rank()), "ncclCommInitRank");
    int version = 0, runtime = 0;
    ncclGetVersion(&version);
    cudaRuntimeGetVersion(&runtime);
    engine_ = "nccl " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
              std::to_string(version % 100) + " (cuda " + std::to_string(runtime / 1000) + "." +
              std::to_string(runtime / 10 % 100) + ")";
    cudaDeviceProp prop{};
    cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, device_);
    device_name_ = "device " + std::to_string(device_) + " [" + bus + "] " + prop.name;
  }

  ~NcclBackend() override {
    if (comm_) ncclCommDestroy(comm_);
    cudaFree(wrong_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  std::string engine() const override { return engine_; }
  std::string device() const override { return device_name_; }
  std::string unsupported(ElementType, bool) const override { return ""; }

  void prepare(const Case& c) override {
    const std::size_t elem = std::size_t(element_bytes(c.type));
    data_.reserve(std::size_t(c.count) * elem);
    send_.reserve(std::size_t(c.input_count()) * elem);
    recv_.reserve(std::size_t(c.output_count()) * elem);
    if (!c.schedule) return;
    for (sim::Endpoint peer : inbox_peers(*c.schedule, sim::Endpoint(c.rank)))
      inbox_[peer].reserve(std::size_t(c.count) * elem);
  }

  void fill(const Case& c) override {
    const CheckShape s = c.shape();
    const int t = int(c.type);
    if (c.in_place || c.schedule) {
      gpu::fill(t, data_.get(), 0, c.count, s, false, stream_);
    } else {
      gpu::fill(t, send_.get(), c.input_offset(), c.input_count(), s, false, stream_);
      gpu::fill(t, recv_.get(), c.output_offset(), c.output_count(), s, true, stream_);
    }
    cuda(cudaStreamSynchronize(stream_), "fill");
  }

  Duration run(const Case& c) override {
    cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    if (c.schedule) run_schedule(c);
    else run_library(c);
    cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return Duration::from_seconds(double(ms) * 1e-3);
  }

  std::int64_t count_wrong(const Case& c) override {
    cuda(cudaMemsetAsync(wrong_, 0, sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    const CheckShape s = c.shape();
    if (c.in_place || c.schedule) gpu::count_wrong(int(c.type), data_.get(), 0, c.count, s, wrong_, stream_);
    else gpu::count_wrong(int(c.type), recv_.get(), c.output_offset(), c.output_count(), s, wrong_, stream_);
    unsigned long long wrong = 0;
    cuda(cudaMemcpyAsync(&wrong, wrong_, sizeof wrong, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    cuda(cudaStreamSynchronize(stream_), "check");
    return std::int64_t(wrong);
  }

 private:
  void run_library(const Case& c) {
    const ncclDataType_t t = nccl_type(c.type);
    const std::size_t elem = std::size_t(element_bytes(c.type));
    std::byte* data = data_.get();
    // In place as NCCL defines it: the receive buffer is the whole array and the send buffer its own block
    // (all-gather), or the reverse (reduce-scatter).
    const void* in = c.in_place ? data + std::size_t(c.input_offset()) * elem : send_.get();
    void* out = c.in_place ? data + std::size_t(c.output_offset()) * elem : recv_.get();
    switch (c.collective) {
      case sim::Collective::AllReduce:
        nccl(ncclAllReduce(in, out, std::size_t(c.count), t, ncclSum, comm_, stream_), "ncclAllReduce");
        return;
      case sim::Collective::ReduceScatter:
        nccl(ncclReduceScatter(in, out, std::size_t(c.block), t, ncclSum, comm_, stream_), "ncclReduceScatter");
        return;
      case sim::Collective::AllGather:
        nccl(ncclAllGather(in, out, std::size_t(c.block), t, comm_, stream_), "ncclAllGather");
        return;
      case sim::Collective::Broadcast:
        nccl(ncclBroadcast(in, out, std::size_t(c.count), t, c.root, comm_, stream_), "ncclBroadcast");
        return;
      case sim::Collective::Reduce:
        nccl(ncclReduce(in, out, std::size_t(c.count), t, ncclSum, c.root, comm_, stream_), "ncclReduce");
        return;
    }
  }

  std::byte* buffer(sim::Buffer b, sim::Endpoint slot) {
    return b == sim::Buffer::Inbox ? inbox_.at(slot).get() : data_.get();
  }

  void run_schedule(const Case& c) {
    const sim::Schedule& s = *c.schedule;
    const ncclDataType_t t = nccl_type(c.type);
    const std::int64_t elem = element_bytes(c.type);
    for (const Level& level : c.program->levels) {
      if (!level.transfers.empty()) {
        nccl(ncclGroupStart(), "ncclGroupStart");
        for (sim::OpId id : level.transfers) {
          const sim::Op& op = s.op(id);
          if (op.kind == sim::OpKind::Send)
            nccl(ncclSend(buffer(op.src, sim::Endpoint(c.rank)) + op.first * elem, std::size_t(op.count), t,
                          int(op.peer), comm_, stream_), "ncclSend");
          else
            nccl(ncclRecv(buffer(op.dst, op.peer) + op.first * elem, std::size_t(op.count), t, int(op.peer), comm_,
                          stream_), "ncclRecv");
        }
        nccl(ncclGroupEnd(), "ncclGroupEnd");
      }
      for (sim::OpId id : level.local) {
        const sim::Op& op = s.op(id);
        std::byte* dst = buffer(op.dst, op.peer) + op.first * elem;
        const std::byte* src = buffer(op.src, op.peer) + op.first * elem;
        if (op.kind == sim::OpKind::Copy)
          cuda(cudaMemcpyAsync(dst, src, std::size_t(op.count * elem), cudaMemcpyDeviceToDevice, stream_), "copy");
        else
          gpu::reduce(int(c.type), dst, src, op.count, stream_);
      }
    }
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  unsigned long long* wrong_ = nullptr;
  ncclComm_t comm_ = nullptr;
  std::string engine_, device_name_;
  DeviceBuffer data_, send_, recv_;
  std::map<sim::Endpoint, DeviceBuffer> inbox_;
};

}  // namespace

std::unique_ptr<Backend> make_nccl_backend(const World& world) { return std::make_unique<NcclBackend>(world); }
bool have_nccl_backend() { return true; }

}  // namespace ringlab::validate
