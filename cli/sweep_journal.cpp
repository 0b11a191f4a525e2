// The sweep journal (sweep_journal.hpp).
#include "sweep_journal.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ringlab/sim/result.hpp"
#include "ringlab/topology/error.hpp"

namespace ringlab::cli {
namespace {

using Json = nlohmann::json;
constexpr int kJournalVersion = 1;

}  // namespace

std::string sweep_digest(const SweepSpec& spec) {
  Json what = {{"command", spec.command}, {"base", spec.base}};
  for (const SweepAxis& a : spec.axes) what["axes"].push_back({a.name, a.pointer.to_string(), a.values});
  for (const SweepMetric& m : spec.metrics) what["metrics"].push_back({m.name, m.pointer.to_string()});
  return sim::digest_hex(what.dump());
}

std::vector<std::string> journal_files(const std::string& output, int ranks) {
  if (ranks <= 1) return {output + ".journal"};
  std::vector<std::string> files;
  for (int r = 0; r < ranks; ++r) files.push_back(output + ".journal." + std::to_string(r));
  return files;
}

std::vector<std::string> existing_journals(const std::string& output) {
  namespace fs = std::filesystem;
  const fs::path out(output);
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  const std::string stem = out.filename().string() + ".journal";
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == stem || name.rfind(stem + ".", 0) == 0) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::map<std::int64_t, SweepRow> read_journals(const std::string& output, const SweepSpec& spec) {
  const std::vector<std::string> paths = existing_journals(output);
  const std::string digest = sweep_digest(spec);
  std::map<std::int64_t, SweepRow> rows;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    const std::string content = all.str();
    std::vector<std::string> lines;
    std::size_t begin = 0;
    // Complete lines only: a kill mid-write leaves a last line without its newline, which is dropped.
    for (std::size_t end = content.find('\n'); end != std::string::npos; end = content.find('\n', begin)) {
      lines.push_back(content.substr(begin, end - begin));
      begin = end + 1;
    }
    int number = 0;
    for (const std::string& text : lines) {
      ++number;
      const std::string where = "line " + std::to_string(number);
      Json j = Json::parse(text, nullptr, false);
      if (number == 1) {
        if (!j.is_object() || j.value("ringlab_sweep_journal", 0) != kJournalVersion)
          throw InputError(path, where, "not a sweep journal");
        if (j.value("sweep", std::string()) != digest)
          throw InputError(path, where, "this journal is from another sweep (its command, base, axes or metrics "
                                        "differ): remove it, or resume the sweep it belongs to");
        continue;
      }
      if (!j.is_object() || !j.contains("index") || !j["index"].is_number_integer() || !j.contains("metrics") ||
          !j["metrics"].is_array() || !j.contains("error") || !j["error"].is_string())
        throw InputError(path, where, "expected {\"index\", \"metrics\", \"error\"}");
      const std::int64_t index = j["index"].get<std::int64_t>();
      if (index < 0 || index >= spec.point_count) throw InputError(path, where, "point index outside the sweep");
      rows[index] = SweepRow{j["metrics"].get<std::vector<Json>>(), j["error"].get<std::string>()};
    }
  }
  return rows;
}

SweepJournal::SweepJournal(const std::string& path, const SweepSpec& spec) : path_(path) {
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  out_.open(path, std::ios::app);
  if (!out_) throw InputError(path, "", "cannot write the sweep journal (is the output's folder writable?)");
  if (fresh)
    out_ << Json{{"ringlab_sweep_journal", kJournalVersion}, {"sweep", sweep_digest(spec)}, {"points", spec.point_count}}
                .dump()
         << std::endl;
}

void SweepJournal::add(std::int64_t index, const SweepRow& row) {
  const std::string line = Json{{"index", index}, {"metrics", row.metrics}, {"error", row.error}}.dump();
  const std::lock_guard<std::mutex> lock(mutex_);
  out_ << line << std::endl;  // flushed: a kill loses at most the line being written
}

}  // namespace ringlab::cli
