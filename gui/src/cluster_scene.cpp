// ClusterScene: items from the cluster, drags to move requests (see cluster_scene.hpp).
#include "cluster_scene.hpp"

#include <QBrush>
#include <QGraphicsRectItem>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QPen>

#include <algorithm>
#include <cmath>
#include <map>

#include "layout.hpp"
#include "ringlab/topology/kinds.hpp"

namespace ringlab::gui {
namespace {

constexpr double kBox = kDeviceBox;
constexpr double kGap = 12;  ///< around host frames
constexpr int kNameRole = 0;      ///< QGraphicsItem::data key: device name
constexpr int kHostRole = 1;      ///< data key: a collapsed host box's device names (QStringList)
constexpr int kLinkRole = 2;      ///< data key: a link line's link id (one link drawn alone)

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
  plan_items_.clear();
  plan_arrows_ = 0;
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

  // Where each device is drawn (its own box, or its host's or rack's box when collapsed).
  std::vector<QPointF> centre(t.device_count());
  std::vector<QGraphicsItem*> item_of(t.device_count(), nullptr);
  auto frame_of = [&](const std::vector<DeviceId>& members) {
    QRectF frame;
    for (DeviceId d : members) frame |= QRectF(position(d), QSizeF(kBox, kBox));
    return frame.adjusted(-kGap / 2, -kGap / 2 - 14, kGap / 2, kGap / 2);
  };
  // One movable box standing for `members` (a host, or a rack with its hosts and ToR).
  auto collapse_into_box = [&](const QString& name, const std::vector<DeviceId>& members) {
    const QRectF frame = frame_of(members);
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
  };
  if (collapse_racks_) {
    std::vector<std::vector<DeviceId>> racks(t.rack_count());
    for (DeviceId d = 0; d < t.device_count(); ++d) {
      const Device& dev = t.device(d);
      const RackId r = dev.host != kNoHost ? t.host(dev.host).rack : dev.rack;
      if (r != kNoRack) racks[std::size_t(r)].push_back(d);
    }
    for (RackId r = 0; r < RackId(t.rack_count()); ++r)
      if (!racks[std::size_t(r)].empty()) collapse_into_box(QString::fromStdString(t.rack(r).name), racks[std::size_t(r)]);
  }
  for (HostId h = 0; h < HostId(t.host_count()); ++h) {
    const std::vector<DeviceId> members = t.host_devices(h);
    if (members.empty() || item_of[members.front()]) continue;  // empty, or inside a collapsed rack
    const QRectF frame = frame_of(members);
    const QString name = QString::fromStdString(t.host(h).name);
    const bool expanded =
        std::find(expanded_hosts_.begin(), expanded_hosts_.end(), t.host(h).name) != expanded_hosts_.end();
    if (collapse && !expanded) {
      collapse_into_box(name, members);
      continue;
    }
    auto* outline = addRect(frame, QPen(QColor(170, 170, 170), 1, Qt::DashLine));
    outline->setZValue(-1);
    outline->setData(kNameRole, name);
    auto* label = addSimpleText(name);
    label->setPos(frame.topLeft() + QPointF(3, 1));
    label->setZValue(2);
  }
  // GPUs of different models get different shades and a model label (heterogeneous clusters).
  std::vector<GpuModel> models;
  for (DeviceId g : t.gpus())
    if (std::find(models.begin(), models.end(), t.device(g).gpu_model) == models.end())
      models.push_back(t.device(g).gpu_model);
  const bool mixed = models.size() > 1;
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    if (item_of[d]) continue;
    const Device& dev = t.device(d);
    const QPointF at = position(d);
    QColor colour = kind_colour(dev.kind);
    if (mixed && dev.kind == DeviceKind::Gpu) {
      const auto m = std::find(models.begin(), models.end(), dev.gpu_model) - models.begin();
      colour = QColor::fromHsv(int(90 + 50 * m) % 360, 200, 190);
    }
    auto* box = addRect(QRectF(0, 0, kBox, kBox), QPen(Qt::black), QBrush(colour));
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
    if (mixed && dev.kind == DeviceKind::Gpu) {
      auto* label = new QGraphicsSimpleTextItem(QString::fromStdString(std::string(to_string(dev.gpu_model))), box);
      label->setScale(0.6);
      label->setPos(1, kBox - 10);
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
  const bool labels = t.link_count() <= 4000;  // links inside a host show their speed as a tooltip
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
      if (lines == links.size()) {  // one line per link: selectable, for the property panel
        line->setFlag(QGraphicsItem::ItemIsSelectable);
        line->setData(kLinkRole, qulonglong(first));
      }
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
      const bool inside_host = t.device(link.a).host != kNoHost && t.device(link.a).host == t.device(link.b).host;
      if (labels && i == 0 && !inside_host) {
        auto* text = addSimpleText(links.size() > 1 && lines == 1 ? QString("%1x %2").arg(links.size()).arg(speed_label(link))
                                                                   : speed_label(link));
        text->setPos((p + q) / 2 + offset);
        text->setScale(0.7);
        text->setZValue(2);
        text->setBrush(QColor(80, 80, 80));
      }
    }
  }
  for (int layer = 0; layer < 4; ++layer) set_layer_visible(Layer(layer), layers_[layer]);
  device_item_ = std::move(item_of);
}

void ClusterScene::set_plan(const planner::Plan* plan, const Topology& t, int channel) {
  for (QGraphicsItem* item : plan_items_) {
    removeItem(item);
    delete item;
  }
  plan_items_.clear();
  plan_arrows_ = 0;
  if (!plan || device_item_.size() != t.device_count()) return;
  // GPU of (host, local index).
  std::map<std::pair<std::string, int>, DeviceId> gpu_at;
  for (DeviceId g : t.gpus())
    if (t.device(g).host != kNoHost) gpu_at[{t.host(t.device(g).host).name, t.device(g).local_index}] = g;
  const QColor colours[] = {QColor(220, 40, 40), QColor(30, 100, 220), QColor(240, 150, 0), QColor(140, 40, 200),
                            QColor(0, 150, 130), QColor(200, 60, 150), QColor(90, 90, 20), QColor(20, 20, 20)};
  const bool numbers = plan->ranks() <= 512;
  auto add = [&](QGraphicsItem* item) {
    item->setZValue(3);
    addItem(item);
    plan_items_.push_back(item);
  };
  for (int c = 0; c < plan->channels; ++c) {
    if (channel >= 0 && c != channel) continue;
    // The channel's ring as (device, host index) in order.
    std::vector<std::pair<DeviceId, std::size_t>> ring;
    for (std::size_t h = 0; h < plan->hosts.size(); ++h) {
      const planner::HostPlan& host = plan->hosts[h];
      const planner::HostChannel& ch = host.channels[std::size_t(c)];
      for (int lr : ch.local_ranks) {
        const auto g = gpu_at.find({host.name, host.gpus[std::size_t(lr)]});
        if (g != gpu_at.end()) ring.emplace_back(g->second, h);
      }
    }
    const QColor colour = colours[c % 8];
    const double bend = (double(c) - double(plan->channels - 1) / 2) * 6;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto [from, from_host] = ring[i];
      const auto [to, to_host] = ring[(i + 1) % ring.size()];
      QGraphicsItem* a = device_item_[from];
      QGraphicsItem* b = device_item_[to];
      if (!a || !b || a == b) continue;
      const QPointF p = a->sceneBoundingRect().center();
      const QPointF q = b->sceneBoundingRect().center();
      const QLineF line(p, q);
      const QPointF normal = line.length() > 0 ? QPointF(-line.dy(), line.dx()) / line.length() : QPointF();
      const QLineF drawn(p + normal * bend, q + normal * bend);
      auto* arrow = new QGraphicsLineItem(drawn);
      arrow->setPen(QPen(colour, 2));
      add(arrow);
      // Arrowhead: two short strokes at the target end.
      const double angle = std::atan2(-drawn.dy(), drawn.dx());
      const QPointF tip = drawn.pointAt(0.85);
      for (double side : {-1.0, 1.0}) {
        const double a2 = angle + M_PI + side * 0.45;
        auto* head = new QGraphicsLineItem(QLineF(tip, tip + QPointF(std::cos(a2) * 9, -std::sin(a2) * 9)));
        head->setPen(QPen(colour, 2));
        add(head);
      }
      ++plan_arrows_;
      if (from_host != to_host) {
        const planner::HostChannel& out = plan->hosts[from_host].channels[std::size_t(c)];
        const planner::HostChannel& in = plan->hosts[to_host].channels[std::size_t(c)];
        auto* label = new QGraphicsSimpleTextItem(QString("ch%1 nic%2>nic%3").arg(c).arg(out.nic_out).arg(in.nic_in));
        label->setBrush(colour);
        label->setScale(0.8);
        label->setPos(drawn.pointAt(0.5));
        add(label);
      }
    }
    if (c != std::max(channel, 0) || !numbers) continue;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      QGraphicsItem* item = device_item_[ring[i].first];
      if (!item || item->data(kHostRole).isValid()) continue;
      auto* number = new QGraphicsSimpleTextItem(QString::number(i));
      number->setBrush(Qt::white);
      number->setPos(item->sceneBoundingRect().topLeft() + QPointF(3, 5));
      add(number);
    }
  }
}

void ClusterScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  QGraphicsScene::mouseDoubleClickEvent(event);
  for (QGraphicsItem* item : items(event->scenePos())) {
    const bool host_box = item->data(kHostRole).isValid();
    const bool host_frame = item->zValue() == -1;
    if (!host_box && !host_frame) continue;
    const std::string host = item->data(kNameRole).toString().toStdString();
    const auto it = std::find(expanded_hosts_.begin(), expanded_hosts_.end(), host);
    if (it == expanded_hosts_.end())
      expanded_hosts_.push_back(host);
    else
      expanded_hosts_.erase(it);
    emit host_toggled(host);
    return;
  }
}

void ClusterScene::set_utilisation(std::vector<double> per_link, std::vector<LinkId> bottlenecks) {
  utilisation_ = std::move(per_link);
  bottlenecks_ = std::move(bottlenecks);
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
      const bool bottleneck = std::find(bottlenecks_.begin(), bottlenecks_.end(), l) != bottlenecks_.end();
      line->setPen(QPen(colour, 1 + 5 * u, bottleneck ? Qt::DashLine : Qt::SolidLine));
      line->setToolTip(line->toolTip().section(" |", 0, 0) +
                       QString(" | utilisation %1 %%2").arg(u * 100, 0, 'f', 1).arg(bottleneck ? ", a bottleneck" : ""));
    }
  }
}

void ClusterScene::set_layer_visible(Layer layer, bool visible) {
  layers_[int(layer)] = visible;
  const double z = double(int(layer));
  for (QGraphicsItem* item : items())
    if (item->zValue() == z && item->parentItem() == nullptr) item->setVisible(visible);
}

std::optional<LinkId> ClusterScene::selected_link() const {
  const QList<QGraphicsItem*> selected = selectedItems();
  if (selected.size() != 1 || !selected.front()->data(kLinkRole).isValid()) return std::nullopt;
  return LinkId(selected.front()->data(kLinkRole).toULongLong());
}

std::vector<std::string> ClusterScene::selected_devices() const {
  std::vector<std::string> out;
  for (QGraphicsItem* item : selectedItems()) {
    const QStringList members = item->data(kHostRole).toStringList();
    for (const QString& m : members) out.push_back(m.toStdString());
    const QString name = item->data(kNameRole).toString();
    if (members.isEmpty() && !name.isEmpty() && !item->data(kLinkRole).isValid()) out.push_back(name.toStdString());
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
