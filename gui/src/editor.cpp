// Editor: document actions as undoable JSON swaps (see editor.hpp).
#include "editor.hpp"

#include <QUndoCommand>

#include <algorithm>
#include <cstdio>
#include <set>

#include "layout.hpp"
#include "ringlab/topology/error.hpp"
#include "ringlab/topology/kinds.hpp"

namespace ringlab::gui {
namespace {

constexpr int kMoveId = 1;

/// Swaps the document between two JSON values. Moves of the same devices merge.
class JsonCommand : public QUndoCommand {
 public:
  JsonCommand(ScenarioDocument& document, nlohmann::json before, nlohmann::json after, const QString& text,
              int merge_id, std::vector<std::string> merge_key)
      : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)),
        merge_id_(merge_id), merge_key_(std::move(merge_key)) {}
  void undo() override { document_.set_json(before_); }
  void redo() override { document_.set_json(after_); }
  int id() const override { return merge_id_; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* next = static_cast<const JsonCommand*>(other);
    if (next->merge_key_ != merge_key_) return false;
    after_ = next->after_;
    return true;
  }

 private:
  ScenarioDocument& document_;
  nlohmann::json before_, after_;
  int merge_id_;
  std::vector<std::string> merge_key_;
};

nlohmann::json& cluster_array(nlohmann::json& doc, const char* key) {
  nlohmann::json& cluster = doc["cluster"];
  if (!cluster.contains(key) || !cluster[key].is_array()) cluster[key] = nlohmann::json::array();
  return cluster[key];
}

std::string link_name(const nlohmann::json& link) {
  return link.value("a", std::string()) + "--" + link.value("b", std::string());
}

}  // namespace

QString Editor::apply(nlohmann::json next, const QString& what, int merge_id,
                      const std::vector<std::string>& merge_key) {
  if (const auto problem = document_.problem(next)) return QString::fromStdString(*problem);
  stack_.push(new JsonCommand(document_, document_.json(), std::move(next), what, merge_id, merge_key));
  return {};
}

QString Editor::add_host(const std::string& name, const std::string& rack) {
  nlohmann::json next = document_.json();
  nlohmann::json host = {{"name", name}};
  if (!rack.empty()) host["rack"] = rack;
  cluster_array(next, "hosts").push_back(host);
  return apply(std::move(next), QString("Add host %1").arg(QString::fromStdString(name)));
}

QString Editor::add_device(const std::string& kind, const std::string& host, std::string* created) {
  const auto k = find_device_kind(kind);
  if (!k) return QString("unknown device kind \"%1\"").arg(QString::fromStdString(kind));
  const Topology& t = document_.cluster();
  const std::string prefix = is_host_internal(*k) ? host + "/" + std::string(to_string(*k)) : std::string(to_string(*k));
  int index = 0;
  while (t.find_device(prefix + std::to_string(index))) ++index;
  const std::string name = prefix + std::to_string(index);
  nlohmann::json device = {{"name", name}, {"kind", std::string(to_string(*k))}};
  if (is_host_internal(*k)) device["host"] = host;
  nlohmann::json next = document_.json();
  cluster_array(next, "devices").push_back(device);
  const QString error = apply(std::move(next), QString("Add %1").arg(QString::fromStdString(name)));
  if (error.isEmpty() && created) *created = name;
  return error;
}

QString Editor::add_link(const std::string& a, const std::string& b, const std::string& kind,
                         const nlohmann::json& extra) {
  nlohmann::json link = {{"a", a}, {"b", b}, {"kind", kind}};
  for (const auto& [key, value] : extra.items()) link[key] = value;
  nlohmann::json next = document_.json();
  cluster_array(next, "links").push_back(link);
  return apply(std::move(next), QString("Link %1 - %2").arg(QString::fromStdString(a), QString::fromStdString(b)));
}

QString Editor::remove(const std::vector<std::string>& devices, const std::vector<std::string>& links) {
  nlohmann::json next = document_.json();
  const std::set<std::string> gone(devices.begin(), devices.end());
  const std::set<std::string> gone_links(links.begin(), links.end());
  nlohmann::json& cluster = next["cluster"];
  std::size_t removed = 0;
  if (cluster.contains("devices") && cluster["devices"].is_array()) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& d : cluster["devices"])
      if (!gone.count(d.value("name", std::string()))) kept.push_back(d);
    removed += cluster["devices"].size() - kept.size();
    cluster["devices"] = std::move(kept);
  }
  if (removed < gone.size())
    return "only devices added by hand can be removed; generated ones come from \"cluster/generate\": edit "
           "the generator instead";
  if (cluster.contains("links") && cluster["links"].is_array()) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& l : cluster["links"]) {
      const bool touches = gone.count(l.value("a", std::string())) || gone.count(l.value("b", std::string()));
      if (!touches && !gone_links.count(link_name(l))) kept.push_back(l);
    }
    cluster["links"] = std::move(kept);
  }
  if (next.contains("layout") && next["layout"].contains("positions"))
    for (const std::string& d : devices) next["layout"]["positions"].erase(d);
  return apply(std::move(next), QString("Remove %1 item(s)").arg(devices.size() + links.size()));
}

QString Editor::move(const std::vector<std::string>& devices, QPointF delta) {
  nlohmann::json next = document_.json();
  nlohmann::json& positions = next["layout"]["positions"];
  std::map<std::string, QPointF> defaults;  // computed only if some device has no saved position
  for (const std::string& d : devices) {
    auto saved = document_.position(d);
    if (!saved) {
      if (defaults.empty()) defaults = auto_layout(document_.cluster());
      const auto it = defaults.find(d);
      if (it == defaults.end()) return QString("no device named \"%1\"").arg(QString::fromStdString(d));
      saved = it->second;
    }
    const QPointF at = *saved + delta;
    positions[d] = {at.x(), at.y()};
  }
  std::vector<std::string> key = devices;
  std::sort(key.begin(), key.end());
  return apply(std::move(next), QString("Move %1 device(s)").arg(devices.size()), kMoveId, key);
}

QString Editor::set_positions(const std::map<std::string, QPointF>& positions, const QString& what) {
  nlohmann::json next = document_.json();
  nlohmann::json& out = next["layout"]["positions"];
  out = nlohmann::json::object();
  for (const auto& [name, at] : positions) out[name] = {at.x(), at.y()};
  return apply(std::move(next), what);
}

QString Editor::generate(const nlohmann::json& blocks) {
  nlohmann::json next = document_.json();
  next["cluster"] = {{"generate", blocks}};
  next.erase("layout");
  return apply(std::move(next), "Generate cluster");
}

QString Editor::paste(const std::vector<std::string>& devices, QPointF offset, std::vector<std::string>* created) {
  const Topology& t = document_.cluster();
  nlohmann::json next = document_.json();
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken;
  std::map<std::string, QPointF> defaults;
  for (const std::string& name : devices) {
    const auto id = t.find_device(name);
    if (!id) return QString("no device named \"%1\"").arg(QString::fromStdString(name));
    const Device& d = t.device(*id);
    const std::string host = d.host != kNoHost ? t.host(d.host).name : std::string();
    const std::string prefix = is_host_internal(d.kind) ? host + "/" + std::string(to_string(d.kind)) : std::string(to_string(d.kind));
    int index = 0;
    while (t.find_device(prefix + std::to_string(index)) || taken.count(prefix + std::to_string(index))) ++index;
    const std::string copy = prefix + std::to_string(index);
    taken.insert(copy);
    renamed[name] = copy;
    nlohmann::json device = {{"name", copy}, {"kind", std::string(to_string(d.kind))}};
    if (!host.empty()) device["host"] = host;
    if (d.kind == DeviceKind::Gpu) device["gpu_model"] = std::string(to_string(d.gpu_model));
    cluster_array(next, "devices").push_back(device);
    auto at = document_.position(name);
    if (!at) {
      if (defaults.empty()) defaults = auto_layout(t);
      at = defaults.count(name) ? defaults[name] : QPointF();
    }
    next["layout"]["positions"][copy] = {at->x() + offset.x(), at->y() + offset.y()};
  }
  // Links among the copies join the copies; a link from a copied device to one not copied joins the
  // copy to that same device (a pasted GPU hangs off the same switches as its original).
  auto copy_of = [&](DeviceId d) {
    const auto it = renamed.find(t.device(d).name);
    return it == renamed.end() ? t.device(d).name : it->second;
  };
  for (const Link& l : t.links()) {
    if (!renamed.count(t.device(l.a).name) && !renamed.count(t.device(l.b).name)) continue;
    const std::string a = copy_of(l.a);
    const std::string b = copy_of(l.b);
    char bandwidth[64];
    std::snprintf(bandwidth, sizeof bandwidth, "%.17gbps", l.bandwidth.bits_per_second());
    nlohmann::json link = {{"a", a},
                           {"b", b},
                           {"kind", std::string(to_string(l.kind))},
                           {"lanes", l.lanes},
                           {"bandwidth", bandwidth},
                           {"latency", std::to_string(l.latency.picoseconds()) + "ps"},
                           {"overhead", std::to_string(l.overhead.picoseconds()) + "ps"}};
    if (l.transport != Transport::Rdma && l.transport != Transport::None)
      link["transport"] = std::string(to_string(l.transport));
    cluster_array(next, "links").push_back(link);
  }
  const QString error = apply(std::move(next), QString("Paste %1 device(s)").arg(devices.size()));
  if (error.isEmpty() && created)
    for (const std::string& name : devices) created->push_back(renamed[name]);
  return error;
}

QString Editor::set_field(const std::string& json_pointer, const nlohmann::json& value) {
  nlohmann::json next = document_.json();
  try {
    next[nlohmann::json::json_pointer(json_pointer)] = value;
  } catch (const nlohmann::json::exception& e) {
    return QString("%1: %2").arg(QString::fromStdString(json_pointer), e.what());
  }
  return apply(std::move(next), QString("Set %1").arg(QString::fromStdString(json_pointer)));
}

std::string Editor::pointer_of(const std::string& name) const {
  const nlohmann::json& cluster = document_.json().at("cluster");
  for (const char* key : {"devices", "links"}) {
    if (!cluster.contains(key) || !cluster[key].is_array()) continue;
    const nlohmann::json& items = cluster[key];
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string item = std::string(key) == "links" ? link_name(items[i]) : items[i].value("name", "");
      if (item == name) return "/cluster/" + std::string(key) + "/" + std::to_string(i);
    }
  }
  return {};
}

}  // namespace ringlab::gui
