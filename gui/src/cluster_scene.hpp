// ClusterScene: draws a ScenarioDocument's cluster (QGraphicsScene) and turns mouse drags into
// move requests; it never changes the document itself (editor.hpp does, through the undo stack).
//
// Devices are boxes coloured by kind, hosts frames around their devices (or, collapsed, one box
// each; racks can collapse too), links lines labelled with
// their speed ("400G"), parallel links drawn apart. Positions come from the document's layout
// section, else from auto_layout() (switch tiers above, hosts in rows). Above kCollapseHosts hosts
// each host is drawn as one box carrying its devices' outside links (links merged per peer), which
// keeps a 1,024-GPU fat tree to a few thousand items. Layers: links (z 0), devices (z 1), labels
// (z 2), overlays (z 3), each can be hidden. The busiest links (Result::bottlenecks) get a dashed
// black outline. After a simulation, links take the colour and width of their busiest
// direction's utilisation.
#pragma once

#include <QGraphicsScene>
#include <QPointF>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "document.hpp"
#include "ringlab/planner/plan.hpp"

namespace ringlab::gui {

class ClusterScene : public QGraphicsScene {
  Q_OBJECT

 public:
  static constexpr std::size_t kCollapseHosts = 64;
  /// Layers by z value: fabric and host links (0), devices (1), labels (2), overlays: the plan's
  /// rings and rank numbers (3).
  enum class Layer { Links, Devices, Labels, Overlays };

  explicit ClusterScene(QObject* parent = nullptr);

  /// Redraws from the document. `collapse`: hosts as single boxes (default above kCollapseHosts).
  void rebuild(const ScenarioDocument& document, bool collapse);
  /// Utilisation in [0, 1] per link id (Result::directions, the busier direction); empty clears.
  /// `bottlenecks` (link ids) are outlined.
  void set_utilisation(std::vector<double> per_link, std::vector<LinkId> bottlenecks = {});
  /// Draws a plan's rings over the cluster (nullptr clears): per channel, in its own colour, an
  /// arrow from each rank's GPU to the next (between host boxes when collapsed, labelled with the
  /// NICs the channel leaves and enters by), and rank numbers on the GPUs (up to 512 ranks).
  /// `channel` >= 0 draws that channel only (the window's default is channel 0: eight rings at once
  /// hide each other), -1 all of them.
  void set_plan(const planner::Plan* plan, const Topology& topology, int channel = -1);
  std::size_t plan_arrow_count() const { return plan_arrows_; }
  /// Draws each rack (its hosts and ToR switches) as one box; takes effect at the next rebuild.
  void set_collapse_racks(bool on) { collapse_racks_ = on; }
  /// Hosts drawn expanded although the scene is collapsed (double-click toggles one).
  void set_expanded_hosts(std::vector<std::string> hosts) { expanded_hosts_ = std::move(hosts); }
  void set_layer_visible(Layer layer, bool visible);

  /// Names of the selected devices (collapsed hosts stand for all their devices).
  std::vector<std::string> selected_devices() const;
  /// The link selected alone (a link drawn as its own line), if any.
  std::optional<LinkId> selected_link() const;
  /// Selects the device with this name, if drawn, and returns its item's centre.
  bool select_named(const std::string& name);
  std::size_t device_item_count() const { return device_items_; }
  std::size_t link_item_count() const { return link_items_; }
  bool collapsed() const { return collapsed_; }

 signals:
  /// The user dragged these devices by `delta` (scene units, snapped to the grid).
  void devices_moved(std::vector<std::string> names, QPointF delta);
  /// The user double-clicked a host: expand it (collapsed box) or collapse it (its frame).
  void host_toggled(std::string host);

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  void restyle_links();

  std::vector<double> utilisation_;
  std::vector<LinkId> bottlenecks_;
  std::vector<std::vector<class QGraphicsLineItem*>> link_lines_;  ///< per link id: its drawn lines
  std::map<QGraphicsItem*, QPointF> press_positions_;
  std::vector<QGraphicsItem*> device_item_;  ///< per device id: the item it is drawn as
  std::vector<QGraphicsItem*> plan_items_;
  std::vector<std::string> expanded_hosts_;
  std::size_t plan_arrows_ = 0;
  std::size_t device_items_ = 0, link_items_ = 0;
  bool collapsed_ = false;
  bool collapse_racks_ = false;
  bool layers_[4] = {true, true, true, true};
};

}  // namespace ringlab::gui
