// ScenarioDocument: load, validate, save (see document.hpp).
#include "document.hpp"

#include <stdexcept>

#include "ringlab/topology/error.hpp"
#include "ringlab/topology/output_file.hpp"

namespace ringlab::gui {

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent) { reset(); }

void ScenarioDocument::reset() {
  json_ = parse_json_text(default_scenario_json(), "<built-in scenario>");
  scenario_ = scenario_from_json(json_, "<built-in scenario>");
  path_.clear();
  emit changed();
}

void ScenarioDocument::load(const QString& path) {
  const std::string file = path.toStdString();
  nlohmann::json json = read_json_file(file, "scenario");
  Scenario scenario = scenario_from_json(json, file);
  json_ = std::move(json);
  scenario_ = std::move(scenario);
  path_ = path;
  emit changed();
}

std::string ScenarioDocument::text() const { return json_.dump(2) + "\n"; }

void ScenarioDocument::save(const QString& path) {
  const std::string body = text();
  write_output(path.toStdString(), [&](std::ostream& out) { out << body; });
  path_ = path;
}

void ScenarioDocument::set_json(nlohmann::json json) {
  Scenario scenario = scenario_from_json(json, path_.isEmpty() ? "<unsaved scenario>" : path_.toStdString());
  json_ = std::move(json);
  scenario_ = std::move(scenario);
  emit changed();
}

std::optional<std::string> ScenarioDocument::problem(const nlohmann::json& json) const {
  try {
    (void)scenario_from_json(json, path_.isEmpty() ? "<unsaved scenario>" : path_.toStdString());
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::optional<QPointF> ScenarioDocument::position(const std::string& device) const {
  const auto layout = json_.find("layout");
  if (layout == json_.end() || !layout->is_object()) return std::nullopt;
  const auto positions = layout->find("positions");
  if (positions == layout->end() || !positions->is_object()) return std::nullopt;
  const auto p = positions->find(device);
  if (p == positions->end() || !p->is_array() || p->size() != 2 || !(*p)[0].is_number() || !(*p)[1].is_number())
    return std::nullopt;
  return QPointF((*p)[0].get<double>(), (*p)[1].get<double>());
}

}  // namespace ringlab::gui
