// NCCL environment settings (nccl_env.hpp). Names and list syntax follow NCCL src/graph/tuning.cc
// (ncclAlgoStr, ncclProtoStr, parseList: v2.19, and v2.24's per-collective entries) and src/init.cc /
// src/transport.
#include "ringlab/sim/nccl_env.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <span>
#include <stdexcept>

#include "ringlab/topology/error.hpp"

namespace ringlab::sim {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// `s` split at every `sep`, empty parts kept ("2..3" -> {"2", "", "3"}).
std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (true) {
    const auto at = s.find(sep);
    out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

[[noreturn]] void bad(std::string_view name, std::string_view value, std::string_view expected) {
  throw std::invalid_argument(std::string(name) + "=" + std::string(value) + ": expected " + std::string(expected));
}

long integer(std::string_view name, std::string_view value, long lo, long hi) {
  long v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || end != value.data() + value.size() || v < lo || v > hi)
    bad(name, value, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

// NCCL's names (ncclAlgoStr), in NcclAlgorithm's order.
constexpr std::string_view kAlgoNames[] = {"TREE", "RING", "COLLNETDIRECT", "COLLNETCHAIN", "NVLS", "NVLSTREE", "PAT"};
static_assert(std::size(kAlgoNames) == kNcclAlgorithmCount);
constexpr std::string_view kAlgoList = "Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT";

/// parseList on one list: it enables what it names and disables the rest; "^list" disables what it
/// names and enables the rest (1, not NCCL's default 2: `NCCL_PROTO=^LL` forces LL128 on, as NCCL's
/// parseList sets every other entry to 1, v2.19-v2.28). `find` maps an upper-case name to its index,
/// -1 when unknown.
template <std::size_t N, typename Find>
std::array<NcclEnable, N> parse_list(std::string_view name, std::string_view value, std::string_view list,
                                     std::string_view expected, Find find) {
  const bool exclude = !list.empty() && list.front() == '^';
  std::vector<std::string> items = split(exclude ? list.substr(1) : list, ',');
  std::erase_if(items, [](const std::string& item) { return item.empty(); });  // NCCL's strtok skips them
  if (items.empty()) bad(name, value, "a comma-separated list of " + std::string(expected));
  std::array<NcclEnable, N> out;
  out.fill(exclude ? NcclEnable::On : NcclEnable::Off);
  for (const std::string& item : items) {
    const int index = find(upper(item));
    if (index < 0) bad(name, value, "names from " + std::string(expected) + " (unknown: " + item + ")");
    out[std::size_t(index)] = exclude ? NcclEnable::Off : NcclEnable::On;
  }
  return out;
}

constexpr long kMaxCtas = 64;  // MAXCHANNELS from v2.25.1 (src/include/device.h)

// ncclFuncStr (src/init.cc), in nccl_function() order; prefixed entries from v2.24.3 (tuning.cc parseList).
constexpr int kFunctionListsVersion = 22400;
constexpr std::string_view kFunctionNames[] = {"BROADCAST", "REDUCE", "ALLGATHER", "REDUCESCATTER", "ALLREDUCE"};
static_assert(std::size(kFunctionNames) == kNcclFunctionCount);

/// NCCL 2.24's parseList over "list;function:list;...": entries separated by ';', each with a
/// collective prefix but the first, which may have none and then applies to every collective.
template <std::size_t N, typename Find>
void parse_function_lists(std::string_view name, std::string_view value, std::array<NcclEnable, N>& all,
                          std::array<std::optional<std::array<NcclEnable, N>>, kNcclFunctionCount>& by_function,
                          std::string_view expected, Find find) {
  std::vector<std::string> entries = split(value, ';');
  std::erase_if(entries, [](const std::string& e) { return e.empty(); });
  if (entries.empty()) bad(name, value, "a comma-separated list of " + std::string(expected));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::vector<std::string> parts = split(entries[i], ':');
    if (parts.size() > 2) bad(name, value, "entries of the form function:list (" + entries[i] + ")");
    if (parts.size() == 1) {
      if (i > 0) bad(name, value, "a collective prefix on every entry but the first (" + entries[i] + ")");
      all = parse_list<N>(name, value, parts[0], expected, find);
      continue;
    }
    const auto* f = std::find(std::begin(kFunctionNames), std::end(kFunctionNames), upper(parts[0]));
    if (f == std::end(kFunctionNames))
      bad(name, value, "collective prefixes from Broadcast, Reduce, AllGather, ReduceScatter, AllReduce (unknown: " +
                           parts[0] + ")");
    by_function[std::size_t(f - std::begin(kFunctionNames))] = parse_list<N>(name, value, parts[1], expected, find);
  }
}

void set_algorithms(NcclEnv& env, std::string_view name, std::string_view value) {
  env.algorithms = NcclEnv{}.algorithms;  // a later setting of the variable replaces an earlier one
  env.function_algorithms = {};
  parse_function_lists(name, value, env.algorithms, env.function_algorithms, kAlgoList, [](const std::string& s) {
    for (std::size_t i = 0; i < std::size(kAlgoNames); ++i)
      if (kAlgoNames[i] == s) return int(i);
    return -1;
  });
}

void set_protocols(NcclEnv& env, std::string_view name, std::string_view value) {
  env.protocols = NcclEnv{}.protocols;
  env.function_protocols = {};
  parse_function_lists(name, value, env.protocols, env.function_protocols, "LL, LL128, Simple", [](const std::string& s) {
    if (s == "SIMPLE") return int(Protocol::Simple);
    if (s == "LL128") return int(Protocol::LL128);
    if (s == "LL") return int(Protocol::LL);
    return -1;
  });
  const auto none = [](const NcclProtocolSet& set) {
    return std::all_of(set.begin(), set.end(), [](NcclEnable e) { return e == NcclEnable::Off; });
  };
  bool any_none = none(env.protocols);
  for (const auto& f : env.function_protocols) any_none = any_none || (f && none(*f));
  if (any_none) bad(name, value, "at least one protocol enabled for every collective");
}

/// The newest release whose tuning.cc and search.cc tables ringlab's were checked against (tag v2.30.7-1).
constexpr int kNewestCheckedVersion = 23007;

/// "2.20.3" or "2.20" -> 22003 / 22000 (NCCL_VERSION_CODE: major x 10000 + minor x 100 + patch).
std::string set_version(NcclEnv& env, std::string_view name, std::string_view value) {
  std::vector<int> parts;
  for (const std::string& part : split(value, '.')) {
    int v = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc{} || end != part.data() + part.size() || v < 0 || v > 99) parts.clear();
    else parts.push_back(v);
    if (parts.empty()) break;
  }
  if (parts.size() < 2 || parts.size() > 3 || parts[0] != 2) bad(name, value, "an NCCL release such as 2.20.3 or 2.27");
  env.version = parts[0] * 10000 + parts[1] * 100 + (parts.size() == 3 ? parts[2] : 0);
  if (env.version < 21801)
    return "version " + std::string(value) + ": ringlab has NCCL's tuning tables from 2.18.1 on; using 2.18.1's";
  if (env.version > kNewestCheckedVersion)
    return "version " + std::string(value) + ": ringlab has NCCL's tuning tables up to 2.30.7; using those";
  return "";
}

// Variables that do not change what the model predicts: logging, sockets, timeouts, launch.
// (NCCL_DEBUG and NCCL_DEBUG_SUBSYS have their own entry: they can ask for NCCL's tuning log.)
constexpr std::string_view kNoEffect[] = {
    "NCCL_SOCKET_IFNAME", "NCCL_IB_TIMEOUT",      "NCCL_IB_RETRY_CNT",     "NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_LAUNCH_MODE",   "NCCL_IB_GID_INDEX",    "NCCL_IB_SL",            "NCCL_IB_TC",
    "NCCL_COMM_ID",       "NCCL_CHECKS_DISABLE",  "NCCL_CHECK_POINTERS"};

// NCCL_DEBUG levels (src/include/nccl_common.h ncclDebugLogLevel) and the subsystem names
// NCCL_DEBUG_SUBSYS takes (src/debug.cc ncclDebugInit), as of 2.26.
constexpr std::string_view kDebugLevels[] = {"VERSION", "WARN", "INFO", "ABORT", "TRACE"};
constexpr std::size_t kDebugInfoLevel = 2;  // INFO; ABORT and TRACE log INFO lines too
constexpr std::string_view kDebugSubsystems[] = {"INIT", "COLL",  "P2P",  "SHM",   "NET",  "GRAPH",     "TUNING",
                                                 "ENV",  "ALLOC", "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG",
                                                 "PROFILE", "RAS", "ALL"};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

/// The parts of NCCL's debug settings ringlab acts on: the level and whether TUNING is logged.
struct DebugState {
  int level = -1;       ///< index in kDebugLevels; -1: NCCL_DEBUG unset (no log)
  bool tuning = false;  ///< TUNING in the mask (not in NCCL's default INIT,BOOTSTRAP,ENV)
};

DebugState debug_state(const NcclEnv& env) {
  DebugState d;
  for (const std::string& setting : env.settings) {
    const auto [name, value] = split_nccl_setting(setting);
    if (name == "NCCL_DEBUG") {
      d.level = -1;
      for (std::size_t i = 0; i < std::size(kDebugLevels); ++i)
        if (equal_ignoring_case(value, kDebugLevels[i])) d.level = int(i);
    }
    if (name != "NCCL_DEBUG_SUBSYS") continue;
    std::string_view list = value;
    const bool invert = !list.empty() && list.front() == '^';
    if (invert) list.remove_prefix(1);
    bool named = false;
    for (const std::string& item : split(list, ','))
      named = named || equal_ignoring_case(item, "TUNING") || equal_ignoring_case(item, "ALL");
    d.tuning = named != invert;
  }
  return d;
}

/// NCCL_DEBUG or NCCL_DEBUG_SUBSYS (already appended to env.settings): recomputes debug_tuning from
/// every debug setting so far, later ones over earlier ones as NCCL reads its environment once.
std::string set_debug(NcclEnv& env, std::string_view name, std::string_view value) {
  const auto known = [](std::string_view word, std::span<const std::string_view> names) {
    return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return equal_ignoring_case(word, n); });
  };
  if (name == "NCCL_DEBUG" && !known(value, kDebugLevels)) bad(name, value, "VERSION, WARN, INFO, ABORT or TRACE");
  std::string warning;
  if (name == "NCCL_DEBUG_SUBSYS") {
    std::string_view list = value;
    if (!list.empty() && list.front() == '^') list.remove_prefix(1);
    for (const std::string& item : split(list, ','))
      if (!known(item, kDebugSubsystems))
        warning += (warning.empty() ? std::string(name) + ": " : std::string(", ")) + "'" + item +
                   "' is no NCCL subsystem (NCCL ignores it)";
  }
  const DebugState d = debug_state(env);
  env.debug_tuning = d.level >= int(kDebugInfoLevel) && d.tuning;
  return warning;
}

/// NCCL_IB_HCA's value (see NicFilter): "[^][=]prefix[:port][,prefix[:port]...]".
NicFilter parse_nic_filter(std::string_view name, std::string_view value) {
  NicFilter f;
  f.text = std::string(value);
  if (!value.empty() && value.front() == '^') {
    f.exclude = true;
    value.remove_prefix(1);
  }
  if (!value.empty() && value.front() == '=') {
    f.exact = true;
    value.remove_prefix(1);
  }
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    const std::size_t colon = item.find(':');
    NicFilter::Entry e;
    e.prefix = std::string(item.substr(0, colon));
    if (e.prefix.empty()) continue;  // NCCL skips empty items
    if (colon != std::string_view::npos) {
      const std::string_view port = item.substr(colon + 1);
      int p = 0;
      const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
      if (ec != std::errc{} || end != port.data() + port.size() || p < 0)
        bad(name, f.text, "NIC name prefixes with an optional :port, e.g. mlx5_0:1,mlx5_1 or ^mlx5_2");
      e.port = p;
    }
    f.entries.push_back(std::move(e));
  }
  if (f.entries.empty()) bad(name, f.text, "at least one NIC name prefix, e.g. mlx5_0:1,mlx5_1 or ^mlx5_2");
  return f;
}


// topoPathTypeStr (src/graph/topo.cc) in NcclPath order, and ncclGetLevel's old numbering
// (levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS).
constexpr std::string_view kPathNames[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};
constexpr NcclPath kOldLevels[] = {NcclPath::Loc, NcclPath::Pix, NcclPath::Pxb, NcclPath::Phb, NcclPath::Sys};

/// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL as ncclGetLevel reads them: a path name (exact, upper case) or
/// an old-style number (a leading digit; numbers above 4 mean SYS).
NcclPath path_level(std::string_view name, std::string_view value) {
  for (std::size_t i = 0; i < std::size(kPathNames); ++i)
    if (value == kPathNames[i]) return NcclPath(i);
  if (!value.empty() && std::isdigit(static_cast<unsigned char>(value.front()))) {
    long old = 0;
    std::from_chars(value.data(), value.data() + value.size(), old);
    return kOldLevels[std::size_t(std::min<long>(old, long(std::size(kOldLevels)) - 1))];
  }
  bad(name, value, "a path type (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS) or a level 0-5");
}

}  // namespace

bool NicFilter::selects(std::string_view device_name) const {
  if (entries.empty()) return true;
  const std::size_t slash = device_name.rfind('/');
  const std::string_view nic = slash == std::string_view::npos ? device_name : device_name.substr(slash + 1);
  constexpr int kPort = 1;  // ringlab's NICs have one port
  bool match = false;
  for (const Entry& e : entries) {
    const bool name = exact ? nic == e.prefix : nic.substr(0, e.prefix.size()) == e.prefix;
    if (name && (e.port == -1 || e.port == kPort)) match = true;
  }
  return match != exclude;
}

std::string_view to_string(NcclPath p) { return kPathNames[std::size_t(p)]; }

int nccl_function(Collective c) {
  switch (c) {
    case Collective::Broadcast: return 0;
    case Collective::Reduce: return 1;
    case Collective::AllGather: return 2;
    case Collective::ReduceScatter: return 3;
    case Collective::AllReduce: return 4;
  }
  return 4;
}

const NcclAlgorithmSet& NcclEnv::algorithms_for(Collective c) const {
  const auto& own = function_algorithms[std::size_t(nccl_function(c))];
  return own ? *own : algorithms;
}

const NcclProtocolSet& NcclEnv::protocols_for(Collective c) const {
  const auto& own = function_protocols[std::size_t(nccl_function(c))];
  return own ? *own : protocols;
}

std::string_view to_string(NcclAlgorithm a) {
  constexpr std::string_view kNames[] = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
  return kNames[std::size_t(a)];
}

std::string_view nccl_log_name(NcclAlgorithm a) {
  constexpr std::string_view kNames[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
  return kNames[std::size_t(a)];
}

std::string_view nccl_log_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "SIMPLE";
  }
  return "SIMPLE";
}

int nccl_socket_streams(const NcclEnv& env, SocketNicVendor vendor) {
  constexpr int kMaxSockets = 64;  // MAX_SOCKETS (net_socket.cc)
  // autoNt and autoNs (ncclNetSocketGetNsockNthread): AWS 2 and 8, GCP 4 and 1, otherwise 0 and 1.
  const int auto_threads = vendor == SocketNicVendor::Aws ? 2 : vendor == SocketNicVendor::Gcp ? 4 : 0;
  const int auto_per_thread = vendor == SocketNicVendor::Aws ? 8 : 1;
  const int threads = env.socket_threads == -2 ? auto_threads : env.socket_threads;
  int per_thread = env.socks_per_thread == -2 ? auto_per_thread : env.socks_per_thread;
  if (threads > 0 && threads * per_thread > kMaxSockets) per_thread = kMaxSockets / threads;
  return std::max(1, threads * per_thread);
}

std::pair<std::string, std::string> split_nccl_setting(std::string_view setting) {
  const auto eq = setting.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw std::invalid_argument("'" + std::string(setting) + "': expected NAME=VALUE, e.g. NCCL_ALGO=Ring");
  return {std::string(setting.substr(0, eq)), std::string(setting.substr(eq + 1))};
}

std::string set_nccl_env(NcclEnv& env, std::string_view name, std::string_view value) {
  env.settings.push_back(std::string(name) + "=" + std::string(value));
  if (name == "version") return set_version(env, name, value);
  if (name == "NCCL_ALGO") return set_algorithms(env, name, value), "";
  if (name == "NCCL_PROTO") return set_protocols(env, name, value), "";
  if (name == "NCCL_MIN_NCHANNELS") return env.min_channels = int(integer(name, value, 1, 32)), "";
  if (name == "NCCL_MAX_NCHANNELS") return env.max_channels = int(integer(name, value, 1, 32)), "";
  if (name == "NCCL_NCHANNELS") {  // as MIN and MAX together
    env.min_channels = env.max_channels = int(integer(name, value, 1, 32));
    return std::string(name) + ": NCCL itself does not read it (2.19-2.28 read NCCL_MIN_NCHANNELS and "
                               "NCCL_MAX_NCHANNELS); ringlab takes it as both, so set those on the real run";
  }
  // init.cc parseCommConfig: values past MAXCHANNELS are capped to it (the model caps at its own).
  if (name == "NCCL_MIN_CTAS") return env.min_ctas = int(integer(name, value, 1, kMaxCtas)), "";
  if (name == "NCCL_MAX_CTAS") return env.max_ctas = int(integer(name, value, 1, kMaxCtas)), "";
  if (name == "NCCL_NVLS_ENABLE") return env.nvls = integer(name, value, 0, 2) != 0, "";
  if (name == "NCCL_COLLNET_ENABLE") return env.collnet = integer(name, value, 0, 1) != 0, "";
  if (name == "NCCL_BUFFSIZE") {
    // NCCL reads a byte count; ringlab also takes a unit string. NCCL_STEPS = 8 steps per buffer.
    Bytes b;
    try {
      b = parse_bytes(value, true);  // NCCL reads a bare byte count
    } catch (const std::exception&) {
      bad(name, value, "a buffer size in bytes (e.g. 4194304 or 4MiB)");
    }
    if (b.count() < 8 * 1024 || b.count() % 8 != 0) bad(name, value, "at least 8 KiB, a multiple of 8 bytes");
    env.buffer = b;
    return "";
  }
  if (name == "NCCL_CROSS_NIC") return env.cross_nic = int(integer(name, value, 0, 2)), "";
  if (name == "NCCL_P2P_DISABLE") {
    // ncclGetLevel: 1 means PATH_LOC (no P2P at all, NVLink included) and overrides NCCL_P2P_LEVEL;
    // any other value leaves NCCL_P2P_LEVEL (or the default) in force.
    return env.p2p = integer(name, value, 0, 1) == 0, "";
  }
  if (name == "NCCL_P2P_LEVEL") return env.p2p_level = path_level(name, value), "";
  if (name == "NCCL_SHM_DISABLE") return env.shm = integer(name, value, 0, 1) == 0, "";
  if (name == "NCCL_IB_DISABLE") return env.ib = integer(name, value, 0, 1) == 0, "";
  if (name == "NCCL_NET_GDR_LEVEL") return env.gdr_level = path_level(name, value), "";
  if (name == "NCCL_PXN_DISABLE") return env.pxn = integer(name, value, 0, 1) == 0, "";
  if (name == "NCCL_NET_GDR_READ") return env.gdr_read = int(integer(name, value, 0, 1)), "";
  if (name == "NCCL_IB_HCA") return env.ib_hca = parse_nic_filter(name, value), "";
  if (name == "NCCL_PAT_ENABLE") return env.pat = NcclEnable(integer(name, value, 0, 2)), "";
  if (name == "NCCL_MNNVL_ENABLE") return env.mnnvl = NcclEnable(integer(name, value, 0, 2)), "";
  if (name == "NCCL_DEBUG" || name == "NCCL_DEBUG_SUBSYS") return set_debug(env, name, value);
  if (name == "NCCL_DEBUG_FILE") return std::string(name) + ": ringlab prints NCCL's log lines to standard error";
  // MAX_THREADS 16 (net_socket.cc; NCCL trims a larger count with a warning); MAX_SOCKETS 64.
  if (name == "NCCL_SOCKET_NTHREADS") return env.socket_threads = int(integer(name, value, 0, 16)), "";
  if (name == "NCCL_NSOCKS_PERTHREAD") return env.socks_per_thread = int(integer(name, value, 0, 64)), "";
  if (name.substr(0, 5) != "NCCL_")
    throw std::invalid_argument("'" + std::string(name) + "': not an NCCL environment variable");
  if (std::find(std::begin(kNoEffect), std::end(kNoEffect), name) != std::end(kNoEffect)) return "";
  return std::string(name) + ": not modelled by ringlab; ignored";
}

namespace {

void apply(NcclEnv& env, const std::string& name, const std::string& value, const std::string& file,
           const std::string& where, std::vector<std::string>& warnings) {
  try {
    std::string warning = set_nccl_env(env, name, value);
    if (!warning.empty()) warnings.push_back(std::move(warning));
  } catch (const std::invalid_argument& e) {
    throw InputError(file, where, e.what());
  }
}

}  // namespace

NcclEnv nccl_env_from(const nlohmann::json& section, const std::string& file, const std::vector<std::string>& settings,
                      std::vector<std::string>& warnings) {
  NcclEnv env;
  for (const auto& [name, value] : section.items()) {
    const std::string path = "/nccl/" + name;
    std::string text;
    if (value.is_string()) text = value.get<std::string>();
    else if (value.is_number_integer()) text = std::to_string(value.get<long long>());
    else throw InputError(file, path, "expected a string or an integer, as the environment variable's value");
    apply(env, name, text, file, path, warnings);
  }
  for (const std::string& setting : settings) {
    std::pair<std::string, std::string> nv;
    try {
      nv = split_nccl_setting(setting);
    } catch (const std::invalid_argument& e) {
      throw InputError("", "--nccl-env", e.what());
    }
    apply(env, nv.first, nv.second, "", "--nccl-env", warnings);
  }
  const auto named = [](const auto& by_function) {
    return std::any_of(by_function.begin(), by_function.end(), [](const auto& f) { return f.has_value(); });
  };
  if (env.version > 0 && env.version < kFunctionListsVersion && (named(env.function_algorithms) || named(env.function_protocols)))
    warnings.push_back("NCCL_ALGO/NCCL_PROTO: per-collective entries (collective:list) arrived in NCCL 2.24; version " +
                       std::to_string(env.version / 10000) + "." + std::to_string(env.version / 100 % 100) +
                       " would not read them, ringlab applies them as 2.24 does");
  return env;
}

}  // namespace ringlab::sim
