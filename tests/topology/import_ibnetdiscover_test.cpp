// ibnetdiscover import on tests/data/import/small_fabric.ibnetdiscover: leaves leaf01 and leaf02 under
// spine01 (HDR), hosts node01..node04 with mlx5_0 and mlx5_1 each. Trained down: leaf02[21] <-> spine01[3]
// at 4xEDR, and node04 mlx5_1 at 2xHDR.
#include <catch2/catch.hpp>

#include "import_helpers.hpp"
#include "ringlab/topology/import.hpp"

using namespace ringlab;
using namespace ringlab::test;
using namespace ringlab::literals;

TEST_CASE("ibnetdiscover: hosts, switches, links deduplicated and bundled, tiers from distance", "[import][ib]") {
  const Fabric f = parse_ibnetdiscover(import_fixture("small_fabric.ibnetdiscover"), "fab.txt");
  CHECK(f.hosts == std::vector<std::string>{"node01", "node02", "node03", "node04"});
  REQUIRE(f.switches.size() == 3);
  int leaves = 0, spines = 0;
  for (const FabricSwitch& s : f.switches) {
    leaves += s.kind == DeviceKind::Leaf;
    spines += s.kind == DeviceKind::Spine && s.name == "spine01";
  }
  CHECK(leaves == 2);
  CHECK(spines == 1);
  // 8 HCA links; leaf01-spine01 two HDR cables as one bundle; leaf02-spine01 one HDR and one EDR.
  REQUIRE(f.links.size() == 11);
  int hdr_bundles = 0, edr = 0, host_links = 0;
  for (const FabricLink& l : f.links) {
    host_links += l.a.host || l.b.host;
    hdr_bundles += !l.a.host && !l.b.host && l.kind == LinkKind::IbHdr && l.lanes == 2;
    edr += l.kind == LinkKind::IbEdr && !l.bandwidth;
    if ((l.a.device == "node04" && l.a.hca == "mlx5_1") || (l.b.device == "node04" && l.b.hca == "mlx5_1")) {
      CHECK(l.kind == LinkKind::IbHdr);
      CHECK(l.bandwidth == 100_Gbps);  // 2 lanes x 50 Gb/s
    }
  }
  CHECK(host_links == 8);
  CHECK(hdr_bundles == 1);
  CHECK(edr == 1);
  REQUIRE(f.report.warnings.size() == 2);
  CHECK_THAT(f.report.warnings[0], Catch::Contains("node04 mlx5_1") && Catch::Contains("majority"));
  CHECK_THAT(f.report.warnings[1], Catch::Contains("leaf02[21] <-> spine01[3]") && Catch::Contains("4xEDR") &&
                                       Catch::Contains("trained down"));
}

TEST_CASE("ibnetdiscover + template: HCAs mlx5_0/1 attach to NICs 0 and 1 of each host", "[import][ib]") {
  const Fabric f = parse_ibnetdiscover(import_fixture("small_fabric.ibnetdiscover"), "fab.txt");
  const NodeLayout node = template_layout(NodeTemplate::DgxA100);
  const ImportedCluster c = combine(&f, &node);
  const Topology& t = c.cluster;
  CHECK(t.gpus().size() == 32);
  CHECK(link_between(t, "node03/nic1", "leaf02").bandwidth == 200_Gbps);
  CHECK(link_between(t, "node04/nic1", "leaf02").bandwidth == 100_Gbps);
  CHECK(t.neighbors(t.device_by_name("node01/nic2")).size() == 1);  // no HCA mlx5_2 in the fabric
  const Link& bundle = link_between(t, "leaf01", "spine01");
  CHECK(bundle.lanes == 2);
  CHECK(bundle.bandwidth == 400_Gbps);
  CHECK(t.device(t.device_by_name("spine01")).tier == 2);
}

TEST_CASE("ibnetdiscover: bad lines are reported with their line number", "[import][ib]") {
  const auto problem = [](const std::string& text) {
    return first_problem([&] { parse_ibnetdiscover(text, "bad.ib"); }, "bad.ib");
  };
  const std::string sw = "Switch\t41 \"S-0001\"\t\t# \"MF0;a:M/U1\" enhanced port 0 lid 1 lmc 0\n";
  Problem p = problem(sw + "[1]\t\"H-0002\"[1](2)\t\t# \"n1 mlx5_0\" lid 2 4xQQR\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("unknown InfiniBand speed \"QQR\""));
  p = problem("vendid=0x2c9\n" + sw + "this is not ibnetdiscover\n");
  CHECK(p.location == "line 3");
  CHECK_THAT(p.message, Catch::Contains("unrecognised line"));
  p = problem("[1]\t\"H-0002\"[1](2)\t\t# \"n1 mlx5_0\" lid 2 4xHDR\n");
  CHECK(p.location == "line 1");
  CHECK_THAT(p.message, Catch::Contains("before any Switch or Ca"));
  p = problem(sw + "[1]\t\"H-0002\"[1](2)\t\t# \"n1 mlx5_0\" lid 2\n");
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("4xHDR"));
  p = problem(sw + sw);
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("appears twice"));
  p = problem(sw + "[99999999999]\t\"H-0002\"[1](2)\t\t# \"n1 mlx5_0\" lid 2 4xHDR\n");  // was std::stoi's throw
  CHECK(p.location == "line 2");
  CHECK_THAT(p.message, Catch::Contains("out of range"));
}
