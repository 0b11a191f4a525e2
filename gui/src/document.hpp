// ScenarioDocument: the scenario JSON being edited (the very format the command line runs) and the
// cluster it validates to. The document is the model: views read it and redraw on changed();
// changes come only through set_json(), which the undo commands call (editor.hpp).
#pragma once

#include <QObject>
#include <QPointF>
#include <QString>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ringlab/topology/scenario.hpp"

namespace ringlab::gui {

class ScenarioDocument : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioDocument(QObject* parent = nullptr);

  /// Back to the built-in default scenario, with no file.
  void reset();
  /// Reads a scenario file. Throws ringlab::InputError (file, JSON path, what was expected); the
  /// document is unchanged then.
  void load(const QString& path);
  /// Writes the document to `path` atomically (temp file + rename) and remembers the path.
  /// Throws std::runtime_error when the file cannot be written.
  void save(const QString& path);
  /// The document as JSON text: what save() writes (2-space indent, newline at the end).
  std::string text() const;

  const nlohmann::json& json() const { return json_; }
  /// The validated scenario (cluster built, sections as written).
  const Scenario& scenario() const { return scenario_; }
  const Topology& cluster() const { return scenario_.cluster; }
  QString path() const { return path_; }

  /// Replaces the document. Throws ringlab::InputError, leaving it unchanged, when `json` does not
  /// validate. Emits changed().
  void set_json(nlohmann::json json);
  /// Checks a candidate document without applying it: the problem text, or nullopt when valid.
  std::optional<std::string> problem(const nlohmann::json& json) const;

  /// The saved position of a device (layout section), scene units.
  std::optional<QPointF> position(const std::string& device) const;

 signals:
  void changed();

 private:
  nlohmann::json json_;
  Scenario scenario_;
  QString path_;
};

}  // namespace ringlab::gui
