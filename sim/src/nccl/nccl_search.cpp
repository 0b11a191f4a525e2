// NCCL's ring search on one node's NVLink mesh or switch, and its channel count across nodes
// (nccl_search.hpp says what and why). Names follow
// src/graph/search.cc so that the port can be read against it; floats as NCCL's.
#include "nccl/nccl_search.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>

namespace ringlab::sim::detail {
namespace {

// src/graph/search.cc (v2.28.9; the first two unchanged since v2.19.4, sm90's since v2.21.5).
constexpr std::array<float, 13> kSpeedArrayIntra{40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f,
                                                 9.0f,  7.0f,  6.0f,  5.0f,  4.0f,  3.0f};
constexpr std::array<float, 11> kSm90SpeedArrayIntra{60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f,
                                                     15.0f, 12.0f, 11.0f, 6.0f,  3.0f};
constexpr std::array<float, 11> kSm100SpeedArrayIntra{90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 40.0f,
                                                      30.0f, 24.0f, 20.0f, 19.0f, 18.0f};
// The same for a search with NICs (v2.28.9; sm90's since v2.19.1: 2.18 had no 22, 20 and 17.5).
constexpr std::array<float, 19> kSpeedArrayInter{48.0f, 30.0f, 28.0f, 24.0f, 20.0f, 18.0f, 15.0f,
                                                 12.0f, 10.0f, 9.0f,  7.0f,  6.0f,  5.0f,  4.0f,
                                                 3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
constexpr std::array<float, 17> kSm90SpeedArrayInter{48.0f, 45.0f, 42.0f, 40.0f, 30.0f, 24.0f,
                                                     22.0f, 20.0f, 17.5f, 15.0f, 12.0f, 6.0f,
                                                     3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
constexpr std::array<float, 18> kSm100SpeedArrayInter{96.0f, 48.0f, 45.1f, 42.0f, 40.0f, 30.0f,
                                                      24.0f, 22.0f, 20.0f, 17.5f, 15.0f, 12.0f,
                                                      6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
// Step budgets of the search (search.cc).
constexpr std::int64_t kGlobalTimeout = std::int64_t(1) << 19;  // NCCL_SEARCH_GLOBAL_TIMEOUT
constexpr int kTimeout = 1 << 14;                               // NCCL_SEARCH_TIMEOUT
constexpr int kTimeoutSameChannels = 1 << 8;                    // NCCL_SEARCH_TIMEOUT_SAMECHANNELS
// "Decrease bw until we find a solution" stops below this fraction of the best graph's bandwidth.
constexpr double kSlowerSpeedRatio = .49;
// ncclTopoDupChannels: no duplication below these per-channel bandwidths (GB/s).
constexpr float kDupMinBw = 25.0f;
constexpr float kDupMinBwAfterAmpere = 50.0f;
constexpr int kDupMaxChannelsAfterAmpere = 4;

enum class Order { Search, Pci, Replay };  // forcedOrder: 0, FORCED_ORDER_PCI, FORCED_ORDER_REPLAY

constexpr int kMaxGpus = 64;  // NCCL_TOPO_MAX_NODES: the GPUs of one node the search handles

/// The GPUs a step may go to next, in the order to try them (on the stack: the search takes up to
/// NCCL_SEARCH_GLOBAL_TIMEOUT steps).
struct NextGpus {
  std::array<int, kMaxGpus> gpus;
  int count = 0;
  void push(int gpu) { gpus[std::size_t(count++)] = gpu; }
  const int* begin() const { return gpus.data(); }
  const int* end() const { return gpus.data() + count; }
};

struct Graph {  // the fields of ncclTopoGraph the ring search reads
  int channels = 0;
  float bw = 0.0f;  // bwIntra (= bwInter with no network)
  int hops = 0;
  bool same_channels = true;
  int min_channels = 1;
  int max_channels = 16;
  std::vector<int> intra;  // channel c's GPUs at [c * gpus, (c + 1) * gpus)
};

/// SUB_ROUND: NCCL rounds remaining bandwidth to 1/1000 after each change.
float sub_round(float a, float b) { return std::round((a - b) * 1000.0f) / 1000.0f; }

/// ncclTopoDupChannels' rule: whether a graph of `channels` at `bw` GB/s is duplicated.
bool duplicates(int channels, float bw, int min_compute_capability) {
  if (channels == 0 || bw < kDupMinBw) return false;
  return !(min_compute_capability > 80 && bw < kDupMinBwAfterAmpere && channels > kDupMaxChannelsAfterAmpere);
}

class RingSearch {
 public:
  explicit RingSearch(const NcclMesh& mesh)
      : mesh_(mesh), n_(mesh.gpus), used_(std::size_t(mesh.gpus), 0) {
    if (switched()) {  // up-links, then down-links
      remaining_ = mesh.switch_gbytes;
      remaining_.insert(remaining_.end(), mesh.switch_gbytes.begin(), mesh.switch_gbytes.end());
    } else {
      remaining_ = mesh.link_gbytes;
    }
  }

  NcclRingGraph run();

 private:
  bool switched() const { return !mesh_.switch_gbytes.empty(); }
  float path_bw(int from, int to) const;
  bool follow(int from, int to, float bw, int mult);
  void try_gpu(Graph& g, int step, Order order, int from, int gpu);
  void rec_gpu(Graph& g, int gpu, int step, Order order);
  void rec(Graph& g);
  void next_gpus(const Graph& g, int gpu, NextGpus& out) const;
  void compare_and_save(const Graph& g);
  void dup_channels();

  const NcclMesh& mesh_;
  const int n_;
  std::vector<float> remaining_;    // GB/s left per directed GPU pair, or per GPU up and down the switch
  std::vector<std::uint64_t> used_;  // per GPU, bit c: on channel c's ring
  Graph best_;                       // saveGraph
  int time_ = 0;
};

/// A GPU pair's path bandwidth (ncclTopoComputePaths: its narrowest link).
float RingSearch::path_bw(int from, int to) const {
  if (switched()) return std::min(mesh_.switch_gbytes[std::size_t(from)], mesh_.switch_gbytes[std::size_t(to)]);
  return mesh_.link_gbytes[std::size_t(from * n_ + to)];
}

/// ncclTopoFollowPath: takes (mult 1) or gives back (mult -1) `bw` on each link of the path, all or
/// none (a path that fails part-way gives back what it took).
bool RingSearch::follow(int from, int to, float bw, int mult) {
  const float fw = bw * float(mult);
  if (!switched()) {
    float& link = remaining_[std::size_t(from * n_ + to)];
    if (link < fw) return false;
    link = sub_round(link, fw);
    return true;
  }
  float& up = remaining_[std::size_t(from)];
  float& down = remaining_[std::size_t(n_ + to)];
  if (up < fw) return false;
  up = sub_round(up, fw);
  if (down < fw) {
    up = sub_round(up, -fw);
    return false;
  }
  down = sub_round(down, fw);
  return true;
}

/// ncclTopoSearchNextGpuSort without NICs: the unused GPUs with a path, by path bandwidth (most
/// first), hop count (fewest first), then distance from `gpu` in index order; behind a switch only
/// the ring neighbours that are unused, the previous GPU first. Appends them to `out` (empty).
void RingSearch::next_gpus(const Graph& g, int gpu, NextGpus& out) const {
  const std::uint64_t flag = std::uint64_t(1) << g.channels;
  if (switched()) {
    const int prev = (gpu - 1 + n_) % n_, next = (gpu + 1) % n_;
    if (!(used_[std::size_t(prev)] & flag)) out.push(prev);
    if (next != prev && !(used_[std::size_t(next)] & flag)) out.push(next);
    return;
  }
  // NCCL compares the scores as ints (struct ncclGpuScore); every path here is one hop. The peers
  // are listed in distance order, so an insertion sort on the bandwidth alone keeps ties in it.
  std::array<int, kMaxGpus> bws;
  for (int i = 1; i < n_; ++i) {
    const int peer = (gpu + i) % n_;
    if (used_[std::size_t(peer)] & flag) continue;
    const int bw = int(path_bw(gpu, peer));
    int k = out.count++;
    for (; k > 0 && bws[std::size_t(k - 1)] < bw; --k) {
      bws[std::size_t(k)] = bws[std::size_t(k - 1)];
      out.gpus[std::size_t(k)] = out.gpus[std::size_t(k - 1)];
    }
    bws[std::size_t(k)] = bw;
    out.gpus[std::size_t(k)] = peer;
  }
}

/// ncclTopoCompareGraphs for rings: more channels x bandwidth, then fewer hops.
void RingSearch::compare_and_save(const Graph& g) {
  if (g.channels < g.min_channels) return;
  const float have = float(g.channels) * g.bw, had = float(best_.channels) * best_.bw;
  if (have > had || (have == had && g.hops < best_.hops)) {
    best_ = g;
    if (g.channels == g.max_channels) time_ = -1;
  }
}

/// ncclTopoSearchTryGpu: reach `gpu` from `from` (-1: start there) and go on from it.
void RingSearch::try_gpu(Graph& g, int step, Order order, int from, int gpu) {
  if (from >= 0) {
    if (!follow(from, gpu, g.bw, 1)) return;
    g.hops += 1;
  }
  const std::uint64_t flag = std::uint64_t(1) << g.channels;
  used_[std::size_t(gpu)] ^= flag;
  rec_gpu(g, gpu, step, order);
  used_[std::size_t(gpu)] ^= flag;
  if (from >= 0) {
    follow(from, gpu, g.bw, -1);
    g.hops -= 1;
  }
}

/// ncclTopoSearchRecGpu for a ring without a network (backToNet -1, backToFirstRank gpus - 1).
void RingSearch::rec_gpu(Graph& g, int gpu, int step, Order order) {
  if (time_ <= 0) return;
  --time_;
  if (step == n_) {  // a ring closed: one more channel
    ++g.channels;
    compare_and_save(g);
    if (g.channels < g.max_channels) rec(g);
    --g.channels;
    return;
  }
  const std::size_t base = std::size_t(g.channels) * std::size_t(n_);
  if (g.intra.size() < base + std::size_t(n_)) g.intra.resize(base + std::size_t(n_));
  g.intra[base + std::size_t(step)] = gpu;
  if (step < n_ - 1) {
    NextGpus next;
    if (order == Order::Pci) next.push(step + 1);
    else if (order == Order::Replay) next.push(g.intra[base - std::size_t(n_) + std::size_t(step) + 1]);
    else next_gpus(g, gpu, next);
    for (int peer : next) try_gpu(g, step + 1, order, gpu, peer);
    return;
  }
  const int first = g.intra[base];  // back to the ring's first GPU
  if (!follow(gpu, first, g.bw, 1)) return;
  g.hops += 1;
  rec_gpu(g, first, step + 1, order);
  follow(gpu, first, g.bw, -1);
  g.hops -= 1;
}

/// ncclTopoSearchRec without a network: the PCI order first (first channel) or the previous
/// channel replayed, then every start unless all channels must be the same.
void RingSearch::rec(Graph& g) {
  if (g.channels == 0) {
    try_gpu(g, 0, Order::Pci, -1, 0);
  } else {
    try_gpu(g, 0, Order::Replay, -1, g.intra[std::size_t(g.channels - 1) * std::size_t(n_)]);
  }
  if (!g.same_channels || g.channels == 0)
    for (int gpu = 0; gpu < n_; ++gpu) try_gpu(g, 0, Order::Search, -1, gpu);
}

/// ncclTopoDupChannels: each ring twice at half the bandwidth, within maxChannels.
void RingSearch::dup_channels() {
  Graph& g = best_;
  if (!duplicates(g.channels, g.bw, mesh_.min_compute_capability)) return;
  const int dup = std::min(g.channels * 2, g.max_channels);
  g.intra.resize(std::size_t(dup) * std::size_t(n_));
  std::copy_n(g.intra.begin(), std::size_t(dup - g.channels) * std::size_t(n_),
              g.intra.begin() + std::ptrdiff_t(g.channels) * n_);
  g.bw /= float((dup + g.channels - 1) / g.channels);
  g.channels = dup;
}

/// ncclTopoCompute's passes for a ring with no network: the fastest speed first, different
/// channels if the same ones fall short, slower speeds while they may pay, then duplication and
/// faster speeds on the duplicated channels.
NcclRingGraph RingSearch::run() {
  float max_bw = 0.0f, total_bw = mesh_.pci_gbytes;  // ncclTopoSearchInit
  for (int a = 0; a < n_; ++a) {
    float sum = switched() ? mesh_.switch_gbytes[std::size_t(a)] : 0.0f;  // a GPU's NVLink out
    for (int b = 0; b < n_; ++b) {
      if (b == a) continue;
      max_bw = std::max(max_bw, path_bw(a, b));
      if (!switched()) sum += mesh_.link_gbytes[std::size_t(a * n_ + b)];
    }
    total_bw = std::max(total_bw, sum);
  }
  const std::span<const float> speeds = mesh_.speeds;
  const int nspeeds = int(speeds.size());
  best_.max_channels = mesh_.max_channels;
  Graph tmp = best_;
  int speed = 0;
  while ((speeds[std::size_t(speed)] > max_bw || speeds[std::size_t(speed)] * float(tmp.min_channels) > total_bw) &&
         speed < nspeeds - 1)
    ++speed;
  tmp.bw = speeds[std::size_t(speed)];
  std::int64_t global_timeout = kGlobalTimeout;
  int pass = 1;
  for (;;) {
    time_ = tmp.same_channels ? kTimeoutSameChannels : kTimeout;
    tmp.channels = 0;
    global_timeout -= time_;
    rec(tmp);
    const bool done = time_ == -1 || float(best_.channels) * best_.bw >= total_bw;
    if (pass == 1 && !done) {
      if (tmp.same_channels) {  // try different channels
        tmp.same_channels = false;
        continue;
      }
      tmp.same_channels = true;
      global_timeout += time_;
      if (!(global_timeout < 0 && best_.channels > 0) && speed < nspeeds - 1 &&
          (best_.channels == 0 || speeds[std::size_t(speed) + 1] / best_.bw > kSlowerSpeedRatio)) {
        tmp.bw = speeds[std::size_t(++speed)];  // decrease bw until a solution is found
        continue;
      }
    }
    if (pass == 1) {
      time_ = -1;
      dup_channels();
      tmp = best_;
      speed = 0;
      while (speeds[std::size_t(speed)] > best_.bw && speed < nspeeds - 1) ++speed;
      tmp.bw = speeds[std::size_t(speed)];
      tmp.min_channels = best_.channels;
      pass = 2;
    }
    if (time_ != 0 && speed > 0) {  // see whether the duplicated channels can run faster
      tmp.bw = speeds[std::size_t(--speed)];
      continue;
    }
    break;
  }
  NcclRingGraph out;
  out.channels = best_.channels;
  out.bw_intra = best_.bw;
  for (int c = 0; c < best_.channels; ++c)
    out.rings.emplace_back(best_.intra.begin() + std::ptrdiff_t(c) * n_, best_.intra.begin() + std::ptrdiff_t(c + 1) * n_);
  return out;
}

}  // namespace

NcclRingGraph nccl_search_mesh_rings(const NcclMesh& mesh) {
  assert(mesh.gpus >= 2 && mesh.gpus <= kMaxGpus);
  assert(mesh.switch_gbytes.empty() ? mesh.link_gbytes.size() == std::size_t(mesh.gpus * mesh.gpus)
                                    : mesh.switch_gbytes.size() == std::size_t(mesh.gpus));
  return RingSearch(mesh).run();
}

std::span<const float> nccl_intra_speeds(int min_compute_capability) {
  if (min_compute_capability >= 100) return kSm100SpeedArrayIntra;
  if (min_compute_capability >= 90) return kSm90SpeedArrayIntra;
  return kSpeedArrayIntra;
}

std::span<const float> nccl_inter_speeds(int min_compute_capability) {
  if (min_compute_capability >= 100) return kSm100SpeedArrayInter;
  if (min_compute_capability >= 90) return kSm90SpeedArrayInter;
  return kSpeedArrayInter;
}

namespace {
/// Rings of `speed` GB/s the NICs carry, at most maxChannels: NCCL's search adds rings one at a
/// time, each through the first NIC with that much left each way (followPath, SUB_ROUND).
int net_rings(const NcclNet& net, float speed) {
  int rings = 0;
  for (const float bw : net.nic_gbytes)
    for (float left = bw; left >= speed && rings < net.max_channels; left = sub_round(left, speed)) ++rings;
  if (net.gpus < 2 || net.nvlink_gbytes <= 0.0f) return rings;
  const auto fits = [&](int r) { return float(r - r / net.gpus) * speed <= net.nvlink_gbytes; };
  while (rings > 0 && !fits(rings)) --rings;
  return rings;
}
}  // namespace

/// ncclTopoCompute's passes as RingSearch::run takes them, each search replaced by net_rings: the
/// fastest speed the NICs' paths allow first, slower ones while they may pay (a graph is kept only
/// if channels x bw grows: ncclTopoCompareGraphs), then duplication and faster speeds on at least
/// the duplicated channels.
NcclNetGraph nccl_search_net_rings(const NcclNet& net) {
  NcclNetGraph best;
  if (net.nic_gbytes.empty() || net.speeds.empty()) return best;
  const std::span<const float> speeds = net.speeds;
  const std::size_t last = speeds.size() - 1;
  const float max_bw = *std::max_element(net.nic_gbytes.begin(), net.nic_gbytes.end());  // system->maxBw
  std::size_t speed = 0;
  while ((speeds[speed] > max_bw || speeds[speed] > net.total_gbytes) && speed < last) ++speed;
  const auto keep_if_better = [&](float bw, int min_channels) {
    const int rings = net_rings(net, bw);
    if (rings >= min_channels && float(rings) * bw > float(best.channels) * best.bw) best = {rings, bw};
  };
  for (;;) {  // pass 1
    keep_if_better(speeds[speed], 1);
    if (best.channels == net.max_channels || float(best.channels) * best.bw >= net.total_gbytes) break;
    if (speed == last || (best.channels > 0 && speeds[speed + 1] / best.bw <= kSlowerSpeedRatio)) break;
    ++speed;
  }
  if (duplicates(best.channels, best.bw, net.min_compute_capability)) {
    const int dup = std::min(best.channels * 2, net.max_channels);
    best.bw /= float((dup + best.channels - 1) / best.channels);
    best.channels = dup;
  }
  if (best.channels == 0) return best;
  speed = 0;  // pass 2
  while (speeds[speed] > best.bw && speed < last) ++speed;
  const int min_channels = best.channels;
  while (speed > 0) keep_if_better(speeds[--speed], min_channels);
  return best;
}

}  // namespace ringlab::sim::detail
