// RankOrder sources (declaration order, scenario JSON, text and JSON files) resolved against a
// Topology; the formats are described in rank_order.hpp.
#include "ringlab/sim/rank_order.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ringlab/sim/result.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/suggest.hpp"
#include "ringlab/topology/scenario.hpp"

namespace ringlab::sim {
namespace {

/// " (did you mean 'node1/gpu3'?)" when a GPU or host name is near `typed`, "" otherwise.
std::string nearest_gpu_or_host(const Topology& topology, const std::string& typed) {
  std::vector<std::string> names;
  for (const DeviceId g : topology.gpus()) names.push_back(topology.device(g).name);
  for (const Host& h : topology.hosts()) names.push_back(h.name);
  if (auto near = nearest_name(typed, names)) return " (did you mean '" + *near + "'?)";
  return "";
}

/// One entry of an order as written: a GPU or host name, an explicit GPU count for hosts
/// ("slots=N", "host:N"), and where it was written ("line 3" or a JSON pointer).
struct Entry {
  std::string name;
  std::optional<int> slots;
  std::string location;
};

std::vector<DeviceId> host_gpus(const Topology& topology, HostId host) {
  std::vector<DeviceId> gpus;
  for (DeviceId d : topology.host_devices(host))
    if (topology.device(d).kind == DeviceKind::Gpu) gpus.push_back(d);
  std::stable_sort(gpus.begin(), gpus.end(), [&](DeviceId a, DeviceId b) {
    return topology.device(a).local_index < topology.device(b).local_index;
  });
  return gpus;
}

/// Resolves entries into GPUs, reporting unknown names, repeated GPUs and exhausted hosts to
/// `problems` (a ProblemList or a JsonReader: anything with add(location, message)).
template <typename Problems>
std::vector<DeviceId> resolve(const Topology& topology, const std::vector<Entry>& entries, Problems& problems) {
  std::map<std::string, int, std::less<>> bare_uses;  // host name -> lines naming it without a count
  for (const Entry& e : entries)
    if (!e.slots && topology.find_host(e.name)) ++bare_uses[e.name];
  std::map<HostId, std::size_t> next;                  // host -> its next unused GPU
  std::map<DeviceId, std::pair<int, std::string>> seen;  // GPU -> (rank, location)
  std::vector<DeviceId> ranks;
  auto take = [&](DeviceId gpu, const Entry& e) {
    const auto [it, fresh] = seen.emplace(gpu, std::pair{int(ranks.size()), e.location});
    if (!fresh) {
      problems.add(e.location, "GPU " + topology.device(gpu).name + " is already rank " +
                                   std::to_string(it->second.first) + " (" + it->second.second + ")");
      return;
    }
    ranks.push_back(gpu);
  };
  for (const Entry& e : entries) {
    if (const auto device = topology.find_device(e.name); device && topology.device(*device).kind == DeviceKind::Gpu) {
      if (e.slots) problems.add(e.location, "a GPU name takes no slot count: " + e.name);
      take(*device, e);
      continue;
    }
    const auto host = topology.find_host(e.name);
    if (!host) {
      problems.add(e.location, "unknown GPU or host '" + e.name + "'" + nearest_gpu_or_host(topology, e.name) +
                                   ": expected a GPU name such as " +
                                   (topology.gpus().empty() ? std::string("host/gpu0")
                                                            : topology.device(topology.gpus().front()).name) +
                                   " or a host name");
      continue;
    }
    const std::vector<DeviceId> gpus = host_gpus(topology, *host);
    const std::size_t want = e.slots ? std::size_t(*e.slots) : bare_uses.find(e.name)->second == 1 ? gpus.size() : 1;
    std::size_t& cursor = next[*host];
    if (cursor + want > gpus.size()) {
      problems.add(e.location, "host " + e.name + " has " + std::to_string(gpus.size()) + " GPUs; " +
                                   std::to_string(cursor + want) + " are asked of it by this line and the ones before");
      cursor = gpus.size();
      continue;
    }
    for (std::size_t i = 0; i < want; ++i) take(gpus[cursor + i], e);
    cursor += want;
  }
  return ranks;
}

/// Checks that the order names as many GPUs as the run needs (count 0: all of the cluster's).
template <typename Problems>
void check_count(const Topology& topology, std::size_t named, int count, const std::string& location,
                 Problems& problems) {
  const std::size_t all = topology.gpus().size();
  const std::size_t want = count == 0 ? all : std::size_t(count);
  if (named == want) return;
  std::string message = "the order names " + std::to_string(named) + " GPUs; the run needs " + std::to_string(want);
  message += count == 0 ? " (every GPU of the cluster; set the rank count to " + std::to_string(named) +
                              " to run on a subset)"
                        : " (the rank count asked for)";
  problems.add(location, message);
}

std::optional<int> parse_count(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

/// Splits one text line (comment removed) into entries; records malformed tokens.
void parse_line(std::string_view line, const std::string& location, std::vector<Entry>& out, ProblemList& problems) {
  std::istringstream words{std::string(line)};
  std::string first;
  if (!(words >> first)) return;
  std::vector<Entry> names;
  for (std::size_t start = 0; start <= first.size();) {
    const std::size_t comma = std::min(first.find(',', start), first.size());
    std::string item = first.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    Entry e{item, std::nullopt, location};
    if (const std::size_t colon = item.rfind(':'); colon != std::string::npos) {  // MPICH "host:N"
      e.name = item.substr(0, colon);
      e.slots = parse_count(std::string_view(item).substr(colon + 1));
      if (!e.slots) problems.add(location, "expected a positive count after ':' in '" + item + "'");
    }
    names.push_back(std::move(e));
  }
  for (std::string word; words >> word;) {
    if (word.rfind("slots=", 0) == 0) {  // Open MPI / DeepSpeed "host slots=N"
      const auto slots = parse_count(std::string_view(word).substr(6));
      if (!slots || names.size() != 1) {
        problems.add(location, "expected 'HOST slots=N' with a positive N, got '" + std::string(line) + "'");
        continue;
      }
      names.front().slots = slots;
    } else if (word.find('=') == std::string::npos) {
      problems.add(location, "unexpected '" + word + "': expected one GPU or host name per line (optionally slots=N)");
    }  // other KEY=VALUE settings of hostfiles (max_slots=...) do not change the order
  }
  for (Entry& e : names) out.push_back(std::move(e));
}

/// Reads "channel_rings": each ring a permutation of 0..p-1 given as rank indices or GPU names.
std::vector<std::vector<int>> read_rings(const Topology& topology, JsonReader& reader, const JsonNode& node,
                                         const std::vector<DeviceId>& ranks) {
  std::vector<std::vector<int>> rings;
  if (!reader.expect_array(node)) return rings;
  std::map<DeviceId, int> rank_of;
  for (std::size_t r = 0; r < ranks.size(); ++r) rank_of.emplace(ranks[r], int(r));
  const int p = int(ranks.size());
  for (const JsonNode& ring_node : reader.elements(node)) {
    if (!reader.expect_array(ring_node)) continue;
    std::vector<int> ring;
    std::vector<bool> used(std::size_t(p), false);
    for (const JsonNode& item : reader.elements(ring_node)) {
      std::optional<int> rank;
      if (item->is_string()) {
        const auto device = topology.find_device(item->get<std::string>());
        if (device && rank_of.count(*device)) rank = rank_of[*device];
        else reader.add(item.path, "'" + item->get<std::string>() + "' is not a GPU of this order");
      } else if (const auto index = reader.integer(item, 0, std::max(0, p - 1))) {
        rank = int(*index);
      }
      if (!rank) continue;
      if (used[std::size_t(*rank)]) reader.add(item.path, "rank " + std::to_string(*rank) + " appears twice in this ring");
      used[std::size_t(*rank)] = true;
      ring.push_back(*rank);
    }
    if (int(ring.size()) != p && std::count(used.begin(), used.end(), true) == std::ptrdiff_t(ring.size()))
      reader.add(ring_node.path, "a ring must hold each of the " + std::to_string(p) + " ranks once; it has " +
                                     std::to_string(ring.size()));
    rings.push_back(std::move(ring));
  }
  if (rings.empty()) reader.add(node.path, "expected at least one ring");
  return rings;
}

std::vector<Entry> json_entries(JsonReader& reader, const JsonNode& array) {
  std::vector<Entry> entries;
  if (!reader.expect_array(array)) return entries;
  for (const JsonNode& item : reader.elements(array))
    if (auto name = reader.string(item, "a GPU or host name")) entries.push_back(Entry{*name, std::nullopt, item.path});
  return entries;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the rank-order file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string RankOrder::digest(const Topology& topology) const {
  std::string text = "ringlab.rank_order\n";
  for (DeviceId d : ranks) text += topology.device(d).name + "\n";
  for (const auto& ring : channel_rings) {
    text += "ring\n";
    for (int r : ring) text += std::to_string(r) + "\n";
  }
  return digest_hex(text);
}

nlohmann::json RankOrder::to_json(const Topology& topology) const {
  nlohmann::json names = nlohmann::json::array();
  for (DeviceId d : ranks) names.push_back(topology.device(d).name);
  if (!per_channel()) return names;
  return nlohmann::json{{"ranks", std::move(names)}, {"channel_rings", channel_rings}};
}

RankOrder declaration_order(const Topology& topology, int count) {
  RankOrder order;
  order.ranks = topology.gpus();
  if (count > 0 && std::size_t(count) < order.ranks.size()) order.ranks.resize(std::size_t(count));
  return order;
}

std::optional<RankOrder> read_rank_order(const Topology& topology, JsonReader& reader, const JsonNode& node,
                                         int count, const std::string& scenario_file) {
  const std::size_t before = reader.problem_count();
  if (node->is_string()) {
    std::filesystem::path file = node->get<std::string>();
    if (file.is_relative() && !scenario_file.empty()) file = std::filesystem::path(scenario_file).parent_path() / file;
    return load_rank_order(topology, file.string(), count);
  }
  RankOrder order;
  order.source = "scenario " + node.path;
  if (node->is_object()) {
    reader.check_keys(node, {"ranks", "channel_rings"});
    const auto ranks = reader.required(node, "ranks", "an array of GPU or host names");
    if (!ranks) return std::nullopt;
    order.ranks = resolve(topology, json_entries(reader, *ranks), reader);
    check_count(topology, order.ranks.size(), count, ranks->path, reader);
    if (const auto rings = reader.member(node, "channel_rings"); rings && reader.problem_count() == before)
      order.channel_rings = read_rings(topology, reader, *rings, order.ranks);
  } else {
    order.ranks = resolve(topology, json_entries(reader, node), reader);
    check_count(topology, order.ranks.size(), count, node.path, reader);
  }
  if (reader.problem_count() != before) return std::nullopt;
  return order;
}

RankOrder parse_rank_order_text(const Topology& topology, std::string_view text, const std::string& file, int count) {
  ProblemList problems(file);
  std::vector<Entry> entries;
  int line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    line = line.substr(0, line.find('#'));
    parse_line(line, "line " + std::to_string(line_number), entries, problems);
  }
  RankOrder order;
  order.source = file;
  order.ranks = resolve(topology, entries, problems);
  if (problems.empty()) check_count(topology, order.ranks.size(), count, "", problems);
  problems.throw_if_any();
  return order;
}

RankOrder load_rank_order(const Topology& topology, const std::string& path, int count) {
  return parse_rank_order(topology, read_text_file(path), path, count);
}

RankOrder parse_rank_order(const Topology& topology, const std::string& text, const std::string& path, int count) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (text[first] != '{' && text[first] != '['))
    return parse_rank_order_text(topology, text, path, count);
  const nlohmann::json document = parse_json_text(text, path);
  ProblemList problems(path);
  JsonReader reader(problems);
  std::optional<RankOrder> order;
  if (document.is_object()) {
    // A plan (or any object) carrying the order under "rank_order".
    if (const auto member = reader.required(JsonNode{&document, ""}, "rank_order", "the rank order"))
      order = read_rank_order(topology, reader, *member, count);
  } else {
    order = read_rank_order(topology, reader, JsonNode{&document, ""}, count);
  }
  problems.throw_if_any();
  order->source = path;
  return *order;
}

}  // namespace ringlab::sim
