// ClusterScene: items from the cluster, drags to move requests (see cluster_scene.hpp).
#include "cluster_scene.hpp"

#include <QBrush>
#include <QGraphicsRectItem>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QPen>

#include <algorithm>
#include <cmath>

#include "layout.hpp"
#include "ringlab/topology/kinds.hpp"

namespace ringlab::gui {
namespace {

constexpr double kBox = kDeviceBox;
constexpr double kGap = 12;  ///< around host frames
constexpr int kNameRole = 0;      ///< QGraphicsItem::data key: device name
constexpr int kHostRole = 1;      ///< data key: a collapsed host box's device names (QStringList)

QColor kind_colour(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Gpu: return QColor(118, 185, 0);
    case DeviceKind::Cpu: return QColor(0, 113, 197);
    case DeviceKind::PcieSwitch: return QColor(160, 160, 160);
    case DeviceKind::NvSwitch: return QColor(60, 140, 60);
    case DeviceKind::Nic: return QColor(230, 150, 30);
    case DeviceKind::Leaf: return QColor(120, 90, 180);
    case DeviceKind::Spine: return QColor(150, 70, 150);
    case DeviceKind::Core: return QColor(180, 50, 90);
  }
  return Qt::gray;
}

QString speed_label(const Link& link) {
  const double gbps = link.bandwidth.bits_per_second() / 1e9;
  return QString("%1G").arg(gbps >= 100 ? QString::number(std::round(gbps)) : QString::number(gbps, 'g', 3));
}

double snap(double v) { return std::round(v / kGrid) * kGrid; }

}  // namespace

ClusterScene::ClusterScene(QObject* parent) : QGraphicsScene(parent) {}

void ClusterScene::rebuild(const ScenarioDocument& document, bool collapse) {
  clear();
  press_positions_.clear();
  link_lines_.clear();
  utilisation_.clear();
  device_items_ = link_items_ = 0;
  collapsed_ = collapse;
  const Topology& t = document.cluster();
  const std::map<std::string, QPointF> defaults = auto_layout(t);
  auto position = [&](DeviceId d) {
    const std::string& name = t.device(d).name;
    return document.position(name).value_or(defaults.at(name));
  };

  // Where each device is drawn (its own box, or its host's box when collapsed).
  std::vector<QPointF> centre(t.device_count());
  std::vector<QGraphicsItem*> item_of(t.device_count(), nullptr);
  for (HostId h = 0; h < HostId(t.host_count()); ++h) {
    const std::vector<DeviceId> members = t.host_devices(h);
    if (members.empty()) continue;
    QRectF frame;
    for (DeviceId d : members) frame |= QRectF(position(d), QSizeF(kBox, kBox));
    frame.adjust(-kGap / 2, -kGap / 2 - 14, kGap / 2, kGap / 2);
    const QString name = QString::fromStdString(t.host(h).name);
    if (collapse) {
      auto* box = addRect(QRectF(0, 0, frame.width(), frame.height()), QPen(Qt::darkGray), QBrush(QColor(235, 240, 228)));
      box->setPos(frame.topLeft());
      box->setZValue(1);
      box->setFlags(QGraphicsItem::ItemIsMovable | QGraphicsItem::ItemIsSelectable);
      box->setData(kNameRole, name);
      QStringList member_names;
      for (DeviceId d : members) member_names << QString::fromStdString(t.device(d).name);
      box->setData(kHostRole, member_names);
      box->setToolTip(QString("%1: %2 devices").arg(name).arg(members.size()));
      auto* label = new QGraphicsSimpleTextItem(name, box);
      label->setPos(4, 2);
      label->setZValue(2);
      ++device_items_;
      for (DeviceId d : members) {
        centre[d] = frame.center();
        item_of[d] = box;
      }
      continue;
    }
    auto* outline = addRect(frame, QPen(QColor(170, 170, 170), 1, Qt::DashLine));
    outline->setZValue(-1);
    auto* label = addSimpleText(name);
    label->setPos(frame.topLeft() + QPointF(3, 1));
    label->setZValue(2);
  }
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    if (item_of[d]) continue;
    const Device& dev = t.device(d);
    const QPointF at = position(d);
    auto* box = addRect(QRectF(0, 0, kBox, kBox), QPen(Qt::black), QBrush(kind_colour(dev.kind)));
    box->setPos(at);
    box->setZValue(1);
    box->setFlags(QGraphicsItem::ItemIsMovable | QGraphicsItem::ItemIsSelectable);
    box->setData(kNameRole, QString::fromStdString(dev.name));
    box->setToolTip(QString::fromStdString(dev.name + " (" + std::string(to_string(dev.kind)) + ")"));
    if (dev.kind >= DeviceKind::Leaf) {
      auto* label = new QGraphicsSimpleTextItem(QString::fromStdString(dev.name), box);
      label->setPos(0, -16);
      label->setZValue(2);
    }
    centre[d] = at + QPointF(kBox / 2, kBox / 2);
    item_of[d] = box;
    ++device_items_;
  }

  // Links between drawn items; collapsed hosts merge their links per peer; parallel links apart.
  std::map<std::pair<QGraphicsItem*, QGraphicsItem*>, std::vector<LinkId>> between;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    QGraphicsItem* a = item_of[t.link(l).a];
    QGraphicsItem* b = item_of[t.link(l).b];
    if (a == b) continue;  // inside a collapsed host
    between[std::minmax(a, b)].push_back(l);
  }
  link_lines_.resize(t.link_count());
  const bool labels = t.link_count() <= 4000;
  for (const auto& [ends, links] : between) {
    const QPointF p = ends.first->sceneBoundingRect().center();
    const QPointF q = ends.second->sceneBoundingRect().center();
    const QPointF along = q - p;
    const double length = std::hypot(along.x(), along.y());
    const QPointF normal = length > 0 ? QPointF(-along.y() / length, along.x() / length) : QPointF();
    // Collapsed: one line per peer pair carries them all; expanded: each link its own line.
    const std::size_t lines = collapse && links.size() > 1 ? 1 : links.size();
    for (std::size_t i = 0; i < lines; ++i) {
      const QPointF offset = normal * ((double(i) - double(lines - 1) / 2) * 5);
      auto* line = addLine(QLineF(p + offset, q + offset), QPen(QColor(90, 90, 90), 1));
      line->setZValue(0);
      const LinkId first = links[i];
      const Link& link = t.link(first);
      const QString tip = lines == 1 && links.size() > 1
                              ? QString("%1 links, %2 each").arg(links.size()).arg(speed_label(link))
                              : QString("%1 %2").arg(QString::fromStdString(std::string(to_string(link.kind))), speed_label(link));
      line->setToolTip(tip);
      if (lines == 1)
        for (LinkId l : links) link_lines_[l].push_back(line);
      else
        link_lines_[first].push_back(line);
      ++link_items_;
      if (labels && (i == 0)) {
        auto* text = addSimpleText(links.size() > 1 && lines == 1 ? QString("%1x %2").arg(links.size()).arg(speed_label(link))
                                                                   : speed_label(link));
        text->setPos((p + q) / 2 + offset);
        text->setScale(0.7);
        text->setZValue(2);
        text->setBrush(QColor(80, 80, 80));
      }
    }
  }
  for (int layer = 0; layer < 3; ++layer) set_layer_visible(Layer(layer), layers_[layer]);
}

void ClusterScene::set_utilisation(std::vector<double> per_link) {
  utilisation_ = std::move(per_link);
  restyle_links();
}

void ClusterScene::restyle_links() {
  for (LinkId l = 0; l < link_lines_.size(); ++l) {
    const double u = l < utilisation_.size() ? std::clamp(utilisation_[l], 0.0, 1.0) : -1;
    for (QGraphicsLineItem* line : link_lines_[l]) {
      if (u < 0) {
        line->setPen(QPen(QColor(90, 90, 90), 1));
        continue;
      }
      const QColor colour = QColor::fromHsvF(float((1.0 - u) / 3.0), 0.9f, 0.85f);  // green -> red
      line->setPen(QPen(colour, 1 + 5 * u));
    }
  }
}

void ClusterScene::set_layer_visible(Layer layer, bool visible) {
  layers_[int(layer)] = visible;
  const double z = layer == Layer::Links ? 0 : layer == Layer::Devices ? 1 : 2;
  for (QGraphicsItem* item : items())
    if (item->zValue() == z && item->parentItem() == nullptr) item->setVisible(visible);
}

std::vector<std::string> ClusterScene::selected_devices() const {
  std::vector<std::string> out;
  for (QGraphicsItem* item : selectedItems()) {
    const QStringList members = item->data(kHostRole).toStringList();
    for (const QString& m : members) out.push_back(m.toStdString());
    const QString name = item->data(kNameRole).toString();
    if (members.isEmpty() && !name.isEmpty()) out.push_back(name.toStdString());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool ClusterScene::select_named(const std::string& name) {
  clearSelection();
  for (QGraphicsItem* item : items())
    if (item->data(kNameRole).toString().toStdString() == name) {
      item->setSelected(true);
      return true;
    }
  return false;
}

void ClusterScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  QGraphicsScene::mousePressEvent(event);
  press_positions_.clear();
  for (QGraphicsItem* item : selectedItems()) press_positions_[item] = item->pos();
}

void ClusterScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  QGraphicsScene::mouseReleaseEvent(event);
  if (press_positions_.empty()) return;
  const auto [item, from] = *press_positions_.begin();
  const QPointF delta(snap(item->pos().x() - from.x()), snap(item->pos().y() - from.y()));
  press_positions_.clear();
  if (delta.isNull()) return;
  const std::vector<std::string> names = selected_devices();
  if (!names.empty()) emit devices_moved(names, delta);
}

}  // namespace ringlab::gui
