// nccl-tests' text and JSON outputs into measured Results (nccl_tests.hpp).
#include "ringlab/sim/nccl_tests.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "ringlab/sim/nccl_env.hpp"
#include "ringlab/sim/nccl_tuning.hpp"
#include "ringlab/sim/result_json.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::sim {
namespace {

/// "all_reduce_perf", "build/reduce_scatter_perf", "allreduce" -> the collective; nullopt otherwise.
std::optional<Collective> collective_of(std::string name) {
  if (const auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_perf") == 0) name.resize(name.size() - 5);
  std::string compact;
  for (char c : name)
    if (c != '_') compact += c;
  return find_collective(compact);
}

/// NCCL's version code (22803) as "2.28.3".
std::string nccl_version(long code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

struct Header {
  std::optional<Collective> collective;
  std::string engine = "nccl-tests";
  std::vector<std::string> hosts;  ///< per rank
  bool partial_listing = false;    ///< text: "# Rank" lines other than 0..n-1 (an excerpt of the list)
  int warmup = 0;      ///< JSON only (config)
  int iterations = 0;  ///< JSON only (config)
  int gpus_per_thread = 0;  ///< -g ("nGpus"; JSON "ngpus"), 0 when not given
  int graph_launches = 0;   ///< -G ("graph:"; JSON "graph"): calls captured in CUDA graphs, 0 when none
  /// Text: the columns of each half's "time" and "#wrong" (out of place, then in place), from the
  /// column header line, so vendor columns (cpu_time, ...) anywhere do not shift them.
  std::vector<std::size_t> time_columns{5, 9};
  std::vector<std::size_t> wrong_columns{8, 12};
  /// nccl-tests before 2.13 (2022-08) print each half's largest relative "error" where newer ones
  /// count "#wrong" elements (and a "root" column only for reduce and broadcast): the error is not
  /// a count, so such rows carry no #wrong.
  std::vector<std::size_t> error_columns;
};

/// Notes NCCL's release on the source once (the first of nccl-tests' "nccl-library=", NCCL's
/// "NCCL version 2.19.3+cuda12.2" line, printed bare or as an INFO line).
void note_nccl_version(Header& h, const std::string& version) {
  if (h.engine.find(", nccl ") == std::string::npos) h.engine += ", nccl " + version;
}

/// A count from the header (GPUs per thread, graph launches), clamped to [0, 2^20].
int small_count(long long n) { return int(std::clamp<long long>(n, 0, 1 << 20)); }

void read_header_line(const std::string& line, Header& h) {
  std::istringstream words(line.substr(1));
  std::vector<std::string> w;
  for (std::string s; words >> s;) w.push_back(s);
  if (w.empty()) return;
  if (w.size() >= 4 && w[0] == "Collective" && w[1] == "test" && w[2] == "starting:") h.collective = collective_of(w[3]);
  if (w[0] == "ringlab-validate:" && w.size() >= 2) {
    std::string name = w[1];
    if (!name.empty() && name.back() == ',') name.pop_back();
    h.collective = collective_of(name);
    if (const auto at = line.find("backend "); at != std::string::npos) {
      const auto end = line.find(", mode", at);
      h.engine = line.substr(at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
    }
  }
  if (w[0] == "nccl-tests" && w.size() >= 3 && w[1] == "version") {
    h.engine = "nccl-tests " + w[2];
    if (const auto at = line.find("nccl-library="); at != std::string::npos) {
      const long code = std::strtol(line.c_str() + at + 13, nullptr, 10);
      if (code > 0) note_nccl_version(h, nccl_version(code));
    }
  }
  if (w[0] == "NCCL" && w.size() >= 3 && w[1] == "version") note_nccl_version(h, w[2]);
  if (w[0] == "nThread") {
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i] == "nGpus") h.gpus_per_thread = small_count(std::strtoll(w[i + 1].c_str(), nullptr, 10));
      if (w[i] == "graph:") h.graph_launches = small_count(std::strtoll(w[i + 1].c_str(), nullptr, 10));
    }
  }
  if (w[0] == "size" && std::find(w.begin(), w.end(), "time") != w.end()) {
    h.time_columns.clear();
    h.wrong_columns.clear();
    h.error_columns.clear();
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i] == "time") h.time_columns.push_back(i);
      if (w[i] == "#wrong") h.wrong_columns.push_back(i);
      if (w[i] == "error") h.error_columns.push_back(i);
    }
  }
  if (w[0] == "Rank") {
    // Published logs often keep only some device lines ("Rank 71 ..." alone): such a list does not
    // give the rank count.
    if (w.size() < 2 || w[1] != std::to_string(h.hosts.size())) h.partial_listing = true;
    for (std::size_t i = 0; i + 1 < w.size(); ++i)
      if (w[i] == "on") {
        h.hosts.push_back(w[i + 1]);
        break;
      }
  }
}

ResultSource source_of(const Header& h) {
  ResultSource source{ResultKind::Measured, h.engine, {}};
  if (h.graph_launches == 0) source.gpus_per_thread = h.gpus_per_thread;
  if (h.partial_listing) return source;
  for (const std::string& host : h.hosts)
    if (std::find(source.hosts.begin(), source.hosts.end(), host) == source.hosts.end()) source.hosts.push_back(host);
  return source;
}

void read_json_header(const nlohmann::json& doc, Header& h) {
  if (doc.contains("args") && doc["args"].is_array() && !doc["args"].empty() && doc["args"][0].is_string())
    h.collective = collective_of(doc["args"][0].get<std::string>());
  if (doc.contains("nccl_version") && doc["nccl_version"].is_number_integer())
    h.engine = "nccl-tests, nccl " + nccl_version(doc["nccl_version"].get<long>());
  if (!doc.contains("config") || !doc["config"].is_object()) return;
  const auto& config = doc["config"];
  h.warmup = config.value("warmup_iters", 0);
  h.iterations = config.value("iterations", 0);
  if (config.contains("ngpus") && config["ngpus"].is_number_integer())
    h.gpus_per_thread = small_count(config["ngpus"].get<std::int64_t>());
  if (config.contains("graph") && config["graph"].is_number_integer())
    h.graph_launches = small_count(config["graph"].get<std::int64_t>());
  if (config.contains("devices") && config["devices"].is_array())
    for (const auto& d : config["devices"]) h.hosts.push_back(d.value("hostname", std::string("?")));
}

/// One result of nccl-tests' JSON; nullopt when it lacks the size or the half's time. Throws
/// nlohmann::json::exception for values of the wrong type.
std::optional<Result> read_json_row(const nlohmann::json& row, const Header& h, const char* half,
                                    const std::string& per_iter) {
  if (!row.is_object() || !row.contains("size") || !row["size"].is_number_integer() || row["size"].get<std::int64_t>() <= 0 ||
      !row.contains(half) || !row[half].is_object() || !row[half].contains("time") || !row[half]["time"].is_number() ||
      !(row[half]["time"].get<double>() >= 0))
    return std::nullopt;
  Result r;
  r.source = source_of(h);
  r.collective = h.collective.value_or(Collective::AllReduce);
  r.algorithm = "nccl";
  r.ranks = int(h.hosts.size());
  r.key.dtype = row.value("type", std::string("float"));
  r.message = Bytes{row["size"].get<std::int64_t>()};
  r.time = Duration::from_us(row[half]["time"].get<double>());
  if (row[half].contains("nwrong") && row[half]["nwrong"].is_number())
    r.wrong = std::int64_t(std::llround(row[half]["nwrong"].get<double>()));
  if (row.contains(per_iter) && row[per_iter].is_object()) {
    const auto& s = row[per_iter];
    const auto us = [&](const char* key) { return Duration::from_us(s.value(key, 0.0)); };
    r.iterations = IterationStats{h.iterations, h.warmup, us("min_us"), us("p50_us"), us("avg_us"), us("max_us"),
                                  us("p99_us")};
  }
  return r;
}

/// `line` without a launcher's prefix: "12: " (srun -l) or "[1,0]<stdout>:" / "[1,0]<stderr>:"
/// (Open MPI's --tag-output).
std::string_view without_launcher_prefix(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return line;
  if (line[i] == '[') {
    const auto close = line.find("]<std", i);
    const auto colon = close == std::string_view::npos ? close : line.find(">:", close);
    if (colon != std::string_view::npos) return line.substr(colon + 2);
    return line;
  }
  std::size_t j = i;
  while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
  if (j > i && j + 1 < line.size() && line[j] == ':' && line[j + 1] == ' ') return line.substr(j + 2);
  return line;
}

/// One call's algorithm as NCCL logs it at rank 0 under NCCL_DEBUG_SUBSYS=TUNING.
struct LoggedChoice {
  std::string func;        ///< "AllReduce", ...; empty in the old format, which names none
  std::int64_t bytes = 0;  ///< as NCCL counts them (see read_choice)
  bool per_rank = false;   ///< bytes per rank for AllGather and ReduceScatter (2.19 and later)
  std::string label;       ///< "nccl:tree/ll128"
  int channels = 0;        ///< Hi - Lo + 1 of channel{Lo..Hi} (2.19 and later); 0: not logged
};

/// The index (NCCL_ALGO_*, NCCL_PROTO_*) of `word` among `count` values named by `name`, or the
/// number `word` itself (the old format's indices); -1 if neither.
template <class Name>
int logged_index(const std::string& word, int count, Name name) {
  for (int i = 0; i < count; ++i)
    if (word == name(i)) return i;
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 2) return -1;
  const int i = std::stoi(word);
  return i < count ? i : -1;
}

/// What precedes the message of every NCCL INFO line (after NCCL's "host:pid:tid [device]" prefix).
constexpr std::string_view kNcclInfo = " NCCL INFO ";
/// NCCL's release line (init.cc showVersion), bare with NCCL_DEBUG=VERSION or after kNcclInfo.
constexpr std::string_view kNcclVersion = "NCCL version ";

/// The channels of "channel{Lo..Hi}={0..15}": Hi - Lo + 1; 0 for anything else.
int logged_channels(const std::string& word) {
  constexpr std::string_view kPrefix = "channel{Lo..Hi}={";
  if (word.rfind(kPrefix, 0) != 0 || word.back() != '}') return 0;
  const std::string range = word.substr(kPrefix.size(), word.size() - kPrefix.size() - 1);
  const auto dots = range.find("..");
  const std::string lo = range.substr(0, dots), hi = dots == std::string::npos ? "" : range.substr(dots + 2);
  const auto digits = [](const std::string& x) {
    return !x.empty() && x.size() <= 4 && x.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(lo) || !digits(hi) || std::stoi(hi) < std::stoi(lo)) return 0;
  return std::stoi(hi) - std::stoi(lo) + 1;
}

/// NCCL's per-call line, after kNcclInfo:
///   2.19 and later (src/enqueue.cc): "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}",
///     bytes = count x type size, so per rank for AllGather (sendcount) and ReduceScatter (recvcount);
///   2.12 to 2.18: "1048576 Bytes -> Algo 1 proto 2 time 35.800000", indices, bytes of the whole
///     collective (nBytes x nRanks for AllGather and ReduceScatter).
std::optional<LoggedChoice> read_choice(std::string_view message) {
  std::istringstream in{std::string(message)};
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  const bool named = !w.empty() && w[0].size() > 1 && w[0].back() == ':';
  const std::size_t at = named ? 1 : 0;  // the byte count
  if (w.size() < at + 7 || w[at + 1] != "Bytes" || w[at + 2] != "->" || w[at + 3] != "Algo" || w[at + 5] != "proto")
    return std::nullopt;
  if (w[at].find_first_not_of("0123456789") != std::string::npos || w[at].size() > 18) return std::nullopt;
  const int a = logged_index(w[at + 4], kNcclAlgorithmCount, [](int i) { return nccl_log_name(NcclAlgorithm(i)); });
  const int p = logged_index(w[at + 6], int(kNcclProtocolOrder.size()),
                             [](int i) { return nccl_log_name(kNcclProtocolOrder[std::size_t(i)]); });
  if (a < 0 || p < 0) return std::nullopt;
  LoggedChoice c;
  c.func = named ? w[0].substr(0, w[0].size() - 1) : "";
  c.bytes = std::stoll(w[at]);
  c.per_rank = named && (c.func == "AllGather" || c.func == "ReduceScatter");
  c.label = "nccl:" + std::string(to_string(NcclAlgorithm(a))) + "/" + std::string(to_string(kNcclProtocolOrder[std::size_t(p)]));
  c.channels = logged_channels(named && w.size() > at + 7 ? w[at + 7] : "");
  return c;
}

/// What NCCL logged for a row of `collective` of `message` bytes over `ranks` (0: unknown), or
/// nullptr when nothing was logged for it (the first logged line of a size wins).
const LoggedChoice* logged_choice(const std::vector<LoggedChoice>& choices, Collective collective, Bytes message,
                                  int ranks) {
  for (const LoggedChoice& c : choices) {
    if (!c.func.empty() && c.func != nccl_log_name(collective)) continue;
    const std::int64_t total = message.count();
    if (c.per_rank ? ranks > 0 && total % ranks == 0 && c.bytes == total / ranks : c.bytes == total) return &c;
  }
  return nullptr;
}

}  // namespace

std::vector<Result> read_nccl_tests_text(std::string_view text, const std::string& file, Placement placement,
                                         std::optional<Collective> collective) {
  ProblemList problems(file);
  Header h;
  struct Row {
    int line;
    std::vector<std::string> fields;
  };
  std::vector<Row> rows;
  std::vector<LoggedChoice> choices;
  std::istringstream in{std::string(text)};
  int number = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string line(without_launcher_prefix(raw));
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      read_header_line(line.substr(first), h);
      continue;
    }
    if (const auto at = line.find(kNcclVersion); at != std::string::npos) {
      std::istringstream rest(line.substr(at + kNcclVersion.size()));
      if (std::string version; rest >> version) note_nccl_version(h, version);
      continue;
    }
    if (const auto info = line.find(kNcclInfo); info != std::string::npos) {
      if (auto choice = read_choice(std::string_view(line).substr(info + kNcclInfo.size())))
        choices.push_back(std::move(*choice));
      continue;
    }
    std::istringstream words(line);
    Row row{number, {}};
    for (std::string s; words >> s;) row.fields.push_back(s);
    // Rows start with the size; anything else (NCCL INFO lines, warnings) is not a row.
    if (!row.fields.empty() && std::isdigit(static_cast<unsigned char>(row.fields[0][0]))) rows.push_back(row);
  }
  if (!h.collective) h.collective = collective;
  if (!h.collective)
    problems.add("", "cannot tell which collective ran: expected a '# Collective test starting: X_perf' line "
                     "(older nccl-tests print none: then say which, e.g. compare --collective allreduce)");
  if (rows.empty()) problems.add("", "no result rows (lines starting with a size)");
  problems.throw_if_any();

  const std::size_t half = placement == Placement::OutOfPlace ? 0 : 1;
  const bool counts_wrong = h.wrong_columns.size() >= 2;
  if (h.time_columns.size() < 2 || (!counts_wrong && h.error_columns.size() < 2)) {
    problems.add("", "the column header names fewer than two \"time\" and \"#wrong\" (or, before nccl-tests 2.13, "
                     "\"error\") columns (out of place, in place)");
    problems.throw_if_any();
  }
  const std::vector<std::size_t>& check_columns = counts_wrong ? h.wrong_columns : h.error_columns;
  const std::size_t time_column = h.time_columns[half];
  const std::size_t columns = std::max(h.time_columns.back(), check_columns.back()) + 1;
  std::vector<Result> results;
  for (const Row& row : rows) {
    const std::string where = "line " + std::to_string(row.line);
    if (row.fields.size() < columns) {
      problems.add(where, "expected " + std::to_string(columns) +
                              " columns (size count type redop root, then time algbw busbw #wrong twice; before nccl-tests "
                              "2.13 error for #wrong and no root outside reduce and broadcast), got " +
                              std::to_string(row.fields.size()));
      continue;
    }
    Result r;
    r.source = source_of(h);
    r.collective = *h.collective;
    r.ranks = h.partial_listing ? 0 : int(h.hosts.size());
    r.key.dtype = row.fields[2];
    try {
      r.message = Bytes{std::stoll(row.fields[0])};
      if (r.message.count() == 0) continue;  // a -b 0 row: nothing moves, nothing to predict
      const std::string& time = row.fields[time_column];
      if (time == "N/A") continue;  // this half did not run (ringlab-validate's schedule mode)
      r.time = Duration::from_us(std::stod(time));
      if (r.message.count() <= 0 || r.time < Duration{0}) throw std::invalid_argument("negative");
      if (counts_wrong && row.fields[h.wrong_columns[half]] != "N/A") r.wrong = std::stoll(row.fields[h.wrong_columns[half]]);
    } catch (const std::exception&) {
      problems.add(where, "expected numbers in the size, time and #wrong columns (a positive size, a time >= 0)");
      continue;
    }
    const LoggedChoice* logged = logged_choice(choices, r.collective, r.message, r.ranks);
    r.algorithm = logged ? logged->label : "nccl";
    if (logged) r.key.channels = logged->channels;
    results.push_back(std::move(r));
  }
  if (!h.hosts.empty() && results.empty()) problems.add("", "no row has a time in the chosen half of the table");
  problems.throw_if_any();
  return results;
}

std::vector<Result> read_nccl_tests_json(const nlohmann::json& doc, const std::string& file, Placement placement) {
  ProblemList problems(file);
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) {
    problems.add("", "expected nccl-tests JSON: an object with a \"results\" array");
    problems.throw_if_any();
  }
  Header h;
  try {
    read_json_header(doc, h);
  } catch (const nlohmann::json::exception& e) {
    problems.add("/config", std::string("unexpected value: ") + e.what());
  }
  if (!h.collective) problems.add("/args/0", "expected the program's name (all_reduce_perf, ...)");
  const char* half = placement == Placement::OutOfPlace ? "out_of_place" : "in_place";
  const std::string per_iter = std::string(half) + "_per_iter";
  std::vector<Result> results;
  const auto& rows = doc["results"];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string where = "/results/" + std::to_string(i);
    try {
      if (rows[i].is_object() && rows[i].value("size", std::int64_t{-1}) == 0) continue;  // a -b 0 row, as above
      if (auto r = read_json_row(rows[i], h, half, per_iter)) results.push_back(std::move(*r));
      else problems.add(where, std::string("expected an object with a positive integer \"size\" and \"") + half +
                                   "\": {\"time\": us >= 0}");
    } catch (const std::exception& e) {  // a value of the wrong type, or a time outside the clock's range
      problems.add(where, std::string("unexpected value: ") + e.what());
    }
  }
  problems.throw_if_any();
  return results;
}

std::size_t fill_unknown_ranks(std::vector<Result>& results, int ranks) {
  std::size_t filled = 0;
  for (Result& r : results)
    if (r.ranks <= 0) {
      r.ranks = ranks;
      ++filled;
    }
  return filled;
}

std::vector<Result> load_measurements(const std::string& path, Placement placement,
                                      std::optional<Collective> collective) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the measurement file");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  const auto first = content.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || content[first] != '{') return read_nccl_tests_text(content, path, placement, collective);
  const nlohmann::json doc = parse_json_text(content, path);
  if (doc.is_object() && doc.contains("schema")) return read_results_json(doc, path);
  return read_nccl_tests_json(doc, path, placement);
}

}  // namespace ringlab::sim
