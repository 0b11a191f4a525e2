// The launch bundle: exact launcher files for a plan with reversed hosts, permuted GPUs and two
// different channel rings; check_bundle() on the written bundle and on hand-corrupted copies; and
// check.sh on synthetic NCCL_DEBUG=INFO logs (tests/data/plan/*.log, written in the format of NCCL's
// src/debug.cc prefix, init.cc "Init COMPLETE" and rings.cc "Channel CC/NN :" lines).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <pugixml.hpp>

#include "plan_fixture.hpp"
#include "ringlab/planner/bundle.hpp"
#include "ringlab/sim/rank_order.hpp"

using namespace ringlab;
namespace fs = std::filesystem;

namespace {

std::map<std::string, planner::BundleFile> files_by_path(const std::vector<planner::BundleFile>& files) {
  std::map<std::string, planner::BundleFile> out;
  for (const auto& f : files) out.emplace(f.path, f);
  return out;
}

/// A fresh folder for one test case, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("ringlab-bundle-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Replaces the first `from` in the file by `to`; fails the test when `from` is absent.
void edit(const fs::path& p, const std::string& from, const std::string& to) {
  std::string text = read(p);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

struct Run {
  int status = -1;
  std::string output;
};

Run run_shell(const std::string& command, const std::string& name) {
  const fs::path out = fs::temp_directory_path() / ("ringlab-check-sh-" + name + "-" + std::to_string(::getpid()));
  const int raw = std::system((command + " > '" + out.string() + "' 2>&1").c_str());
  Run r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read(out)};
  fs::remove(out);
  return r;
}

}  // namespace

TEST_CASE("bundle: files in a stable order, scripts executable") {
  const Topology t = test::two_dgx_cluster();
  const auto files = planner::launch_files(t, test::reversed_plan(t));
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path + (f.executable ? "*" : ""));
  CHECK(paths == std::vector<std::string>{"plan.json", "README.txt", "hostfile", "rankfile", "machinefile",
                                          "slurm.hosts", "srun.sh*", "torchrun.sh*", "tf_config/node1.json",
                                          "tf_config/node0.json", "nccl.env", "nccl-debug.env",
                                          "nccl-graph/node1.xml", "nccl-graph/node0.xml", "check.sh*"});
  for (const auto& f : files) CHECK_FALSE(f.purpose.empty());
}

TEST_CASE("bundle: hostfile, machinefile and SLURM_HOSTFILE put node1 first") {
  const Topology t = test::two_dgx_cluster();
  auto files = files_by_path(planner::launch_files(t, test::reversed_plan(t)));
  CHECK(files["hostfile"].text ==
        "# Open MPI / DeepSpeed hostfile written by `ringlab plan`: hosts in node (rank) order.\n"
        "# mpirun --hostfile hostfile --map-by slot -n 16 ...\n"
        "node1 slots=8\n"
        "node0 slots=8\n");
  CHECK(files["machinefile"].text ==
        "# MPICH / Intel MPI (Hydra) machinefile written by `ringlab plan`: host:ranks in node order.\n"
        "# mpiexec -f machinefile -n 16 ...\n"
        "node1:8\n"
        "node0:8\n");
  std::string slurm;
  for (int i = 0; i < 8; ++i) slurm += "node1\n";
  for (int i = 0; i < 8; ++i) slurm += "node0\n";
  CHECK(files["slurm.hosts"].text == slurm);
}

TEST_CASE("bundle: rankfile binds each rank to the socket of its GPU") {
  const Topology t = test::two_dgx_cluster();
  auto files = files_by_path(planner::launch_files(t, test::reversed_plan(t)));
  // DGX H100: GPUs 0-3 hang off CPU 0, GPUs 4-7 off CPU 1. node1 runs GPUs 3 1 0 2 4 5 6 7.
  const std::string text = files["rankfile"].text;
  CHECK_THAT(text, Catch::Contains("rank 0=node1 slot=0:*\n"
                                   "rank 1=node1 slot=0:*\n"
                                   "rank 2=node1 slot=0:*\n"
                                   "rank 3=node1 slot=0:*\n"
                                   "rank 4=node1 slot=1:*\n"));
  CHECK_THAT(text, Catch::Contains("rank 8=node0 slot=1:*\n"));   // node0/gpu7
  CHECK_THAT(text, Catch::EndsWith("rank 15=node0 slot=0:*\n"));  // node0/gpu0
}

TEST_CASE("bundle: TF_CONFIG per worker lists the workers in node order with its own index") {
  const Topology t = test::two_dgx_cluster();
  auto files = files_by_path(planner::launch_files(t, test::reversed_plan(t)));
  for (const auto& [name, index] : {std::pair{"node1", 0}, std::pair{"node0", 1}}) {
    const auto config = nlohmann::json::parse(files["tf_config/" + std::string(name) + ".json"].text);
    CHECK(config["cluster"]["worker"] == nlohmann::json{"node1:2222", "node0:2222"});
    CHECK(config["task"]["type"] == "worker");
    CHECK(config["task"]["index"] == index);
  }
}

TEST_CASE("bundle: torchrun lines use the static rendezvous with --node-rank in node order") {
  const Topology t = test::two_dgx_cluster();
  auto files = files_by_path(planner::launch_files(t, test::reversed_plan(t)));
  const std::string text = files["torchrun.sh"].text;
  CHECK_THAT(text, Catch::Contains(
                       "  node1|node1.*) export CUDA_VISIBLE_DEVICES=3,1,0,2,4,5,6,7; exec torchrun --nnodes=2 "
                       "--nproc-per-node=8 --node-rank=0 --master-addr=node1 --master-port=29500 \"$@\" ;;\n"
                       "  node0|node0.*) export CUDA_VISIBLE_DEVICES=7,6,5,4,3,2,1,0; exec torchrun --nnodes=2 "
                       "--nproc-per-node=8 --node-rank=1 --master-addr=node1 --master-port=29500 \"$@\" ;;\n"));
  CHECK_THAT(text, Catch::Contains("ignores\n# --node-rank and ranks nodes by their sorted host names"));
  CHECK(text.find("--rdzv-backend=c10d") == text.find("--rdzv-backend=c10d / --rdzv-endpoint"));
  CHECK_THAT(files["srun.sh"].text,
             Catch::Contains("exec srun -n 16 --distribution=arbitrary \"$DIR/srun.sh\" --task \"$@\"\n"));
  CHECK_THAT(files["srun.sh"].text, Catch::Contains("RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=16\n"));
}

TEST_CASE("bundle: NCCL environment splits system settings from debug-only ones") {
  const Topology t = test::two_dgx_cluster();
  auto files = files_by_path(planner::launch_files(t, test::reversed_plan(t)));
  CHECK_THAT(files["nccl.env"].text, Catch::Contains("# rings may leave a node by another NIC than they enter by\n"
                                                     "export NCCL_CROSS_NIC='2'\n"));
  CHECK_THAT(files["nccl.env"].text, Catch::Contains("export NCCL_GRAPH_FILE\n"));
  CHECK_THAT(files["nccl.env"].text, Catch::Contains("case \"$RINGLAB_HOST\" in\n"
                                                     "  node1|node1.*) CUDA_VISIBLE_DEVICES=3,1,0,2,4,5,6,7 ;;\n"
                                                     "  node0|node0.*) CUDA_VISIBLE_DEVICES=7,6,5,4,3,2,1,0 ;;\n"));
  CHECK(files["nccl.env"].text.find("NCCL_ALGO") == std::string::npos);
  CHECK_THAT(files["nccl-debug.env"].text, Catch::Contains("should not be used in production nor retained in scripts"));
  CHECK_THAT(files["nccl-debug.env"].text, Catch::EndsWith("export NCCL_ALGO='Ring'\n"));
}

TEST_CASE("bundle: graph XML follows NCCL's grammar and pins each channel's GPUs and NICs") {
  const Topology t = test::two_dgx_cluster();
  const planner::Plan plan = test::reversed_plan(t);
  auto files = files_by_path(planner::launch_files(t, plan));
  const std::string text = files["nccl-graph/node1.xml"].text;
  CHECK(text.find('\t') == std::string::npos);
  CHECK(text.find("<?") == std::string::npos);
  CHECK(text.find("rank=") == std::string::npos);
  CHECK_THAT(text, Catch::StartsWith("<graphs version=\"1\" name=\"ringlab:node1\">\n  <graph id=\"0\" pattern=\"4\""));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(text.c_str()));
  std::vector<std::pair<int, int>> ids;
  for (const auto g : doc.child("graphs").children("graph")) {
    ids.emplace_back(g.attribute("id").as_int(), g.attribute("pattern").as_int());
    CHECK(std::string(g.attribute("nchannels").value()) == "2");
    CHECK(std::string(g.attribute("typeintra").value()) == "NVL");
    CHECK(std::string(g.attribute("samechannels").value()) == "0");
    std::vector<std::vector<std::string>> channels;
    for (const auto c : g.children("channel")) {
      channels.emplace_back();
      for (const auto e : c.children()) channels.back().push_back(std::string(e.name()) + ":" + e.attribute("dev").value());
    }
    const auto nic = [](int n) { return "net:0x" + std::to_string(n); };
    const auto& hc = plan.hosts[0].channels;
    REQUIRE(channels.size() == 2);
    CHECK(channels[0] == std::vector<std::string>{nic(hc[0].nic_in), "gpu:0x3", "gpu:0x1", "gpu:0x0", "gpu:0x2", "gpu:0x4",
                                                  "gpu:0x5", "gpu:0x6", "gpu:0x7", nic(hc[0].nic_out)});
    // Channel 1 visits local ranks 1 0 3 2 5 4 7 6: GPUs 1 3 2 0 5 4 7 6.
    CHECK(channels[1] == std::vector<std::string>{nic(hc[1].nic_in), "gpu:0x1", "gpu:0x3", "gpu:0x2", "gpu:0x0", "gpu:0x5",
                                                  "gpu:0x4", "gpu:0x7", "gpu:0x6", nic(hc[1].nic_out)});
  }
  CHECK(ids == std::vector<std::pair<int, int>>{{0, 4}, {1, 1}});
}

TEST_CASE("bundle: a single-node graph has no <net>") {
  const Topology t = test::two_dgx_cluster();
  planner::Plan plan;
  plan.order = sim::declaration_order(t, 8);
  plan.hosts = planner::host_plans(t, plan.order, 1);
  plan.master_host = "node0";
  auto files = files_by_path(planner::launch_files(t, plan));
  const std::string text = files["nccl-graph/node0.xml"].text;
  CHECK(text.find("<net") == std::string::npos);
  CHECK_THAT(text, Catch::Contains("<channel>\n      <gpu dev=\"0x0\"/>\n      <gpu dev=\"0x1\"/>"));
}

TEST_CASE("bundle: a written bundle checks clean, and each corrupted file is reported with its line") {
  const Topology t = test::two_dgx_cluster();
  const planner::Plan plan = test::reversed_plan(t);
  TempDir dir("check");
  planner::write_bundle(t, plan, dir.path.string());
  REQUIRE(joined(planner::check_bundle(t, dir.path.string())).empty());
  CHECK((fs::status(dir.path / "check.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK((fs::status(dir.path / "hostfile").permissions() & fs::perms::owner_exec) == fs::perms::none);
  for (const auto& e : fs::recursive_directory_iterator(dir.path))
    CHECK(e.path().extension() != ".tmp");

  // ringlab's own --rank-order reader takes the host lists as the launchers do: same host per rank.
  for (const char* file : {"hostfile", "machinefile", "slurm.hosts"}) {
    const sim::RankOrder order = sim::load_rank_order(t, (dir.path / file).string(), 16);
    for (int r = 0; r < 16; ++r) {
      INFO(file << " rank " << r);
      CHECK(t.device(order.ranks[std::size_t(r)]).host == t.device(plan.order.ranks[std::size_t(r)]).host);
    }
  }

  const auto problems = [&] { return joined(planner::check_bundle(t, dir.path.string())); };
  SECTION("two hostfile lines swapped") {
    edit(dir.path / "hostfile", "node1 slots=8\nnode0 slots=8\n", "node0 slots=8\nnode1 slots=8\n");
    CHECK(problems() ==
          "hostfile:3: node 0 (ranks 0..7) is not the planned one (expected 'node1 slots=8', found 'node0 slots=8')\n"
          "hostfile:4: node 1 (ranks 8..15) is not the planned one (expected 'node0 slots=8', found 'node1 slots=8')\n");
  }
  SECTION("a hostfile line without slots") {
    edit(dir.path / "hostfile", "node0 slots=8", "node0");
    CHECK_THAT(problems(), Catch::StartsWith("hostfile:4: no valid slots=N: Open MPI would start as many ranks as node0 has cores"));
  }
  SECTION("a rankfile rank changed") {
    edit(dir.path / "rankfile", "rank 8=node0", "rank 7=node0");
    CHECK(problems() == "rankfile:12: rank 7 is placed twice (also on line 11)\n"
                        "rankfile: rank 8 missing (expected 'rank 8=node0 slot=...')\n");
  }
  SECTION("a rankfile rank on the wrong host") {
    edit(dir.path / "rankfile", "rank 3=node1", "rank 3=node0");
    CHECK(problems() == "rankfile:7: rank 3 is on the wrong host (expected node1, found node0)\n");
  }
  SECTION("SLURM_HOSTFILE tasks written comma separated but in the wrong order") {
    std::string text = "node1,node1,node1,node1,node1,node1,node1,node0\nnode1,node0,node0,node0,node0,node0,node0,node0\n";
    std::ofstream(dir.path / "slurm.hosts", std::ios::trunc) << text;
    CHECK(problems() == "slurm.hosts:1: task 7 (rank 7) is on the wrong host (expected node1, found node0)\n"
                        "slurm.hosts:2: task 8 (rank 8) is on the wrong host (expected node0, found node1)\n");
  }
  SECTION("a machinefile count changed") {
    edit(dir.path / "machinefile", "node0:8", "node0:4");
    CHECK(problems() == "machinefile:4: node 1 (ranks 8..15) is not the planned one (expected 'node0:8', found 'node0:4')\n");
  }
  SECTION("a wrong TF_CONFIG index") {
    edit(dir.path / "tf_config/node0.json", "\"index\": 1", "\"index\": 0");
    CHECK(problems() == "tf_config/node0.json:9: task.index of node0 (expected 1, its place in cluster.worker, found 0)\n");
  }
  SECTION("torchrun --node-rank swapped") {
    edit(dir.path / "torchrun.sh", "--node-rank=1", "--node-rank=0");
    CHECK_THAT(problems(), Catch::Matches("torchrun.sh:[0-9]+: --node-rank for node0 \\(expected 1, found 0\\)\n"));
  }
  SECTION("a tab in the graph XML") {
    edit(dir.path / "nccl-graph/node0.xml", "      <gpu dev=\"0x7\"/>", "\t<gpu dev=\"0x7\"/>");
    CHECK_THAT(problems(), Catch::StartsWith("nccl-graph/node0.xml:5: tab character"));
  }
  SECTION("nchannels that is not the channel count") {
    edit(dir.path / "nccl-graph/node1.xml", "nchannels=\"2\"", "nchannels=\"3\"");
    CHECK(problems() == "nccl-graph/node1.xml:2: nchannels=\"3\" but the graph has 2 <channel> elements (NCCL trusts nchannels)\n");
  }
  SECTION("two GPUs swapped in a channel") {
    edit(dir.path / "nccl-graph/node1.xml", "<gpu dev=\"0x3\"/>\n      <gpu dev=\"0x1\"/>",
         "<gpu dev=\"0x1\"/>\n      <gpu dev=\"0x3\"/>");
    CHECK(problems() == "nccl-graph/node1.xml:3: channel 0 GPUs (expected 0x3 0x1 0x0 0x2 0x4 0x5 0x6 0x7, "
                        "found 0x1 0x3 0x0 0x2 0x4 0x5 0x6 0x7)\n");
  }
  SECTION("a decimal dev and a rank attribute in the graph XML") {
    edit(dir.path / "nccl-graph/node1.xml", "<gpu dev=\"0x3\"/>", "<gpu dev=\"3\" rank=\"0\"/>");
    CHECK(problems() == "nccl-graph/node1.xml:5: rank= attribute: NCCL reads it as a global rank, valid on one node only; use dev alone\n"
                        "nccl-graph/node1.xml:5: dev=\"3\" is not a 0x-prefixed hex number (NCCL reads dev as hex)\n");
  }
  SECTION("a tag split over two lines and text between elements") {
    edit(dir.path / "nccl-graph/node0.xml", "<graph id=\"1\" pattern=\"1\"", "<graph id=\"1\"\npattern=\"1\"");
    edit(dir.path / "nccl-graph/node0.xml", "</channel>", "</channel> ring");
    CHECK(problems() == "nccl-graph/node0.xml:28: a tag continues on the next line: NCCL's parser needs each tag on one line\n"
                        "nccl-graph/node0.xml:14: text between elements: NCCL's parser expects '<'\n");
  }
  SECTION("nccl.env with another GPU order for a host") {
    edit(dir.path / "nccl.env", "CUDA_VISIBLE_DEVICES=7,6,5,4,3,2,1,0", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7");
    CHECK_THAT(problems(), Catch::Matches("nccl.env:[0-9]+: CUDA_VISIBLE_DEVICES for node0 must list its GPUs in local-rank order "
                                          "\\(expected 7,6,5,4,3,2,1,0, found 0,1,2,3,4,5,6,7\\)\n"));
  }
  SECTION("a debug-only setting moved into nccl.env") {
    std::ofstream(dir.path / "nccl.env", std::ios::app) << "export NCCL_PROTO=Simple\n";
    CHECK_THAT(problems(), Catch::Matches("nccl.env:[0-9]+: NCCL_PROTO is a debug-only setting.*\n"));
  }
  SECTION("a file removed") {
    fs::remove(dir.path / "tf_config/node1.json");
    CHECK(problems() == "tf_config/node1.json: missing (the bundle has one; write it again with ringlab plan -o)\n");
  }
  SECTION("a plan.json that does not load") {
    edit(dir.path / "plan.json", "\"first_rank\": 8", "\"first_rank\": 7");
    CHECK(problems() == "plan.json:/hosts/1/first_rank: first_rank 7 leaves a gap or overlap: expected 8 "
                        "(the ranks of the hosts before it)\n");
  }
}

TEST_CASE("bundle: check.sh passes on a log where NCCL followed the plan and fails on a misplaced rank") {
  const Topology t = test::two_dgx_cluster();
  TempDir dir("script");
  planner::write_bundle(t, test::reversed_plan(t), dir.path.string());
  const std::string script = "sh '" + (dir.path / "check.sh").string() + "' --log ";
  const std::string data = std::string(RINGLAB_SOURCE_DIR) + "/tests/data/plan/";

  const Run pass = run_shell(script + "'" + data + "nccl-pass.log'", "pass");
  CHECK(pass.status == 0);
  CHECK(pass.output == "PASS graph: NCCL loaded the graph file with 2 channels on all 2 hosts\n"
                       "PASS placement: all 16 ranks ran on their planned host and GPU\n"
                       "PASS ring: the 4 rings NCCL printed follow the plan\n");

  const Run wrong = run_shell(script + "'" + data + "nccl-wrong-host.log'", "wrong");
  CHECK(wrong.status == 1);
  CHECK_THAT(wrong.output, Catch::Contains("FAIL placement: rank 9 ran on host node1, planned node0\n"));

  // A ring NCCL built otherwise: channel 1 with ranks 3 and 2 swapped.
  const fs::path swapped = dir.path / "swapped-ring.log";
  {
    std::string log = read(data + "nccl-pass.log");
    const std::string from = "Channel 01/04 :  0  3  2  5", to = "Channel 01/04 :  0  2  3  5";
    REQUIRE(log.find(from) != std::string::npos);
    log.replace(log.find(from), from.size(), to);
    std::ofstream(swapped) << log;
  }
  const Run ring = run_shell(script + "'" + swapped.string() + "'", "ring");
  CHECK(ring.status == 1);
  CHECK_THAT(ring.output, Catch::Contains("PASS placement"));
  CHECK_THAT(ring.output, Catch::Contains("FAIL ring: channel 1: position 1 is rank 2, planned 3 (planned ring 0 3 2 5 4 7 6 9 "
                                          "8 11 10 13 12 15 14 1)\n"));

  const Run usage = run_shell(script + "'" + data + "no-such.log'", "usage");
  CHECK(usage.status == 2);

  const Run empty = run_shell(script + "/dev/null", "empty");
  CHECK(empty.status == 1);
  CHECK_THAT(empty.output, Catch::Contains("FAIL ring: no \"Channel CC/NN : ranks\" lines"));
}

TEST_CASE("bundle: check.sh runs a command with NCCL_DEBUG=INFO and checks its output") {
  const Topology t = test::two_dgx_cluster();
  TempDir dir("command");
  planner::write_bundle(t, test::reversed_plan(t), dir.path.string());
  const std::string log = (dir.path / "job.log").string();
  const std::string data = std::string(RINGLAB_SOURCE_DIR) + "/tests/data/plan/nccl-pass.log";
  // The "job" prints the NCCL settings it was given, then a log NCCL would have written.
  const Run r = run_shell("RINGLAB_CHECK_LOG='" + log + "' sh '" + (dir.path / "check.sh").string() +
                              "' sh -c 'echo \"$NCCL_DEBUG $NCCL_DEBUG_SUBSYS\"; cat \"$1\"' sh '" + data + "'",
                          "command");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("exited with status 0; its output is in " + log + "\n"
                                       "PASS graph:"));
  CHECK_THAT(read(log), Catch::StartsWith("INFO INIT,GRAPH,ENV\n"));
}

TEST_CASE("bundle: the scripts pass shellcheck when it is installed", "[shellcheck]") {
  if (std::system("command -v shellcheck > /dev/null 2>&1") != 0) {
    WARN("shellcheck not installed: skipped");
    return;
  }
  const Topology t = test::two_dgx_cluster();
  TempDir dir("shellcheck");
  planner::write_bundle(t, test::reversed_plan(t), dir.path.string());
  for (const char* script : {"check.sh", "srun.sh", "torchrun.sh", "nccl.env", "nccl-debug.env"}) {
    const Run r = run_shell("shellcheck -s sh -e SC1091 '" + (dir.path / script).string() + "'", "shellcheck");
    INFO(script << ":\n" << r.output);
    CHECK(r.status == 0);
  }
}
