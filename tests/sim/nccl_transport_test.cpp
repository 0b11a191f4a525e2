// NCCL's transports (nccl_transport.hpp): P2P inside NCCL_P2P_LEVEL, SHM through the receiver's CPU
// otherwise, NET with GPUDirect RDMA inside NCCL_NET_GDR_LEVEL or staged through host memory; and
// what staging does to a simulated ring: the bytes cross the PCIe uplink twice.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/nccl_transport.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/run_collective.hpp"
#include "ringlab/topology/generators.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

namespace {

NcclEnv env_of(std::initializer_list<std::pair<const char*, const char*>> settings) {
  NcclEnv e;
  for (const auto& [name, value] : settings) REQUIRE(set_nccl_env(e, name, value).empty());
  return e;
}

/// PCIe servers: `gpus` GPUs and `nics` NICs spread over `switches` PCIe switches (0: straight on
/// the CPUs), `cpus` sockets joined by `cpu_link`, and one Ethernet switch.
ClusterSpec pcie_spec(int nodes, int gpus, int switches, int cpus, int nics, GpuModel model = GpuModel::L40S,
                      Transport transport = Transport::Rdma, LinkKind cpu_link = LinkKind::Smp) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = gpus;
  spec.node.gpu_model = model;
  spec.node.pcie = gpu_spec(model).pcie;
  spec.node.pcie_switches = switches;
  spec.node.cpus = cpus;
  spec.node.cpu_link = cpu_link;
  spec.node.nics = nics;
  spec.node.nic = LinkKind::Eth100;
  spec.node.transport = transport;
  spec.fabric.kind = nodes > 1 ? FabricKind::SingleSwitch : FabricKind::None;
  return spec;
}

Topology pcie_cluster(int nodes, int gpus, int switches, int cpus, int nics, GpuModel model = GpuModel::L40S,
                      Transport transport = Transport::Rdma, LinkKind cpu_link = LinkKind::Smp) {
  return make_cluster(pcie_spec(nodes, gpus, switches, cpus, nics, model, transport, cpu_link));
}

DeviceId device(const Topology& t, const char* name) { return t.find_device(name).value(); }

/// An allreduce of `message` over every GPU of `t` under --algo nccl and `env`, the network alone (no
/// reduction compute), with the nccl calibration.
CollectiveOutcome run_network(const Topology& t, Bytes message, const NcclEnv& env) {
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = message;
  request.order.ranks = t.gpus();
  request.options.calibration = Calibration::nccl();
  request.options.calibration.model_compute = false;
  request.nccl_env = env;
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.result);
  return out;
}

}  // namespace

TEST_CASE("nccl env: transport settings are read as NCCL reads them", "[nccl][env][transport]") {
  CHECK(env_of({{"NCCL_P2P_LEVEL", "SYS"}}).p2p_level == NcclPath::Sys);
  CHECK(env_of({{"NCCL_P2P_LEVEL", "NVL"}}).p2p_level == NcclPath::Nvl);
  // ncclGetLevel's old numbers: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS.
  CHECK(env_of({{"NCCL_P2P_LEVEL", "1"}}).p2p_level == NcclPath::Pix);
  CHECK(env_of({{"NCCL_P2P_LEVEL", "3"}}).p2p_level == NcclPath::Phb);
  CHECK(env_of({{"NCCL_P2P_LEVEL", "9"}}).p2p_level == NcclPath::Sys);
  CHECK_FALSE(env_of({{"NCCL_P2P_DISABLE", "1"}}).p2p);
  CHECK(env_of({{"NCCL_P2P_DISABLE", "0"}}).p2p);
  CHECK_FALSE(env_of({{"NCCL_SHM_DISABLE", "1"}}).shm);
  CHECK_FALSE(env_of({{"NCCL_IB_DISABLE", "1"}}).ib);
  CHECK(env_of({{"NCCL_NET_GDR_LEVEL", "PHB"}}).gdr_level == NcclPath::Phb);
  CHECK(env_of({{"NCCL_NET_GDR_READ", "0"}}).gdr_read == 0);
  CHECK(NcclEnv{}.pxn);
  CHECK_FALSE(env_of({{"NCCL_PXN_DISABLE", "1"}}).pxn);
  CHECK(env_of({{"NCCL_CROSS_NIC", "0"}}).cross_nic == 0);
  NcclEnv e;
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_CROSS_NIC", "3"), Catch::Contains("an integer from 0 to 2"));
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_P2P_LEVEL", "far"), Catch::Contains("a path type (LOC, NVL"));
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_P2P_LEVEL", "sys"), Catch::Contains("a path type"));  // strcmp: upper case
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_P2P_DISABLE", "2"), Catch::Contains("an integer from 0 to 1"));
}

TEST_CASE("nccl transports: P2P up to PXB by default, SHM through the receiver's CPU beyond",
          "[nccl][transport]") {
  // 8 GPUs on 4 PCIe switches, 2 per switch; switches 0-1 on cpu0, 2-3 on cpu1.
  const Topology t = pcie_cluster(1, 8, 4, 2, 0);
  const NcclTransports nccl(t, NcclEnv{});
  const DeviceId g0 = device(t, "node0/gpu0"), g1 = device(t, "node0/gpu1"), g2 = device(t, "node0/gpu2"),
                 g7 = device(t, "node0/gpu7");
  CHECK(nccl.path_type(g0, g1) == NcclPath::Pix);
  CHECK(nccl.path_type(g0, g2) == NcclPath::Phb);
  CHECK(nccl.path_type(g0, g7) == NcclPath::Sys);
  const NcclConnection same_switch = nccl.connect(g0, g1);
  CHECK(same_switch.transport == NcclTransport::P2p);
  CHECK(same_switch.waypoints.empty());
  const NcclConnection same_cpu = nccl.connect(g0, g2);
  CHECK(same_cpu.transport == NcclTransport::Shm);
  CHECK(same_cpu.waypoints == std::vector<DeviceId>{device(t, "node0/cpu0")});
  const NcclConnection across = nccl.connect(g0, g7);  // the receiver's CPU holds the buffer
  CHECK(across.transport == NcclTransport::Shm);
  CHECK(across.waypoints == std::vector<DeviceId>{device(t, "node0/cpu1")});
  CHECK(nccl.connect(g7, g0).waypoints == std::vector<DeviceId>{device(t, "node0/cpu0")});
  CHECK(nccl.detours(t.gpus()));
  const std::vector<DeviceId> pair{g0, g1};
  CHECK_FALSE(nccl.detours(pair));
  CHECK(nccl.summary(pair).empty());
  // 8 GPUs: of the 56 ordered pairs only the 8 under a common switch use P2P.
  // The 16 of them between the switches of one CPU are PHB through it, an Intel CPU (the default
  // socket link, smp): NCCL's INTEL_P2P_OVERHEAD on both legs. Across the sockets (SYS) none.
  CHECK(nccl.summary(t.gpus()) == "nccl transports: SHM or a NIC loopback for 48 of 56 GPU pairs inside nodes; "
                                  "PCIe through an Intel CPU at 1.2x for 16 of 56 GPU pairs");
  CHECK(same_cpu.pcie_cost == 1.2);
  CHECK(same_cpu.costed_legs == 2);
  CHECK(across.costed_legs == 0);
  CHECK(same_switch.costed_legs == 0);

  // NCCL_P2P_LEVEL=SYS: P2P everywhere, through a CPU at its overhead on an Intel CPU (PHB), not
  // across sockets (SYS); PIX: only under one switch.
  const NcclTransports sys(t, env_of({{"NCCL_P2P_LEVEL", "SYS"}}));
  CHECK(sys.connect(g0, g7).transport == NcclTransport::P2p);
  CHECK(sys.connect(g0, g7).costed_legs == 0);
  const NcclConnection p2p_phb = sys.connect(g0, g2);
  CHECK(p2p_phb.transport == NcclTransport::P2p);
  CHECK(p2p_phb.waypoints.empty());
  CHECK(p2p_phb.costed_legs == 1);
  CHECK(p2p_phb.pcie_cost == 1.2);
  CHECK(sys.detours(t.gpus()));
  const std::vector<DeviceId> far_pair{g0, g7};
  CHECK_FALSE(sys.detours(far_pair));
  // On AMD CPUs (xGMI socket links, or a host's cpu_vendor) NCCL charges no overhead, nor on Arm.
  for (const CpuVendor v : {CpuVendor::Amd, CpuVendor::Other}) {
    ClusterSpec one;
    one.nodes = 1;
    one.node.gpus = 4;
    one.node.gpu_model = GpuModel::Rtx4090;
    one.node.pcie_switches = 2;
    one.node.cpus = 1;
    one.node.nics = 0;
    one.node.cpu_vendor = v;
    one.fabric.kind = FabricKind::None;
    const Topology single = make_cluster(one);
    CHECK(NcclTransports(single, NcclEnv{}).connect(single.gpus()[0], single.gpus()[2]).transport == NcclTransport::Shm);
    CHECK(NcclTransports(single, NcclEnv{}).connect(single.gpus()[0], single.gpus()[2]).costed_legs == 0);
    one.node.cpu_vendor = CpuVendor::Intel;
    const Topology intel = make_cluster(one);
    CHECK(NcclTransports(intel, NcclEnv{}).connect(intel.gpus()[0], intel.gpus()[2]).costed_legs == 2);
  }
  const Topology amd = pcie_cluster(1, 8, 4, 2, 0, GpuModel::L40S, Transport::Rdma, LinkKind::Xgmi);
  CHECK(NcclTransports(amd, NcclEnv{}).connect(device(amd, "node0/gpu0"), device(amd, "node0/gpu2")).costed_legs == 0);
  CHECK(NcclTransports(amd, NcclEnv{}).summary(amd.gpus()) ==
        "nccl transports: SHM or a NIC loopback for 48 of 56 GPU pairs inside nodes");
  // NCCL_P2P_DISABLE=1: SHM even under one switch.
  const NcclTransports off(t, env_of({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}}));
  CHECK(off.connect(g0, g1).transport == NcclTransport::Shm);
}

TEST_CASE("nccl transports: NVLink is P2P unless NCCL_P2P_DISABLE, GeForce boards have no PCIe P2P",
          "[nccl][transport]") {
  ClusterSpec spec;
  spec.nodes = 1;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.fabric.kind = FabricKind::None;
  const Topology dgx = make_cluster(spec);
  const DeviceId a = device(dgx, "node0/gpu0"), b = device(dgx, "node0/gpu5");
  const NcclTransports nccl(dgx, NcclEnv{});
  CHECK(nccl.path_type(a, b) == NcclPath::Nvl);
  CHECK(nccl.connect(a, b).transport == NcclTransport::P2p);
  CHECK_FALSE(nccl.detours(dgx.gpus()));
  CHECK(NcclTransports(dgx, env_of({{"NCCL_P2P_DISABLE", "1"}})).connect(a, b).transport == NcclTransport::Shm);
  // NCCL's model then sees PCIe, not NVLink, and no NVLS.
  const NcclModel m = nccl_model(dgx, dgx.gpus(), env_of({{"NCCL_P2P_DISABLE", "1"}}));
  CHECK_FALSE(m.nvlink);
  CHECK_FALSE(m.nvls);

  const Topology geforce = pcie_cluster(1, 2, 1, 1, 0, GpuModel::Rtx2080Ti);
  const NcclTransports g(geforce, NcclEnv{});
  const DeviceId x = device(geforce, "node0/gpu0"), y = device(geforce, "node0/gpu1");
  CHECK(g.path_type(x, y) == NcclPath::Pix);
  CHECK(g.connect(x, y).transport == NcclTransport::Shm);
}

TEST_CASE("nccl transports: without P2P and SHM a node's GPUs loop through a NIC, or have no transport",
          "[nccl][transport]") {
  const Topology with_nic = pcie_cluster(1, 2, 1, 1, 1, GpuModel::Rtx2080Ti);
  const NcclEnv no_shm = env_of({{"NCCL_SHM_DISABLE", "1"}});
  const NcclConnection c =
      NcclTransports(with_nic, no_shm).connect(device(with_nic, "node0/gpu0"), device(with_nic, "node0/gpu1"));
  CHECK(c.transport == NcclTransport::Net);
  CHECK(c.waypoints == std::vector<DeviceId>{device(with_nic, "node0/nic0")});
  const Topology no_nic = pcie_cluster(1, 2, 1, 1, 0, GpuModel::Rtx2080Ti);
  CHECK_THROWS_WITH(NcclTransports(no_nic, no_shm).connect(device(no_nic, "node0/gpu0"), device(no_nic, "node0/gpu1")),
                    Catch::Contains("NCCL has no transport from node0/gpu0 to node0/gpu1"));
}

TEST_CASE("nccl transports: GPUDirect RDMA within NCCL_NET_GDR_LEVEL, else staged through the GPU's CPU",
          "[nccl][transport]") {
  // NIC and GPU under one PCIe switch (PIX): GPUDirect both ways, the direct route.
  const Topology near = pcie_cluster(2, 1, 1, 1, 1);
  const NcclConnection direct = NcclTransports(near, NcclEnv{}).connect(near.gpus()[0], near.gpus()[1]);
  CHECK(direct.transport == NcclTransport::Net);
  CHECK(direct.send_gdr);
  CHECK(direct.recv_gdr);
  CHECK(direct.waypoints.empty());
  CHECK_FALSE(NcclTransports(near, NcclEnv{}).detours(near.gpus()));

  // NIC and GPU straight on the CPU (PHB, beyond PXB): both sides go through host memory.
  const Topology far = pcie_cluster(2, 1, 0, 1, 1);
  const NcclTransports nccl(far, NcclEnv{});
  const NcclConnection staged = nccl.connect(far.gpus()[0], far.gpus()[1]);
  CHECK_FALSE(staged.send_gdr);
  CHECK_FALSE(staged.recv_gdr);
  CHECK(staged.waypoints == std::vector<DeviceId>{device(far, "node0/cpu0"), device(far, "node0/nic0"),
                                                  device(far, "node1/nic0"), device(far, "node1/cpu0")});
  CHECK(nccl.detours(far.gpus()));
  // The send side is PHB through an Intel CPU: NCCL's overhead on its two legs (GPU-CPU, CPU-NIC);
  // the receiving side's path starts at the NIC and pays none.
  CHECK(staged.pcie_cost == 1.2);
  CHECK(staged.costed_legs == 2);
  CHECK(nccl.summary(far.gpus()) == "nccl transports: NET through host memory for 2 of 2 GPU-NIC pairs; "
                                    "PCIe through an Intel CPU at 1.2x for 2 of 2 GPU-NIC sends");
  // NCCL_NET_GDR_LEVEL=PHB reaches it (the send still pays the overhead up to its NIC);
  // NCCL_NET_GDR_READ=0 keeps sends in host memory.
  const NcclConnection phb = NcclTransports(far, env_of({{"NCCL_NET_GDR_LEVEL", "PHB"}})).connect(far.gpus()[0], far.gpus()[1]);
  CHECK(phb.send_gdr);
  CHECK(phb.recv_gdr);
  CHECK(phb.waypoints == std::vector<DeviceId>{device(far, "node0/nic0")});
  CHECK(phb.costed_legs == 1);
  const NcclConnection no_read = NcclTransports(near, env_of({{"NCCL_NET_GDR_READ", "0"}})).connect(near.gpus()[0], near.gpus()[1]);
  CHECK_FALSE(no_read.send_gdr);
  CHECK(no_read.recv_gdr);
  CHECK(no_read.waypoints.size() == 2);

  // Before compute capability 8.0 sends use it only with an NVLink peer (a V100 PCIe box has none).
  const Topology volta = pcie_cluster(2, 1, 1, 1, 1, GpuModel::V100);
  const NcclConnection v = NcclTransports(volta, NcclEnv{}).connect(volta.gpus()[0], volta.gpus()[1]);
  CHECK_FALSE(v.send_gdr);
  CHECK(v.recv_gdr);
  // NCCL's socket transport (TCP links, or NCCL_IB_DISABLE=1) works on host memory only.
  const Topology tcp = pcie_cluster(2, 1, 1, 1, 1, GpuModel::L40S, Transport::Tcp);
  CHECK(NcclTransports(tcp, NcclEnv{}).connect(tcp.gpus()[0], tcp.gpus()[1]).waypoints.size() == 4);
  CHECK(NcclTransports(near, env_of({{"NCCL_IB_DISABLE", "1"}})).connect(near.gpus()[0], near.gpus()[1]).waypoints.size() == 4);
}

TEST_CASE("nccl transports: SHM sends every byte up and down the PCIe switch's uplink, doubling a 2-GPU ring's "
          "bandwidth term", "[nccl][transport]") {
  // Two GPUs on one PCIe gen4 switch with one uplink to the CPU. P2P: each direction of the ring has
  // its own GPU-switch links. SHM: both directions share the uplink's two directions, each at half.
  const Topology t = pcie_cluster(1, 2, 1, 1, 0);
  auto run = [&](const NcclEnv& env) { return run_network(t, 64_MiB, env); };
  const NcclEnv ring = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
  NcclEnv shm = ring;
  REQUIRE(set_nccl_env(shm, "NCCL_P2P_DISABLE", "1").empty());
  const CollectiveOutcome direct = run(ring);
  const CollectiveOutcome staged = run(shm);
  const Duration latency = nccl_choose(t, t.gpus(), Collective::AllReduce, 64_MiB, {}, ring).latency;
  REQUIRE(latency == nccl_choose(t, t.gpus(), Collective::AllReduce, 64_MiB, {}, shm).latency);
  const double p2p_term = (direct.result->time - latency).seconds();
  const double shm_term = (staged.result->time - latency).seconds();
  // Through its one CPU, ringlab's default (Intel's): SHM's path is PHB, and each byte takes 1.2x on
  // every PCIe link of it (NCCL's INTEL_P2P_OVERHEAD).
  CHECK(shm_term == Approx(2 * 1.2 * p2p_term).epsilon(1e-6));  // picosecond rounding per event
  // Two AMD sockets (xGMI), the switch on the first: the same PHB path at no overhead.
  const Topology amd = pcie_cluster(1, 2, 1, 2, 0, GpuModel::L40S, Transport::Rdma, LinkKind::Xgmi);
  const double amd_term = (run_network(amd, 64_MiB, shm).result->time - latency).seconds();
  CHECK(amd_term == Approx(2 * p2p_term).epsilon(1e-6));
  // The P2P term is the ring's bandwidth term at NCCL's PCIe gen4 x16 figure, 24 GB/s: each GPU sends
  // 2 (p-1)/p N = N bytes over its own link (both channels together).
  CHECK(p2p_term == Approx(64.0 * (1 << 20) / 24e9).epsilon(0.02));
}

TEST_CASE("nccl transports: GCP's GPUDirect-TCPX(O) moves GPU memory directly, plain TCP is NCCL's socket transport",
          "[nccl][transport]") {
  CHECK(find_transport("tcpxo") == Transport::Tcpx);
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node = node_template(NodeTemplate::GcpA3Mega);
  spec.fabric.kind = FabricKind::SingleSwitch;
  const Topology gcp = make_cluster(spec);
  CHECK_FALSE(NcclTransports(gcp, NcclEnv{}).detours(gcp.gpus()));
  spec.node.transport = Transport::Tcp;
  const Topology sockets = make_cluster(spec);
  CHECK(NcclTransports(sockets, NcclEnv{}).detours(sockets.gpus()));
}

TEST_CASE("nccl transports: the socket transport moves each connection on its TCP streams at 25 Gb/s each",
          "[nccl][transport]") {
  // NCCL's defaults outside AWS and GCP: no helper thread, the control socket carries the data;
  // threads x streams per thread otherwise, trimmed to MAX_SOCKETS (src/transport/net_socket.cc).
  CHECK(nccl_socket_streams(NcclEnv{}) == 1);
  CHECK(nccl_socket_streams(env_of({{"NCCL_NSOCKS_PERTHREAD", "8"}})) == 1);  // still no thread
  CHECK(nccl_socket_streams(env_of({{"NCCL_SOCKET_NTHREADS", "4"}})) == 4);   // one stream per thread
  CHECK(nccl_socket_streams(env_of({{"NCCL_SOCKET_NTHREADS", "2"}, {"NCCL_NSOCKS_PERTHREAD", "8"}})) == 16);
  CHECK(nccl_socket_streams(env_of({{"NCCL_SOCKET_NTHREADS", "16"}, {"NCCL_NSOCKS_PERTHREAD", "8"}})) == 64);
  // Auto-detection by the NIC's vendor: AWS 2 x 8, GCP 4 x 1; a variable given replaces its half only.
  CHECK(nccl_socket_streams(NcclEnv{}, SocketNicVendor::Aws) == 16);
  CHECK(nccl_socket_streams(env_of({{"NCCL_SOCKET_NTHREADS", "1"}}), SocketNicVendor::Aws) == 8);
  CHECK(nccl_socket_streams(NcclEnv{}, SocketNicVendor::Gcp) == 4);
  CHECK(nccl_socket_streams(env_of({{"NCCL_NSOCKS_PERTHREAD", "2"}}), SocketNicVendor::Gcp) == 8);
  NcclEnv e;
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_SOCKET_NTHREADS", "17"), Catch::Contains("an integer from 0 to 16"));
  CHECK_THROWS_WITH(set_nccl_env(e, "NCCL_NSOCKS_PERTHREAD", "-1"), Catch::Contains("an integer from 0 to 64"));

  // Two L40S servers with one 400 GbE NIC each on plain TCP. A 2-rank ring sends each rank's whole
  // message (2 (p-1)/p N) over its channels, one connection per channel and direction; each
  // connection runs at streams x 25 Gb/s, below the NIC (50 GB/s) and the staged PCIe path.
  ClusterSpec spec;
  spec.nodes = 2;
  spec.node.gpus = 1;
  spec.node.gpu_model = GpuModel::L40S;
  spec.node.pcie = gpu_spec(GpuModel::L40S).pcie;
  spec.node.pcie_switches = 0;  // GPU and NIC straight on the CPU: staging shares no uplink
  spec.node.nics = 1;
  spec.node.nic = LinkKind::Eth400;
  spec.node.transport = Transport::Tcp;
  spec.fabric.kind = FabricKind::SingleSwitch;
  const Topology t = make_cluster(spec);
  const NcclEnv ring = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
  const NcclConnection c = NcclTransports(t, ring).connect(t.gpus()[0], t.gpus()[1]);
  CHECK(c.transport == NcclTransport::Net);
  CHECK(c.max_rate == Bandwidth::from_bits_per_second(25e9));
  const NcclChoice choice = nccl_choose(t, t.gpus(), Collective::AllReduce, 256_MiB, {}, ring);
  const double bytes = 256.0 * (1 << 20);
  const double one_stream = (run_network(t, 256_MiB, ring).result->time - choice.latency).seconds();
  CHECK(one_stream == Approx(bytes / (choice.channels * 25e9 / 8)).epsilon(0.01));
  NcclEnv two = ring;
  REQUIRE(set_nccl_env(two, "NCCL_SOCKET_NTHREADS", "2").empty());
  const double two_streams = (run_network(t, 256_MiB, two).result->time - choice.latency).seconds();
  CHECK(two_streams == Approx(bytes / (choice.channels * 2 * 25e9 / 8)).epsilon(0.01));
  // RDMA on the same NIC: no stream limit.
  spec.node.transport = Transport::Rdma;
  const Topology rdma = make_cluster(spec);
  CHECK(NcclTransports(rdma, ring).connect(rdma.gpus()[0], rdma.gpus()[1]).max_rate == Bandwidth{});
  // The vendor comes from the node template: an AWS instance's NICs are Amazon's (16 streams by
  // default), GCP A3's gVNIC Google's (4), A3 Ultra's ConnectX-7 neither (1).
  auto streams_on = [&](NodeTemplate node) {
    ClusterSpec cloud;
    cloud.nodes = 2;
    cloud.node = node_template(node);
    cloud.node.transport = Transport::Tcp;
    cloud.fabric.kind = FabricKind::SingleSwitch;
    const Topology t2 = make_cluster(cloud);
    return NcclTransports(t2, NcclEnv{}).connect(t2.gpus()[0], t2.gpus()[8]).max_rate / Bandwidth::from_bits_per_second(25e9);
  };
  CHECK(streams_on(NodeTemplate::AwsP4d) == 16.0);
  CHECK(streams_on(NodeTemplate::GcpA3) == 4.0);
  CHECK(streams_on(NodeTemplate::GcpA3Ultra) == 1.0);
}

namespace {

/// DGX H100 nodes cut to 4 GPUs and 4 NICs (GPU i and NIC i share PCIe switch i; switches 0-1 hang
/// off CPU 0, 2-3 off CPU 1) on a rail-optimised fabric: rail i's leaf joins NIC i of every node;
/// with `spines` 0 nothing joins the rails.
Topology rail_only_h100(int nodes, int spines = 0) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node = node_template(NodeTemplate::DgxH100);
  spec.node.gpus = 4;
  spec.node.nics = 4;
  spec.node.pcie_switches = 4;
  spec.fabric.kind = FabricKind::RailOptimized;
  spec.fabric.spines = spines;
  return make_cluster(spec);
}

/// Bytes that NCCL's 64 MiB ring allreduce over every GPU of `t` moves over link directions
/// `counted` selects, under `env` (which must leave NCCL_ALGO=Ring).
template <class Counted>
Bytes ring_bytes_on(const Topology& t, const NcclEnv& env, Counted&& counted) {
  CollectiveRequest request;
  request.algorithm = Algorithm::Nccl;
  request.message = 64_MiB;
  request.order.ranks = t.gpus();
  request.options.calibration = Calibration::nccl();
  request.nccl_env = env;
  const CollectiveOutcome out = run_collective(t, request);
  REQUIRE(out.result);
  REQUIRE(out.result->algorithm == "nccl:ring/simple");
  Bytes selected{0}, total{0};
  for (const DirectionStats& d : out.result->directions) {
    total = total + d.bytes;
    if (counted(d.direction)) selected = selected + d.bytes;
  }
  REQUIRE(total > Bytes{0});
  return selected;
}

}  // namespace

TEST_CASE("nccl transports: a send whose NIC lies behind a CPU goes through that NIC's GPU over NVLink (PXN), "
          "and a receive comes in by the receiver's own NIC", "[nccl][transport]") {
  const Topology t = rail_only_h100(2);
  const NcclTransports nccl(t, NcclEnv{});
  // node0/gpu2 -> node1/gpu0: node 1's GPU 0 receives on its own NIC 0, on rail 0, which only NIC 0
  // of node 0 reaches; GPU 2's path to that NIC crosses both CPUs (SYS, beyond PXN). NCCL relays
  // through GPU 0, NIC 0's own GPU, over NVLink (paths.cc: the NIC within PXB of that GPU with
  // GPUDirect RDMA, NVLink between the GPUs).
  const DeviceId gpu2 = device(t, "node0/gpu2");
  const NcclConnection pxn = nccl.connect(gpu2, device(t, "node1/gpu0"));
  CHECK(pxn.transport == NcclTransport::Net);
  CHECK(pxn.send_gdr);
  CHECK(pxn.recv_gdr);
  CHECK(pxn.waypoints ==
        std::vector<DeviceId>{device(t, "node0/gpu0"), device(t, "node0/nic0"), device(t, "node1/nic0")});
  // NCCL_PXN_DISABLE=1: the send is staged through GPU 2's own CPU instead.
  const NcclConnection staged =
      NcclTransports(t, env_of({{"NCCL_PXN_DISABLE", "1"}})).connect(gpu2, device(t, "node1/gpu0"));
  CHECK_FALSE(staged.send_gdr);
  CHECK(staged.recv_gdr);
  CHECK(staged.waypoints ==
        std::vector<DeviceId>{device(t, "node0/cpu1"), device(t, "node0/nic0"), device(t, "node1/nic0")});
  // node0/gpu3 -> node1/gpu1 likewise: in by NIC 1 of node 1, out by NIC 1 of node 0 through GPU 1.
  const NcclConnection entered = nccl.connect(device(t, "node0/gpu3"), device(t, "node1/gpu1"));
  CHECK(entered.send_gdr);
  CHECK(entered.recv_gdr);
  CHECK(entered.waypoints ==
        std::vector<DeviceId>{device(t, "node0/gpu1"), device(t, "node0/nic1"), device(t, "node1/nic1")});
  // A GPU's own NIC: the direct route, nothing relayed.
  CHECK(nccl.connect(device(t, "node0/gpu1"), device(t, "node1/gpu1")).waypoints.empty());
}

TEST_CASE("nccl transports: NCCL's ring on a rail-only fabric moves no byte across a CPU link, whatever the node "
          "count", "[nccl][transport]") {
  // ringlab's rings enter each node where the last one left; with 3 nodes of 4 rails the ring comes
  // back on another rail than it left node 0 by. The hop that closes it goes by PXN and the
  // receiver's own NIC as NCCL's would, not through either node's CPUs.
  const Topology t = rail_only_h100(3);
  const auto across_cpus = [&](DirectionId d) {
    return link_family(t.link(Topology::direction_link(d)).kind) == LinkFamily::Smp;
  };
  const NcclEnv ring = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
  CHECK(ring_bytes_on(t, ring, across_cpus) == Bytes{0});
  // With PXN off, the closing hop's send is staged through its GPU's CPU (NCCL does the same).
  NcclEnv no_pxn = ring;
  REQUIRE(set_nccl_env(no_pxn, "NCCL_PXN_DISABLE", "1").empty());
  CHECK(ring_bytes_on(t, no_pxn, across_cpus) > Bytes{0});
}

TEST_CASE("nccl transports: NCCL_CROSS_NIC=0 keeps every ring channel on one rail, off the spines", "[nccl][transport]") {
  // With spines joining the rails, ringlab's default ring closes across them (it left node 0 on
  // another rail than it comes back on). NCCL_CROSS_NIC=0 enters and leaves every node by one NIC
  // (the last GPU sends through it by PXN), so nothing crosses between rails.
  const Topology t = rail_only_h100(3, 2);
  const auto between_switches = [&](DirectionId d) {
    return is_fabric_switch(t.device(t.direction_source(d)).kind) &&
           is_fabric_switch(t.device(t.direction_target(d)).kind);
  };
  const NcclEnv ring = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
  CHECK(ring.cross_nic == 2);
  CHECK(ring_bytes_on(t, ring, between_switches) > Bytes{0});
  NcclEnv same_nic = ring;
  REQUIRE(set_nccl_env(same_nic, "NCCL_CROSS_NIC", "0").empty());
  CHECK(ring_bytes_on(t, same_nic, between_switches) == Bytes{0});
  // Each channel's ring enters every host on one rail: its first GPU there is the same local GPU.
  const auto rings = nccl_channel_rings(t, t.gpus(), 4, same_nic);
  REQUIRE(rings.size() == 4);
  for (std::size_t c = 0; c < rings.size(); ++c)
    for (std::size_t h = 0; h < 3; ++h) CHECK(rings[c][4 * h] == int(4 * h + c));
}

TEST_CASE("nccl channel rings: where only two of four GPUs share a root port with a NIC, every ring enters and "
          "leaves each host by those two, and no byte crosses a socket link",
          "[nccl][transport][channels]") {
  // ALCF Polaris's node: 4 A100 joined pairwise by NVLink, one EPYC in NPS4 (each GPU on its own
  // NUMA node, which NCCL sees as a CPU; AMD's inter-CPU figure between them), two NICs on the NUMA
  // nodes of GPUs 0 and 2. NCCL's search begins and ends each host's part of a ring at GPUs with the
  // best path to a NIC (PHB here; every other GPU is SYS from both). Entering by the rank order's
  // GPU nearest the rail, as before, let rings enter at GPU 1 or 3 (as near both NICs as it is to
  // either) and stage every byte through two CPUs.
  ClusterSpec spec = pcie_spec(3, 4, 0, 4, 2, GpuModel::A100_40GB, Transport::Rdma, LinkKind::Xgmi);
  spec.node.gpu_interconnect = GpuInterconnect::AllToAll;
  spec.node.nvlink = LinkKind::NvLink3;
  spec.node.nvlinks = 12;  // NV4 between every pair
  const Topology t = make_cluster(spec);
  const NcclEnv env = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}, {"NCCL_CROSS_NIC", "1"},
                              {"NCCL_NET_GDR_LEVEL", "PHB"}});
  const auto rings = nccl_channel_rings(t, t.gpus(), 4, env);
  REQUIRE(rings.size() == 4);
  std::map<int, int> entries, exits;  // local index -> count
  for (const std::vector<int>& ring : rings) {
    REQUIRE(ring.size() == 12);
    for (std::size_t h = 0; h < 3; ++h) {
      const int entry = t.device(t.gpus()[std::size_t(ring[4 * h])]).local_index;
      const int exit = t.device(t.gpus()[std::size_t(ring[4 * h + 3])]).local_index;
      CHECK((entry == 0 || entry == 2));  // NIC 0 sits with GPU 0, NIC 1 with GPU 2 (j x cpus / nics)
      CHECK((exit == 0 || exit == 2));
      CHECK(entry != exit);
      ++entries[entry];
      ++exits[exit];
    }
  }
  CHECK(entries[0] == entries[2]);  // the two NICs take the channels in turn
  CHECK(exits[0] == exits[2]);
  const auto between_cpus = [&](DirectionId d) {
    return t.device(t.direction_source(d)).kind == DeviceKind::Cpu &&
           t.device(t.direction_target(d)).kind == DeviceKind::Cpu;
  };
  CHECK(ring_bytes_on(t, env, between_cpus) == Bytes{0});
}

TEST_CASE("nccl transports: SHM between GPUs on two sockets crosses the socket link at NCCL's inter-CPU figure",
          "[nccl][transport]") {
  // Two GPUs without P2P (GeForce), each on its own CPU's root port, PCIe gen4 x16 (NCCL's 24 GB/s).
  // SHM goes through the receiver's CPU, so each direction of the 2-GPU ring crosses the socket link
  // once and every link carries N bytes per direction: busbw = N / bandwidth term = the slower of
  // PCIe (24) and NCCL's socket figure (src/graph/topo.h: SKL_QPI_BW 10, AMD_BW 16, SRP_QPI_BW 22,
  // ERP_QPI_BW 40, BDW_QPI_BW 6), not the links' nominal 41.6-160 GB/s.
  const std::vector<std::pair<LinkKind, double>> cases{{LinkKind::Qpi, 6.0},     {LinkKind::Smp, 10.0},
                                                       {LinkKind::Xgmi, 16.0},   {LinkKind::UpiSpr, 22.0},
                                                       {LinkKind::UpiEmr, 24.0}};
  for (const auto& [kind, busbw_gbytes] : cases) {
    CAPTURE(to_string(kind));
    const Topology t = pcie_cluster(1, 2, 0, 2, 0, GpuModel::Rtx4090, Transport::Rdma, kind);
    const NcclEnv ring = env_of({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}});
    const CollectiveOutcome out = run_network(t, 256_MiB, ring);
    const Duration latency = nccl_choose(t, t.gpus(), Collective::AllReduce, 256_MiB, {}, ring).latency;
    const double busbw = 256.0 * (1 << 20) / (out.result->time - latency).seconds();
    CHECK(busbw / 1e9 == Approx(busbw_gbytes).epsilon(0.02));
    CHECK(busbw / 1e9 <= busbw_gbytes * (1 + 1e-9));
  }
}
