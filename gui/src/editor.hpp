// Editor: every change to a ScenarioDocument, as an undoable command on a QUndoStack.
//
// Each action computes the next document JSON from the current one, validates it (the loader's own
// checks: names, kinds, hosts, links), and pushes a command that swaps the two; undo puts the old
// JSON back. The scene and the dialogs only ask for these actions (Qt's Diagram Scene / Undo
// Framework pattern), so a test drives the editor exactly as the window does. Moves of the same
// devices merge into one command while they continue. Actions return an error text (nothing
// pushed) or an empty string.
#pragma once

#include <QPointF>
#include <QString>
#include <QUndoStack>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "document.hpp"

namespace ringlab::gui {

class Editor {
 public:
  Editor(ScenarioDocument& document, QUndoStack& stack) : document_(document), stack_(stack) {}

  /// A new explicit host (a server) named `name`, optionally in `rack`.
  QString add_host(const std::string& name, const std::string& rack = {});
  /// A new device of `kind` ("gpu", "nic", "leaf", ...): inside `host` for host devices (named
  /// "<host>/<kind><i>", the next free index), else a fabric switch named "<kind><i>". The new name
  /// is returned in `created` when given.
  QString add_device(const std::string& kind, const std::string& host, std::string* created = nullptr);
  /// A link of `kind` ("nvlink4", "pcie5", "ib_ndr", "eth100", ...) between two devices;
  /// `extra` may set "lanes", "bandwidth", "latency", "transport".
  QString add_link(const std::string& a, const std::string& b, const std::string& kind,
                   const nlohmann::json& extra = nlohmann::json::object());
  /// Removes explicit devices (with their explicit links) and explicit links (given as "a--b").
  /// Generated devices cannot be removed one by one: the error says to edit the generator.
  QString remove(const std::vector<std::string>& devices, const std::vector<std::string>& links);
  /// Moves devices by `delta` (scene units) in the layout section; consecutive moves of the same
  /// devices merge into one undo step.
  QString move(const std::vector<std::string>& devices, QPointF delta);
  /// Sets every layout position at once (automatic layout), one undo step.
  QString set_positions(const std::map<std::string, QPointF>& positions, const QString& what);
  /// Replaces the cluster by generated ones: `blocks` is the scenario's "generate" value (an object
  /// or an array of generator objects, docs/scenario-format.md); explicit parts and layout go.
  QString generate(const nlohmann::json& blocks);
  /// Copies devices (generated or not) as new explicit devices of the same kind in the same host
  /// (fabric switches: new switches), placed `offset` from the originals, with their links: links
  /// among the copied devices join the copies, links to other devices join the copy to the same
  /// device. One undo step. The new names go to `created` in the order given.
  QString paste(const std::vector<std::string>& devices, QPointF offset, std::vector<std::string>* created = nullptr);
  /// Replaces one field of an explicit device or link ("/cluster/devices/3/gpu_model" -> "h100").
  QString set_field(const std::string& json_pointer, const nlohmann::json& value);

  /// JSON pointer of the explicit device or link entry with this name ("a--b" for links), or "".
  std::string pointer_of(const std::string& name) const;

 private:
  QString apply(nlohmann::json next, const QString& what, int merge_id = -1,
                const std::vector<std::string>& merge_key = {});

  ScenarioDocument& document_;
  QUndoStack& stack_;
};

}  // namespace ringlab::gui
