// GeneratorDialog: a form over ClusterSpec's scenario keys (see generator_dialog.hpp).
#include "generator_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>

#include "ringlab/topology/generators.hpp"

namespace ringlab::gui {

GeneratorDialog::GeneratorDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Generate cluster");
  auto* form = new QFormLayout(this);
  template_ = new QComboBox(this);
  for (int t = 0; t < kNodeTemplateCount; ++t)  // every template of the catalogue, dgx_h100 preselected
    template_->addItem(QString::fromStdString(std::string(to_string(NodeTemplate(t)))));
  template_->setCurrentText("dgx_h100");
  nodes_ = new QSpinBox(this);
  nodes_->setRange(1, 8192);
  nodes_->setValue(16);
  fabric_ = new QComboBox(this);
  fabric_->addItems({"leaf_spine", "single_switch", "fat_tree3", "rail_optimized", "racks", "dragonfly"});
  per_leaf_ = new QSpinBox(this);
  per_leaf_->setRange(1, 1024);
  per_leaf_->setValue(4);
  spines_ = new QSpinBox(this);
  spines_->setRange(0, 512);
  spines_->setValue(4);
  oversubscription_ = new QDoubleSpinBox(this);
  oversubscription_->setRange(1.0, 64.0);
  oversubscription_->setValue(1.0);
  routers_per_group_ = new QSpinBox(this);
  routers_per_group_->setRange(1, 1024);
  routers_per_group_->setValue(2);
  nic_ = new QComboBox(this);
  nic_->addItems({"(template's)", "ib_ndr", "ib_hdr", "ib_edr", "eth400", "eth200", "eth100", "eth25"});
  form->addRow("Node template", template_);
  form->addRow("Nodes", nodes_);
  form->addRow("Fabric", fabric_);
  form->addRow("Nodes per leaf", per_leaf_);
  form->addRow("Spines", spines_);
  form->addRow("Oversubscription", oversubscription_);
  form->addRow("Routers per group (dragonfly)", routers_per_group_);
  form->addRow("NIC", nic_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

nlohmann::json GeneratorDialog::value() const {
  nlohmann::json node = {{"template", template_->currentText().toStdString()}};
  if (nic_->currentIndex() > 0) node["nic"] = nic_->currentText().toStdString();
  nlohmann::json fabric = {{"kind", fabric_->currentText().toStdString()}};
  const std::string kind = fabric["kind"];
  if (kind == "dragonfly") {
    fabric["nodes_per_leaf"] = per_leaf_->value();
    fabric["routers_per_group"] = routers_per_group_->value();
  } else if (kind != "single_switch") {
    if (kind != "rail_optimized") fabric["nodes_per_leaf"] = per_leaf_->value();
    fabric["spines"] = spines_->value();
    fabric["oversubscription"] = oversubscription_->value();
  }
  return {{"nodes", nodes_->value()}, {"node", node}, {"fabric", fabric}};
}

}  // namespace ringlab::gui
