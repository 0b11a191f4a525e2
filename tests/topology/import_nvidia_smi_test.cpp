// nvidia-smi topo -m import, on tests/data/import/dgx_h100_topo_m.txt (a DGX H100: NV18 everywhere,
// GPU i PIX with its rail NIC, two dual-port storage NICs, GPUs 0-3 on NUMA 0 and 4-7 on NUMA 1),
// and the line numbers of bad matrices.
#include <catch2/catch.hpp>

#include "import_helpers.hpp"
#include "ringlab/topology/import.hpp"

using namespace ringlab;
using namespace ringlab::test;
using namespace ringlab::literals;

TEST_CASE("nvidia-smi: DGX H100 matrix gives 8 H100 on one NVSwitch, 12 NICs, 10 PCIe switches", "[import][smi]") {
  const NodeLayout l = parse_nvidia_smi_topo(import_fixture("dgx_h100_topo_m.txt"), "topo.txt", "dgx");
  const Topology& t = l.node;
  CHECK(t.host_count() == 1);
  CHECK(count_kind(t, DeviceKind::Gpu) == 8);
  CHECK(count_kind(t, DeviceKind::NvSwitch) == 1);
  CHECK(count_kind(t, DeviceKind::Cpu) == 2);
  CHECK(count_kind(t, DeviceKind::PcieSwitch) == 10);  // 8 GPU+NIC pairs, 2 storage cards (PIX pairs)
  CHECK(count_kind(t, DeviceKind::Nic) == 12);
  CHECK(t.device(t.device_by_name("dgx/gpu3")).gpu_model == GpuModel::H100);  // NV18 -> 18 links: h100
  // NV18: 18 NVLink4 links of 25 GB/s to the NVSwitch = 450 GB/s per direction.
  const Link& nv = link_between(t, "dgx/gpu5", "dgx/nvswitch");
  CHECK(nv.kind == LinkKind::NvLink4);
  CHECK(nv.lanes == 18);
  CHECK(nv.bandwidth == 450_GBps);
  // 8 NVLink + 10 switch uplinks + 20 GPU/NIC downlinks + 1 smp.
  CHECK(t.link_count() == 39);
  CHECK(count_links(t, LinkKind::Pcie5) == 30);
  REQUIRE(l.nics.size() == 12);
  CHECK(l.nics[9].hca == "mlx5_9");
  CHECK(l.nics[0].port == LinkKind::IbNdr);
  CHECK(l.nics[0].bandwidth == 400_Gbps);
  int near = 0;
  for (const NodeNic& n : l.nics) near += n.near_gpu;
  CHECK(near == 8);
  CHECK_FALSE(l.nics[1].near_gpu);
  CHECK_FALSE(l.nics[8].near_gpu);
  // GPU5 and mlx5_9 (NIC9) are PIX: one PCIe switch, on NUMA 1's CPU.
  const DeviceId gpu5 = t.device_by_name("dgx/gpu5"), nic9 = t.device_by_name("dgx/nic9");
  const DeviceId sw = t.neighbors(nic9)[0].peer;
  CHECK(t.device(sw).kind == DeviceKind::PcieSwitch);
  bool gpu_on_switch = false;
  for (const Adjacency& a : t.neighbors(sw)) gpu_on_switch = gpu_on_switch || a.peer == gpu5;
  CHECK(gpu_on_switch);
  bool on_cpu1 = false;
  for (const Adjacency& a : t.neighbors(sw)) on_cpu1 = on_cpu1 || t.device(a.peer).name == "dgx/cpu1";
  CHECK(on_cpu1);
  CHECK_FALSE(l.report.assumptions.empty());
}

TEST_CASE("nvidia-smi: the CPU vendor topo -m cannot show is Intel, said so, or the one given", "[import][smi]") {
  NodeLayout l = parse_nvidia_smi_topo(import_fixture("dgx_h100_topo_m.txt"), "topo.txt", "dgx");
  CHECK(l.node.host(0).cpu_vendor == CpuVendor::Intel);
  CHECK_FALSE(l.cpu_vendor_stated);
  CHECK_THAT(l.cpu_vendor_assumption, Catch::StartsWith("topo.txt: topo -m does not show the CPU vendor: Intel CPUs"));
  CHECK(any_contains(combine(nullptr, &l).report.assumptions, "does not show the CPU vendor"));
  const Link smp = link_between(l.node, "dgx/cpu0", "dgx/cpu1");
  CHECK(smp.kind == LinkKind::Smp);
  // Other CPUs (Grace, POWER) keep the generic smp link; AMD ones take xgmi at its default rate.
  set_layout_cpu_vendor(l, CpuVendor::Other, "--cpu-vendor");
  CHECK(l.node.host(0).cpu_vendor == CpuVendor::Other);
  CHECK(link_between(l.node, "dgx/cpu0", "dgx/cpu1").bandwidth == smp.bandwidth);
  set_layout_cpu_vendor(l, CpuVendor::Amd, "--cpu-vendor");
  const Link xgmi = link_between(l.node, "dgx/cpu0", "dgx/cpu1");
  CHECK(xgmi.kind == LinkKind::Xgmi);
  CHECK(xgmi.bandwidth == link_defaults(LinkKind::Xgmi).per_lane * double(link_defaults(LinkKind::Xgmi).default_lanes));
  const ImportedCluster c = combine(nullptr, &l);
  CHECK_FALSE(any_contains(c.report.assumptions, "does not show the CPU vendor"));
  CHECK(c.cluster.host(0).cpu_vendor == CpuVendor::Amd);
}

TEST_CASE("nvidia-smi: HGX A100 with one HCA and mlx5_0 as a column header", "[import][smi]") {
  const std::string text = R"(        GPU0    GPU1    GPU2    GPU3    mlx5_0  CPU Affinity    NUMA Affinity
GPU0     X      NV12    NV12    NV12    SYS     48-63   3
GPU1    NV12     X      NV12    NV12    SYS     48-63   3
GPU2    NV12    NV12     X      NV12    PXB     16-31   1
GPU3    NV12    NV12    NV12     X      PXB     16-31   1
mlx5_0  SYS     SYS     PXB     PXB      X

Legend:

  X    = Self
)";
  const NodeLayout l = parse_nvidia_smi_topo(text, "a100.txt");
  CHECK(l.node.device(l.node.device_by_name("node0/gpu0")).gpu_model == GpuModel::A100);
  CHECK(link_between(l.node, "node0/gpu0", "node0/nvswitch").bandwidth == 300_GBps);  // 12 x 25 GB/s
  CHECK(count_kind(l.node, DeviceKind::Cpu) == 2);
  CHECK(count_kind(l.node, DeviceKind::PcieSwitch) == 1);  // GPU2, GPU3, mlx5_0 (PXB)
  REQUIRE(l.nics.size() == 1);
  CHECK(l.nics[0].hca == "mlx5_0");
  CHECK(l.nics[0].port == LinkKind::IbHdr);  // template dgx_a100
  CHECK(count_links(l.node, LinkKind::Pcie4) == 2 + 3 + 1);  // GPU0,1 to CPU; 3 on the switch; switch up
}

TEST_CASE("nvidia-smi: bad matrices are reported with their line number", "[import][smi]") {
  const auto problem = [](const std::string& text) {
    return first_problem([&] { parse_nvidia_smi_topo(text, "bad.txt"); }, "bad.txt");
  };
  Problem p = problem("\tGPU0\tGPU1\tCPU Affinity\nGPU0\tX\tNV4\t0-7\nGPU1\tNV4\tXYZ\t0-7\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("unknown connection \"XYZ\""));
  p = problem("\tGPU0\tGPU1\tCPU Affinity\nGPU0\tX\tNV4\t0-7\nGPU1\tNV4\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("expected 2 connections"));
  p = problem("\tGPU0\tGPU1\tCPU Affinity\nGPU0\tX\tNV4\t0-7\n");
  CHECK(p.location == "line 1");
  CHECK_THAT(p.message, Catch::Contains("no row for column GPU1"));
  p = problem("\tGPU0\tGPU1\tCPU Affinity\nGPU0\tX\tNV4\t0-7\nGPU2\tNV4\tX\t0-7\n");
  CHECK(p.location == "line 3");
  p = problem("\tGPU0\tGPU1\tCPU Affinity\nGPU0\tNV4\tNV4\t0-7\nGPU1\tNV4\tX\t0-7\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("diagonal"));
  p = problem("hello\n");
  CHECK(p.location == "line 1");
}
