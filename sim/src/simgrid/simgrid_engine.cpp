// SimGrid reference engine (simgrid_engine.hpp): a forked child runs the schedule on SimGrid's S4U API.
//
// The child has no actors. Everything is event driven from SimGrid's maestro: the schedule's ready
// ops start SimGrid activities (Comm::sendto for transfers, kernel timers for overheads, latencies and
// local ops), and Activity::on_completion / the timer callbacks complete ops, which makes their
// successors ready. The dependency bookkeeping mirrors simulator.cpp; all timing comes from SimGrid.
// Per-direction bytes follow SimGrid's own route for each pair (Host::route_to), mapped back to
// ringlab link directions by link name.
#include "ringlab/sim/simgrid_engine.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

#include "engine/engine_common.hpp"
#include "engine/explicit_dag.hpp"
#include "ringlab/topology/export.hpp"
#include "ringlab/topology/routing.hpp"

namespace ringlab::sim {
namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::timer::Timer;

constexpr const char* kUpSuffix = "_UP";      ///< SimGrid's name of a SPLITDUPLEX link's a->b half
constexpr const char* kDownSuffix = "_DOWN";  ///< ... and of its b->a half

/// SimGrid configuration of each model (option names and defaults verified against SimGrid 3.32:
/// network/model LV08, latency-factor 13.01, bandwidth-factor 0.97, weight-S 20537, crosstraffic
/// yes, TCP-gamma 4194304 bytes; see docs/simgrid.md).
std::vector<std::string> simgrid_arguments(SimgridModel model) {
  std::vector<std::string> args{"ringlab-simgrid", "--log=root.thresh:critical"};
  if (model == SimgridModel::Pure)
    for (const char* cfg : {"network/model:CM02", "network/latency-factor:0", "network/bandwidth-factor:1",
                            "network/weight-S:0", "network/crosstraffic:0", "network/TCP-gamma:0"})
      args.push_back(std::string("--cfg=") + cfg);
  return args;
}

std::int64_t now_ps() { return Duration::from_seconds(s4u::Engine::get_clock()).picoseconds(); }

// ---- Result transport over the pipe ---------------------------------------------------------------

class Writer {
 public:
  template <typename T> void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    buffer_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  template <typename T> void put_vector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(std::uint64_t(values.size()));
    buffer_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void put_string(const std::string& s) {
    put(std::uint64_t(s.size()));
    buffer_ += s;
  }
  const std::string& data() const { return buffer_; }

 private:
  std::string buffer_;
};

class Reader {
 public:
  explicit Reader(const std::string& data) : data_(data) {}
  template <typename T> T get() {
    T value;
    take(&value, sizeof value);
    return value;
  }
  template <typename T> std::vector<T> get_vector() {
    std::vector<T> values(get<std::uint64_t>());
    take(values.data(), values.size() * sizeof(T));
    return values;
  }
  std::string get_string() {
    std::string s(get<std::uint64_t>(), '\0');
    take(s.data(), s.size());
    return s;
  }

 private:
  void take(void* into, std::size_t n) {
    if (n > data_.size() - pos_) throw std::runtime_error("SimGrid engine: truncated result from the child process");
    if (n == 0) return;  // an empty vector's data() may be null, and memcpy from or to null is UB (UBSan)
    std::memcpy(into, data_.data() + pos_, n);
    pos_ += n;
  }
  const std::string& data_;
  std::size_t pos_ = 0;
};

enum class Status : std::uint8_t { Ok, Failed };

void put_result(Writer& w, const Result& r) {
  w.put(r.time);
  w.put_vector(r.directions);
  w.put_vector(r.bottlenecks);
  w.put_vector(r.critical_path);
  w.put_vector(r.timeline);
  w.put_vector(r.rank_finish);
  w.put(r.events);
  w.put(r.flows);
  w.put(r.rate_updates);
}

void get_result(Reader& r, Result& out) {
  out.time = r.get<Duration>();
  out.directions = r.get_vector<DirectionStats>();
  out.bottlenecks = r.get_vector<DirectionId>();
  out.critical_path = r.get_vector<std::uint64_t>();
  out.timeline = r.get_vector<OpSpan>();
  out.rank_finish = r.get_vector<Duration>();
  out.events = r.get<std::uint64_t>();
  out.flows = r.get<std::uint64_t>();
  out.rate_updates = r.get<std::uint64_t>();
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; nothing left to tell
    done += std::size_t(n);
  }
}

std::string read_all(int fd) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return data;
    data.append(buf, std::size_t(n));
  }
}

// ---- Routes ---------------------------------------------------------------------------------------

/// The route of every device pair the schedule's transfers use, on ringlab's Router with the flow
/// key of the pair's first transfer (throws when another channel of the same pair routes
/// differently), then the route back of every pair whose reverse no transfer uses: SimGrid's
/// crosstraffic (Default model) loads the route from destination to source with the acks.
std::vector<SimgridRoute> schedule_routes(const Topology& topology, const SimOptions& options,
                                          const Schedule& schedule) {
  const Router router(topology, options.ecmp, options.ecmp_seed);
  std::map<std::pair<DeviceId, DeviceId>, std::size_t> index;
  std::map<std::tuple<DeviceId, DeviceId, std::uint16_t>, bool> checked;
  std::vector<SimgridRoute> routes;
  std::vector<std::uint16_t> first_channel;
  for (const Op& op : schedule.ops()) {
    if (op.kind != OpKind::Send) continue;
    const DeviceId src = schedule.endpoints()[op.at].device;
    const DeviceId dst = schedule.endpoints()[op.peer].device;
    if (src == dst || !checked.emplace(std::tuple{src, dst, op.channel}, true).second) continue;
    detail::TransferRoute route = detail::transfer_route(router, options, src, dst, op.channel);
    if (!route.costs.empty())
      throw std::invalid_argument("SimGrid engine: transfers from " + topology.device(src).name + " to " +
                                  topology.device(dst).name +
                                  " take more than their bytes of some links' capacity (NCCL's PCIe overhead "
                                  "through an Intel CPU), which this engine's links cannot weigh; use the flow engine");
    if (route.max_rate.bits_per_second() > 0)
      throw std::invalid_argument("SimGrid engine: transfers from " + topology.device(src).name + " to " +
                                  topology.device(dst).name +
                                  " have a rate limit of their own (NCCL's socket transport's TCP streams), which "
                                  "this engine does not take per route; use the flow engine");
    std::vector<DirectionId> path = std::move(route.directions);
    const auto [it, inserted] = index.emplace(std::pair{src, dst}, routes.size());
    if (inserted) {
      routes.push_back(SimgridRoute{src, dst, std::move(path)});
      first_channel.push_back(op.channel);
      continue;
    }
    if (routes[it->second].directions != path)
      throw std::invalid_argument("SimGrid engine: transfers from " + topology.device(src).name + " to " +
                                  topology.device(dst).name +
                                  " take different ECMP paths on different channels, but SimGrid routes per host "
                                  "pair; use ECMP policy 'first' or a single channel");
  }
  const std::size_t used = routes.size();
  for (std::size_t i = 0; i < used; ++i) {
    const DeviceId src = routes[i].dst;
    const DeviceId dst = routes[i].src;
    if (index.count({src, dst})) continue;
    routes.push_back(
        SimgridRoute{src, dst, detail::transfer_route(router, options, src, dst, first_channel[i]).directions});
  }
  return routes;
}

// ---- The run inside the child ---------------------------------------------------------------------

/// One schedule on one SimGrid engine. Lives in the child process only.
class Run {
 public:
  Run(const Topology& topology, const SimOptions& options, SimgridModel model, const Schedule& schedule,
      const s4u::Engine& engine)
      : topology_(topology), options_(options), model_(model), schedule_(schedule), ops_(schedule.ops()),
        engine_(engine), dag_(schedule) {}

  Result execute();

 private:
  /// A device pair's route as SimGrid sees it.
  struct Path {
    s4u::Host* src = nullptr;
    s4u::Host* dst = nullptr;
    std::vector<DirectionId> directions;
    Duration latency;   ///< SimGrid's route latency (Host::route_to), calibrated
    Duration overhead;  ///< max over the links of the per-message overhead, calibrated
  };
  struct Flow {
    s4u::CommPtr comm;
    OpId send = kNoOp;
  };
  enum Tag : std::uint8_t { kDone, kFlowStart };

  DeviceId device_of(Endpoint e) const { return schedule_.endpoints()[e].device; }
  void map_links();
  void calibrate_links();
  const Path& path_of(const Op& send);
  void drain();
  void start(OpId id);
  void start_send(OpId send);
  void start_comm(OpId send);
  void complete(OpId id);
  void after(Duration delay, OpId id, Tag tag);
  void on_comm_done(const s4u::Activity& activity);
  Result collect() const;

  const Topology& topology_;
  const SimOptions& options_;
  SimgridModel model_;
  const Schedule& schedule_;
  std::span<const Op> ops_;
  const s4u::Engine& engine_;

  std::unordered_map<std::string, DirectionId> direction_of_link_;  ///< SimGrid link name -> link direction
  std::vector<Duration> overhead_;                                ///< per link direction, calibrated
  std::map<std::pair<DeviceId, DeviceId>, Path> paths_;

  detail::ExplicitDag dag_;  ///< the dependency walk the flow simulator uses too
  std::vector<std::int64_t> start_ps_, end_ps_;
  std::vector<OpId> ready_;
  std::size_t completed_ = 0;
  OpId last_completed_ = kNoOp;

  std::unordered_map<const s4u::Activity*, Flow> flows_;
  std::vector<s4u::CommPtr> finished_;  ///< released one callback later, never inside their own
  std::vector<double> direction_bytes_;
  std::vector<int> direction_active_;
  std::vector<std::int64_t> direction_since_, direction_busy_;
  std::uint64_t events_ = 0;
  std::uint64_t flows_started_ = 0;
};

void Run::map_links() {
  const std::vector<std::string> names = simgrid_link_names(topology_);
  for (LinkId l = 0; l < names.size(); ++l) {
    direction_of_link_[names[l] + kUpSuffix] = Topology::direction(l, false);
    direction_of_link_[names[l] + kDownSuffix] = Topology::direction(l, true);
  }
  overhead_.resize(topology_.direction_count());
  for (DirectionId c = 0; c < topology_.direction_count(); ++c) {
    const Link& link = topology_.link(Topology::direction_link(c));
    const LinkFactors f = options_.calibration.factors(link.kind, options_.protocol);
    overhead_[c] = detail::scaled(link.overhead, f.latency);
  }
}

/// Applies the calibration's per-family factors to the loaded platform (nothing to do when pure).
void Run::calibrate_links() {
  const std::vector<std::string> names = simgrid_link_names(topology_);
  for (LinkId l = 0; l < names.size(); ++l) {
    const Link& link = topology_.link(l);
    const LinkFactors f = options_.calibration.factors(link.kind, options_.protocol);
    if (f.bandwidth == 1.0 && f.latency == 1.0) continue;
    for (const char* half : {kUpSuffix, kDownSuffix}) {
      s4u::Link* sl = engine_.link_by_name(names[l] + half);
      sl->set_bandwidth(link.bandwidth.bytes_per_second() * f.bandwidth);
      sl->set_latency(detail::scaled(link.latency, f.latency).seconds());
    }
  }
}

const Run::Path& Run::path_of(const Op& send) {
  const DeviceId src = device_of(send.at);
  const DeviceId dst = device_of(send.peer);
  const auto [it, inserted] = paths_.try_emplace(std::pair{src, dst});
  Path& path = it->second;
  if (!inserted) return path;
  path.src = engine_.host_by_name(topology_.device(src).name);
  path.dst = engine_.host_by_name(topology_.device(dst).name);
  std::vector<s4u::Link*> links;
  double latency = 0;
  path.src->route_to(path.dst, links, &latency);
  for (const s4u::Link* link : links) {
    const auto found = direction_of_link_.find(link->get_name());
    if (found == direction_of_link_.end())
      throw std::logic_error("SimGrid engine: unknown link " + link->get_name() + " on a route");
    path.directions.push_back(found->second);
    path.overhead = std::max(path.overhead, overhead_[found->second]);
  }
  path.latency = Duration::from_seconds(latency);
  return path;
}

void Run::complete(OpId id) {
  end_ps_[id] = now_ps();
  last_completed_ = id;  // SimGrid's clock never runs backwards, so this ends as the last to finish
  ++completed_;
  dag_.for_each_ready_successor(id, [this](OpId next) { ready_.push_back(next); });
}

void Run::drain() {
  for (std::size_t i = 0; i < ready_.size(); ++i) start(ready_[i]);
  ready_.clear();
}

void Run::after(Duration delay, OpId id, Tag tag) {
  Timer::set(s4u::Engine::get_clock() + delay.seconds(), [this, id, tag] {
    ++events_;
    if (tag == kFlowStart) start_comm(id);
    else complete(id);
    drain();
  });
}

void Run::start(OpId id) {
  const Op& op = ops_[id];
  if (op.kind == OpKind::Recv) {  // its deps are done and its data has arrived
    complete(id);
    return;
  }
  start_ps_[id] = now_ps();
  if (op.kind == OpKind::Send) {
    start_send(id);
    return;
  }
  const Duration busy = detail::local_op_time(options_.calibration, topology_.device(device_of(op.at)), op);
  if (busy == Duration{}) complete(id);
  else after(busy, id, kDone);
}

void Run::start_send(OpId send) {
  const Op& op = ops_[send];
  if (device_of(op.at) == device_of(op.peer)) {  // same device: nothing crosses a link
    start_ps_[op.match] = now_ps();
    complete(send);
    return;
  }
  const Path& path = path_of(op);
  if (op.bytes.count() == 0) {  // as ringlab: overhead and latency, no flow
    start_ps_[op.match] = now_ps() + path.overhead.picoseconds();
    const Duration delay = path.overhead + path.latency;
    if (delay == Duration{}) complete(send);
    else after(delay, send, kDone);
    return;
  }
  if (path.overhead == Duration{}) start_comm(send);
  else after(path.overhead, send, kFlowStart);
}

void Run::start_comm(OpId send) {
  const Op& op = ops_[send];
  const Path& path = path_of(op);
  s4u::CommPtr comm = s4u::Comm::sendto_init(path.src, path.dst);
  comm->set_payload_size(std::uint64_t(op.bytes.count()));
  if (options_.max_flow_rate.bits_per_second() > 0) comm->set_rate(options_.max_flow_rate.bytes_per_second());
  comm->start();
  start_ps_[op.match] = now_ps();
  for (DirectionId c : path.directions)
    if (direction_active_[c]++ == 0) direction_since_[c] = now_ps();
  const s4u::Activity* key = comm.get();
  flows_.emplace(key, Flow{std::move(comm), send});
  ++flows_started_;
}

void Run::on_comm_done(const s4u::Activity& activity) {
  finished_.clear();  // the previous callbacks have returned; their comms may go now
  const auto found = flows_.find(&activity);
  if (found == flows_.end()) return;
  const OpId send = found->second.send;
  finished_.push_back(std::move(found->second.comm));
  flows_.erase(found);
  ++events_;
  const Op& op = ops_[send];
  const Path& path = path_of(op);
  for (DirectionId c : path.directions) {
    direction_bytes_[c] += double(op.bytes.count());
    if (--direction_active_[c] == 0) direction_busy_[c] += now_ps() - direction_since_[c];
  }
  // Pure: SimGrid moved the bytes with no latency phase; pay the route latency now, as ringlab does.
  // Default: SimGrid's LV08 already paid its (factored) latency before the bytes.
  if (model_ == SimgridModel::Pure && path.latency > Duration{}) after(path.latency, send, kDone);
  else complete(send);
  drain();
}

Result Run::execute() {
  map_links();
  calibrate_links();
  const std::size_t n = ops_.size();
  start_ps_.assign(n, 0);
  end_ps_.assign(n, 0);
  direction_bytes_.assign(topology_.direction_count(), 0.0);
  direction_active_.assign(topology_.direction_count(), 0);
  direction_since_.assign(topology_.direction_count(), 0);
  direction_busy_.assign(topology_.direction_count(), 0);
  s4u::Activity::on_completion_cb([this](const s4u::Activity& a) { on_comm_done(a); });
  dag_.for_each_initial([this](OpId id) { ready_.push_back(id); });
  drain();
  engine_.run();
  if (completed_ != n) throw std::logic_error("SimGrid engine: schedule did not complete (unsatisfiable dependencies)");
  return collect();
}

Result Run::collect() const {
  Result result;
  std::int64_t finish = 0;
  for (std::int64_t end : end_ps_) finish = std::max(finish, end);
  result.time = Duration{finish};
  result.rank_finish.assign(std::size_t(schedule_.rank_count()), Duration{});
  for (OpId id = 0; id < ops_.size(); ++id)
    if (ops_[id].at < result.rank_finish.size())
      result.rank_finish[ops_[id].at] = std::max(result.rank_finish[ops_[id].at], Duration{end_ps_[id]});
  for (DirectionId c = 0; c < topology_.direction_count(); ++c) {
    if (direction_bytes_[c] <= 0) continue;
    const Link& link = topology_.link(Topology::direction_link(c));
    const double factor = options_.calibration.factors(link.kind, options_.protocol).bandwidth;
    const double capacity_bytes = link.bandwidth.bytes_per_second() * factor * Duration{finish}.seconds();
    DirectionStats stats;
    stats.direction = c;
    stats.bytes = Bytes::from_double(direction_bytes_[c]);
    stats.busy = Duration{direction_busy_[c]};
    stats.utilisation = capacity_bytes > 0 ? std::min(1.0, direction_bytes_[c] / capacity_bytes) : 0.0;
    result.directions.push_back(stats);
  }
  result.bottlenecks = detail::rank_bottlenecks(result.directions, options_.bottleneck_count);
  for (OpId op = last_completed_; op != kNoOp; op = dag_.critical(op)) result.critical_path.push_back(op);
  std::reverse(result.critical_path.begin(), result.critical_path.end());
  if (options_.record_timeline)
    for (OpId id = 0; id < ops_.size(); ++id)
      result.timeline.push_back(OpSpan{id, Duration{start_ps_[id]}, Duration{end_ps_[id]}});
  result.events = events_;
  result.flows = flows_started_;
  return result;
}

/// The child process: runs the schedule on SimGrid and writes status and Result to `fd`. Never returns.
[[noreturn]] void run_child(int fd, const Topology& topology, const SimOptions& options, SimgridModel model,
                            const Schedule& schedule, const std::string& platform) {
  Writer w;
  try {
    std::vector<std::string> args = simgrid_arguments(model);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = int(args.size());
    s4u::Engine engine(&argc, argv.data());
    engine.load_platform(platform);
    Run run(topology, options, model, schedule, engine);
    const Result result = run.execute();
    w.put(Status::Ok);
    put_result(w, result);
  } catch (const std::exception& e) {
    w = Writer{};
    w.put(Status::Failed);
    w.put_string(e.what());
  }
  write_all(fd, w.data());
  ::close(fd);
  std::_Exit(0);  // skip the parent's atexit handlers and SimGrid's global teardown
}

/// A temporary platform file, removed when this goes out of scope.
class TempPlatform {
 public:
  TempPlatform(const Topology& topology, std::span<const SimgridRoute> routes) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ringlab-simgrid-XXXXXX.xml").string();
    const int fd = ::mkstemps(pattern.data(), 4);
    if (fd < 0) throw std::runtime_error("SimGrid engine: cannot create a temporary platform file: " + std::string(std::strerror(errno)));
    ::close(fd);
    path_ = pattern;
    std::ofstream out(path_);
    write_simgrid(out, topology, routes);
    if (!out) throw std::runtime_error("SimGrid engine: cannot write the platform file " + path_);
  }
  ~TempPlatform() { std::remove(path_.c_str()); }
  TempPlatform(const TempPlatform&) = delete;
  TempPlatform& operator=(const TempPlatform&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

SimgridSimulator::SimgridSimulator(const Topology& topology, SimOptions options, SimgridModel model)
    : topology_(topology), options_(std::move(options)), model_(model) {}

Result SimgridSimulator::run(const Schedule& schedule) const {
  if (options_.start_latency != Duration{} || !options_.link_latencies)
    throw std::invalid_argument(
        "the SimGrid engine times link latencies only; NCCL's latency model (--algo nccl) runs on the ringlab engine");
  const std::vector<SimgridRoute> routes = schedule_routes(topology_, options_, schedule);
  const TempPlatform platform(topology_, routes);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("SimGrid engine: pipe failed: " + std::string(std::strerror(errno)));
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("SimGrid engine: fork failed: " + std::string(std::strerror(errno)));
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], topology_, options_, model_, schedule, platform.path());
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  if (data.empty()) {
    const std::string why = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                                : "exited with status " + std::to_string(WEXITSTATUS(status));
    throw std::runtime_error("SimGrid engine: the simulation process " + why + " (SimGrid's message is on standard error)");
  }
  Reader reader(data);
  if (reader.get<Status>() == Status::Failed) throw std::runtime_error(reader.get_string());
  Result result;
  result.collective = schedule.collective();
  result.algorithm = schedule.algorithm();
  result.message = schedule.message();
  result.ranks = schedule.rank_count();
  get_result(reader, result);
  result.source.engine = "simgrid " + std::to_string(SIMGRID_VERSION_MAJOR) + "." +
                         std::to_string(SIMGRID_VERSION_MINOR) + " (" + std::string(to_string(model_)) + " model)";
  return result;
}

std::string SimgridEngine::name() const { return "simgrid (" + std::string(to_string(model_)) + " model)"; }

Result SimgridEngine::run(const Topology& topology, const SimOptions& options, const Schedule& schedule) const {
  return SimgridSimulator(topology, options, model_).run(schedule);
}

}  // namespace ringlab::sim

// The entry point run_collective's callers reach through dlopen() (load_simgrid_engine in cli/), so
// a program that also links Open MPI never has libsimgrid's MPI_* symbols in its global scope.
extern "C" ringlab::sim::TimingEngine* ringlab_simgrid_engine(int model) {
  return new ringlab::sim::SimgridEngine(ringlab::sim::SimgridModel(model));
}
