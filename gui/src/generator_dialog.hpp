// GeneratorDialog: the topology module's cluster generators as a form (node template, node count,
// fabric kind, leaves, spines, oversubscription, dragonfly routers per group, NIC kind); value() is the
// scenario's "generate" object for Editor::generate.
#pragma once

#include <QDialog>

#include <nlohmann/json.hpp>

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace ringlab::gui {

class GeneratorDialog : public QDialog {
  Q_OBJECT

 public:
  explicit GeneratorDialog(QWidget* parent = nullptr);
  nlohmann::json value() const;

 private:
  QComboBox* template_ = nullptr;
  QSpinBox* nodes_ = nullptr;
  QComboBox* fabric_ = nullptr;
  QSpinBox* per_leaf_ = nullptr;
  QSpinBox* spines_ = nullptr;
  QDoubleSpinBox* oversubscription_ = nullptr;
  QSpinBox* routers_per_group_ = nullptr;  ///< dragonfly only
  QComboBox* nic_ = nullptr;
};

}  // namespace ringlab::gui
