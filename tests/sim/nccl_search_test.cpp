// NCCL's ring search on a one-node NVLink mesh (sim/src/nccl/nccl_search.cpp): results derived by
// hand from search.cc's rules on small boards, and invariants over many meshes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "nccl/nccl_search.hpp"

using namespace ringlab::sim::detail;

namespace {

/// `gpus` GPUs joined pairwise by `links` NVLinks of `per_link` GB/s each (NCCL's units).
NcclMesh full_mesh(int gpus, int links, float per_link, int cc) {
  NcclMesh m;
  m.gpus = gpus;
  m.link_gbytes.assign(std::size_t(gpus * gpus), 0.0f);
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b)
      if (a != b) m.link_gbytes[std::size_t(a * gpus + b)] = float(links) * per_link;
  m.pci_gbytes = 24.0f;  // PCIe gen4 x16 at NCCL's 1.5 GB/s per lane
  m.min_compute_capability = cc;
  m.speeds = nccl_intra_speeds(cc);
  m.max_channels = 16;
  return m;
}

/// How many channels use each directed GPU pair (ring k -> k + 1, the last back to the first).
std::map<std::pair<int, int>, int> arc_use(const NcclRingGraph& g) {
  std::map<std::pair<int, int>, int> use;
  for (const std::vector<int>& ring : g.rings)
    for (std::size_t k = 0; k < ring.size(); ++k) ++use[{ring[k], ring[(k + 1) % ring.size()]}];
  return use;
}

/// A ring rotated to start at GPU 0.
std::vector<int> from_zero(std::vector<int> ring) {
  std::rotate(ring.begin(), std::find(ring.begin(), ring.end(), 0), ring.end());
  return ring;
}

}  // namespace

TEST_CASE("nccl ring search: HGX A100 4-GPU (4 NVLink3 per pair) finds the six directed rings at 40 GB/s, "
          "duplicated to 12 at 20",
          "[nccl][search]") {
  // Each directed pair has 4 x 20 = 80 GB/s, each GPU 240 (totalBw). The fastest speed under 80 is
  // 40: the PCI-order ring replayed fills its 4 arcs with 2 channels (80 < 240, so the search tries
  // different channels); each arc then carries 2 rings of 40, and 12 arcs x 2 / 4 arcs per ring = 6
  // rings, which must be all six directed Hamiltonian cycles of K4 (each arc lies on exactly two):
  // 6 x 40 = 240 = totalBw ends the search. ncclTopoDupChannels (bw 40 >= 25, sm 80 is not > 80)
  // doubles them at half the bandwidth.
  const NcclRingGraph g = nccl_search_mesh_rings(full_mesh(4, 4, 20.0f, 80));
  REQUIRE(g.channels == 12);
  REQUIRE(g.rings.size() == 12);
  CHECK(g.bw_intra == 20.0f);
  CHECK(g.rings[0] == std::vector<int>{0, 1, 2, 3});  // the PCI order first
  std::set<std::vector<int>> distinct;
  for (int c = 0; c < 6; ++c) {
    distinct.insert(from_zero(g.rings[std::size_t(c)]));
    CHECK(g.rings[std::size_t(c) + 6] == g.rings[std::size_t(c)]);
  }
  CHECK(distinct.size() == 6);
  for (const auto& [arc, n] : arc_use(g)) CHECK(n == 4);
}

TEST_CASE("nccl ring search: the same board on Hopper keeps 6 rings at 40 GB/s (K4 has no 3 disjoint rings; "
          "no duplication)",
          "[nccl][search]") {
  // 4 x 20.6 = 82.4 GB/s per arc. At 60 (sm90's first speed under 82.4) an arc carries one ring, and
  // the complete directed graph on 4 vertices has at most 2 arc-disjoint Hamiltonian cycles
  // (Tillson: K4* and K6* are the exceptions), so 2 x 60 = 120. 50 gives 2 as well; 40 gives 2 per
  // arc, all six rings, 240, better; 30, 24 and 20 give 180, 216 and 240 (no more, and more hops),
  // and 15 / 40 < .49 stops. Hopper does not duplicate 6 > 4 channels under 50 GB/s, and 50 cannot
  // hold 6 channels.
  const NcclRingGraph g = nccl_search_mesh_rings(full_mesh(4, 4, 20.6f, 90));
  CHECK(g.channels == 6);
  CHECK(g.bw_intra == 40.0f);
  for (const auto& [arc, n] : arc_use(g)) CHECK(n == 2);
}

TEST_CASE("nccl ring search: two GPUs on one NVLink keep one 20 GB/s channel", "[nccl][search]") {
  // maxBw 20, totalBw max(20, PCIe 24) = 24: one ring [0, 1] at 20 fills the link both ways; 20 < 24
  // so slower speeds are tried, but two rings at 10 only tie (with more hops). 20 < 25: no duplication.
  const NcclRingGraph g = nccl_search_mesh_rings(full_mesh(2, 1, 20.0f, 80));
  CHECK(g.channels == 1);
  CHECK(g.bw_intra == 20.0f);
  REQUIRE(g.rings.size() == 1);
  CHECK(g.rings[0] == std::vector<int>{0, 1});
}

TEST_CASE("nccl ring search: rings are permutations that fit the links, on meshes of 2 to 8 GPUs",
          "[nccl][search]") {
  for (int gpus = 2; gpus <= 8; ++gpus) {
    for (int links : {1, 2, 4, 6}) {
      for (int cc : {70, 80, 90, 100}) {
        CAPTURE(gpus, links, cc);
        NcclMesh mesh = full_mesh(gpus, links, cc >= 90 ? 20.6f : 20.0f, cc);
        // One slower pair, so that not every arc is alike.
        mesh.link_gbytes[1] = mesh.link_gbytes[std::size_t(gpus)] = 20.0f * float(std::max(1, links / 2));
        const NcclRingGraph g = nccl_search_mesh_rings(mesh);
        REQUIRE(g.channels >= 1);
        REQUIRE(g.rings.size() == std::size_t(g.channels));
        for (const std::vector<int>& ring : g.rings) {
          std::vector<int> sorted = ring;
          std::sort(sorted.begin(), sorted.end());
          for (int k = 0; k < gpus; ++k) REQUIRE(sorted[std::size_t(k)] == k);
        }
        for (const auto& [arc, n] : arc_use(g))
          CHECK(float(n) * g.bw_intra <= mesh.link_gbytes[std::size_t(arc.first * gpus + arc.second)] + 1e-3f);
        const NcclRingGraph again = nccl_search_mesh_rings(mesh);
        CHECK(again.rings == g.rings);
      }
    }
  }
}

namespace {
/// `gpus` GPUs each with `links` NVLinks of `per_link` GB/s to the node's NVSwitches (NCCL's units).
NcclMesh switched(int gpus, int links, float per_link, int cc, int max_channels) {
  NcclMesh m = full_mesh(gpus, 1, per_link, cc);
  m.link_gbytes.clear();
  m.switch_gbytes.assign(std::size_t(gpus), float(links) * per_link);
  m.max_channels = max_channels;
  return m;
}
}  // namespace

TEST_CASE("nccl ring search: behind an NVSwitch the channels follow the GPUs' NVLink and the speeds",
          "[nccl][search]") {
  // DGX H100: 18 x 20.6 = 370.8 GB/s up and down the switch, sm90 speeds 60, 50, 40, 30, 24: every
  // ring crosses each GPU's up- and down-link once, so 6 rings of 60 (360), 7 of 50 (350), 9 of 40
  // and 12 of 30 (360 each, more hops: not taken); 24 / 60 < .49 stops. Duplicated: 12 rings of 30.
  const NcclRingGraph h100 = nccl_search_mesh_rings(switched(8, 18, 20.6f, 90, 32));
  CHECK(h100.channels == 12);
  CHECK(h100.bw_intra == 30.0f);
  for (const std::vector<int>& ring : h100.rings) CHECK(ring == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // B200: 18 x 40.1 = 721.8, sm100 speeds 90, 80, 70, 60, 50: 8 of 90 (720) wins; doubled to 16 of 45.
  const NcclRingGraph b200 = nccl_search_mesh_rings(switched(8, 18, 40.1f, 100, 32));
  CHECK(b200.channels == 16);
  CHECK(b200.bw_intra == 45.0f);
  // DGX A100: 12 x 20 = 240, the older speeds 40, 30: 6 rings of 40 carry the whole 240 at once
  // (done); duplicated (sm 8.0 duplicates from 25 GB/s) to 12 of 20.
  const NcclRingGraph a100 = nccl_search_mesh_rings(switched(8, 12, 20.0f, 80, 16));
  CHECK(a100.channels == 12);
  CHECK(a100.bw_intra == 20.0f);
  // maxChannels 8: the 8 rings of 90 fill it (the search stops there) and leave no room to duplicate.
  const NcclRingGraph capped = nccl_search_mesh_rings(switched(8, 18, 40.1f, 100, 8));
  CHECK(capped.channels == 8);
  CHECK(capped.bw_intra == 90.0f);
}

namespace {
/// A node's NICs for the search across nodes: `nics` paths of `path` GB/s.
NcclNet nics(int count, float path, int cc, float total, int max_channels = 16) {
  NcclNet net;
  net.nic_gbytes.assign(std::size_t(count), path);
  net.total_gbytes = total;
  net.speeds = nccl_inter_speeds(cc);
  net.max_channels = max_channels;
  net.min_compute_capability = cc;
  return net;
}
}  // namespace

TEST_CASE("nccl ring search across nodes: one ring per NIC at the fastest speed the paths allow", "[nccl][search]") {
  // HGX H100: 8 NDR NICs (400 Gb/s: 50 GB/s) on PCIe gen5 x16 (48 in NCCL's units); totalBw is a
  // GPU's NVLink, 18 x 20.6 = 370.8. sm90 speed 48 fits each NIC once: 8 x 48 = 384 >= 370.8, done;
  // no duplication on Hopper at 48 < 50 with more than 4 channels. Inside, each GPU's NVLink carries
  // the 7 rings it neither enters nor leaves by: 7 x 48 = 336 <= 370.8.
  NcclNet h100 = nics(8, 48.0f, 90, 370.8f);
  h100.gpus = 8;
  h100.nvlink_gbytes = 370.8f;
  NcclNetGraph g = nccl_search_net_rings(h100);
  CHECK(g.channels == 8);
  CHECK(g.bw == 48.0f);
  // DGX A100: 8 HDR NICs (25 GB/s) on PCIe gen4 (24). Speed 24 gives 8 x 24 = 192 < 240 (12 x 20):
  // slower speeds while they are above .49 of 24 (20, 18, 15, 12) never beat 192 (12 fits twice in 24:
  // 16 x 12 = 192, not more), 10 / 24 < .49 stops; 24 < 25 is not duplicated; pass 2 finds no NIC
  // for 28 or above.
  g = nccl_search_net_rings(nics(8, 24.0f, 80, 240.0f));
  CHECK(g.channels == 8);
  CHECK(g.bw == 24.0f);
  // One GPU and one 400 Gb/s NIC on PCIe gen5 (totalBw infinite): 1 x 48; 24 fits twice but 2 x 24
  // is not more; duplicated to 2 x 24 (one channel is not more than 4); pass 2 finds 1 ring at 30-48,
  // fewer than the 2 it needs.
  g = nccl_search_net_rings(nics(1, 48.0f, 90, std::numeric_limits<float>::infinity()));
  CHECK(g.channels == 2);
  CHECK(g.bw == 24.0f);
  // 32 NICs of 12.5 GB/s: speed 12, one ring each up to maxChannels (16 before 2.25, 32 from it).
  g = nccl_search_net_rings(nics(32, 12.5f, 90, 370.8f, 16));
  CHECK(g.channels == 16);
  CHECK(g.bw == 12.0f);
  CHECK(nccl_search_net_rings(nics(32, 12.5f, 90, 370.8f, 32)).channels == 32);
  // Two NICs of 100 GB/s on Blackwell: 96 each, 2 x 96 = 192 < 720 (18 x 40): 48 fits twice,
  // 4 x 48 = 192, not more; 45.1 / 96 < .49 stops; 2 x 96 duplicated to 4 x 48.
  g = nccl_search_net_rings(nics(2, 100.0f, 100, 720.0f));
  CHECK(g.channels == 4);
  CHECK(g.bw == 48.0f);
  // 64 GB200 of an NVLink domain with a 400 Gb/s NIC each (48 on PCIe gen5), NVLink 721.8 each way:
  // the NICs would take 32 rings (maxChannels) at 48, but a GPU's NVLink carries r - r / 64 of r
  // rings: 15 at 48 (720); 16 at 45.1 (721.6) is more, 17 x 42, 18 x 40, 24 x 30, 30 x 24 are not,
  // 22 / 45.1 < .49 stops. No duplication at 45.1 < 50 with 16 > 4; pass 2 fits 15 < 16 at 48.
  NcclNet nvl = nics(64, 48.0f, 100, 721.8f, 32);
  nvl.gpus = 64;
  nvl.nvlink_gbytes = 721.8f;
  g = nccl_search_net_rings(nvl);
  CHECK(g.channels == 16);
  CHECK(g.bw == 45.1f);
  // No NIC reaches the slowest speed: no graph.
  CHECK(nccl_search_net_rings(nics(4, 0.1f, 80, 240.0f)).channels == 0);
}
