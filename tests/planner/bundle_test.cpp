// plan.json and the launch bundle: exact launcher lines, a round trip, check_bundle() catching
// hand-corrupted files, and check.sh reading NCCL_DEBUG logs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ringlab/planner/bundle.hpp"
#include "ringlab/planner/planner.hpp"

using namespace ringlab;
namespace fs = std::filesystem;

namespace {

Scenario three_dgx() {
  Scenario s = parse_scenario(R"({"ringlab": 1, "name": "three-dgx", "cluster": {"generate": {"nodes": 3,
                                   "node": {"template": "dgx_h100"},
                                   "fabric": {"kind": "leaf_spine", "nodes_per_leaf": 3, "spines": 1}}}})",
                              "three-dgx.json");
  return s;
}

planner::Plan make(const Scenario& s) {
  planner::PlanRequest r;
  r.message = Bytes{64LL << 20};
  r.channels = 2;
  r.random_orders = 0;
  r.search.max_moves = 0;
  // The scheduler hands the hosts out in reverse.
  sim::RankOrder order;
  for (int h = 2; h >= 0; --h)
    for (DeviceId d : s.cluster.host_devices(HostId(h)))
      if (s.cluster.device(d).kind == DeviceKind::Gpu) order.ranks.push_back(d);
  r.scheduler_order = order;
  return planner::make_plan(s, r).plan;
}

std::string file_text(const std::vector<planner::BundleFile>& files, const std::string& name) {
  for (const auto& f : files)
    if (f.path == name) return f.text;
  FAIL("no bundle file " << name);
  return {};
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ringlab-bundle-test-" + name);
  fs::remove_all(dir);
  return dir;
}

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(file, std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("bundle: plan.json round-trips") {
  const Scenario s = three_dgx();
  const planner::Plan p = make(s);
  const planner::Plan back = planner::plan_from_json(s.cluster, planner::plan_to_json(s.cluster, p), "plan.json");
  CHECK(back.hosts == p.hosts);
  CHECK(back.order.digest(s.cluster) == p.order.digest(s.cluster));
  CHECK(back.nccl_env == p.nccl_env);
  CHECK(back.message == p.message);
  CHECK(back.channels == 2);
  CHECK(back.master_host == p.master_host);
}

TEST_CASE("bundle: every launcher's file lists the planned hosts in order") {
  const Scenario s = three_dgx();
  const planner::Plan p = make(s);
  const auto files = planner::launch_files(s.cluster, p);
  std::string hosts, slots, machine;
  for (const auto& h : p.hosts) {
    slots += h.name + " slots=8\n";
    machine += h.name + ":8\n";
  }
  CHECK_THAT(file_text(files, "hostfile"), Catch::EndsWith(slots));
  CHECK_THAT(file_text(files, "machinefile"), Catch::EndsWith(machine));
  CHECK_THAT(file_text(files, "rankfile"), Catch::Contains("rank 9=" + p.hosts[1].name + " slot=1\n"));
  std::istringstream tasks(file_text(files, "slurm.hosts"));
  int n = 0;
  for (std::string line; std::getline(tasks, line); ++n) CHECK(line == p.hosts[std::size_t(n / 8)].name);
  CHECK(n == 24);
  const auto tf = nlohmann::json::parse(file_text(files, "tf_config/" + p.hosts[2].name + ".json"));
  CHECK(tf["task"]["index"] == 2);
  CHECK(tf["cluster"]["worker"][0] == p.hosts[0].name + ":2222");
  CHECK_THAT(file_text(files, "torchrun.sh"), Catch::Contains("  " + p.hosts[1].name + ") NODE_RANK=1 ;;"));
  CHECK_THAT(file_text(files, "nccl-debug.env"), Catch::Contains("NCCL_MIN_NCHANNELS=\"2\"") || !Catch::Contains("NCCL_ALGO"));
  CHECK_THAT(file_text(files, "nccl.env"), !Catch::Contains("NCCL_ALGO"));
}

TEST_CASE("bundle: the graph file follows NCCL's grammar and holds the planned channels") {
  const Scenario s = three_dgx();
  const planner::Plan p = make(s);
  const std::string xml = file_text(planner::launch_files(s.cluster, p), "nccl-graph/" + p.hosts[0].name + ".xml");
  CHECK(xml.rfind("<graphs version=\"1\">\n", 0) == 0);
  CHECK(xml.find('\t') == std::string::npos);
  CHECK(xml.find("rank=") == std::string::npos);
  CHECK_THAT(xml, Catch::Contains("<graph id=\"0\" pattern=\"4\"") && Catch::Contains("<graph id=\"1\" pattern=\"1\""));
  CHECK_THAT(xml, Catch::Contains("nchannels=\"2\""));
  // Channel 1's first GPU, in hex, is the plan's.
  const auto& c1 = p.hosts[0].channels[1];
  char first[16];
  std::snprintf(first, sizeof first, "0x%x", c1.local_ranks[0]);
  CHECK_THAT(xml, Catch::Contains("<net dev=\"0x" + std::to_string(c1.nic_in) + "\"/>\n      <gpu dev=\"" + first + "\"/>"));
}

TEST_CASE("bundle: check_bundle passes a written bundle and names each hand-corrupted file") {
  const Scenario s = three_dgx();
  const planner::Plan p = make(s);
  const fs::path dir = temp_dir("check");
  planner::write_bundle(s.cluster, p, dir.string());
  CHECK(planner::check_bundle(s.cluster, dir.string()).empty());
  CHECK((fs::status(dir / "check.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);

  const std::string a = p.hosts[0].name, b = p.hosts[1].name;
  replace_in(dir / "hostfile", a + " slots=8\n" + b + " slots=8", b + " slots=8\n" + a + " slots=8");
  replace_in(dir / "rankfile", "rank 3=", "rank 4=");
  replace_in(dir / ("tf_config/" + p.hosts[1].name + ".json"), "\"index\":1", "\"index\":0");
  replace_in(dir / ("nccl-graph/" + a + ".xml"), "    <channel>", "\t<channel>");
  replace_in(dir / ("nccl-graph/" + b + ".xml"), "nchannels=\"2\"", "nchannels=\"3\"");
  const auto problems = planner::check_bundle(s.cluster, dir.string());
  std::string all;
  for (const auto& x : problems) all += x + "\n";
  CAPTURE(all);
  CHECK_THAT(all, Catch::Contains("hostfile:2: expected '" + a + " slots=8', found '" + b + " slots=8'"));
  CHECK_THAT(all, Catch::Contains("rankfile:5: expected 'rank 3="));
  CHECK_THAT(all, Catch::Contains("tf_config/" + p.hosts[1].name + ".json: task.index is 0, expected 1"));
  CHECK_THAT(all, Catch::Contains("nccl-graph/" + a + ".xml:3: a tab character"));
  CHECK_THAT(all, Catch::Contains("nccl-graph/" + b + ".xml: graph 0 says nchannels=\"3\" but has 2"));
  fs::remove_all(dir);
}

TEST_CASE("bundle: check.sh passes a log where NCCL took the plan and fails one where a rank moved") {
  const Scenario s = three_dgx();
  const planner::Plan p = make(s);
  const fs::path dir = temp_dir("log");
  planner::write_bundle(s.cluster, p, dir.string());
  // A synthetic NCCL_DEBUG=INFO log in NCCL's formats (init.cc "Init COMPLETE", "Channel 00/02 :").
  auto write_log = [&](const fs::path& file, int moved_rank) {
    std::ofstream log(file);
    log << p.hosts[0].name << ":11:11 [0] NCCL INFO Search 0 : 2 channels loaded from XML graph\n";
    std::string ring;
    for (int r = 0; r < p.ranks(); ++r) ring += "  " + std::to_string(r);
    log << p.hosts[0].name << ":11:11 [0] NCCL INFO Channel 00/02 :" << ring << "\n";
    for (const auto& h : p.hosts)
      for (int i = 0; i < h.size(); ++i) {
        const int rank = h.first_rank + i;
        const std::string host = rank == moved_rank ? p.hosts[(&h - &p.hosts[0] + 1) % 3].name : h.name;
        log << host << ".cluster.local:12:12 [" << i << "] NCCL INFO comm 0x55 rank " << rank << " nranks 24 cudaDev " << i
            << " nvmlDev " << h.gpus[std::size_t(i)] << " busId 1b000 commId 0x1 - Init COMPLETE\n";
      }
  };
  write_log(dir / "good.log", -1);
  write_log(dir / "bad.log", 5);
  const std::string script = (dir / "check.sh").string();
  CHECK(std::system(("sh " + script + " --log " + (dir / "good.log").string() + " > " + (dir / "good.out").string()).c_str()) == 0);
  CHECK(std::system(("sh " + script + " --log " + (dir / "bad.log").string() + " > " + (dir / "bad.out").string()).c_str()) != 0);
  std::ifstream bad(dir / "bad.out");
  std::stringstream ss;
  ss << bad.rdbuf();
  CHECK_THAT(ss.str(), Catch::Contains("FAIL rank 5 runs on " + p.hosts[1].name + ", planned " + p.hosts[0].name));
  fs::remove_all(dir);
}
