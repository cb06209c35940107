#include "remat/studio/BudgetEditor.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>

#include <algorithm>
#include <cmath>

#include "remat/graph/ByteSize.hpp"

namespace remat::studio {

namespace {
QString fieldHelp() {
  return BudgetEditor::tr(
      "Memory budget: bytes, a size such as 2GiB or 1.5GB, 'least' for each solver's "
      "least feasible budget, or empty for none");
}
}  // namespace

BudgetEditor::BudgetEditor(QWidget* parent) : QWidget(parent) {
  m_field = new QLineEdit(this);
  m_field->setPlaceholderText(tr("none"));
  m_field->setToolTip(fieldHelp());
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setRange(1, kSliderSteps);
  m_slider->setValue(kSliderSteps);
  m_slider->setEnabled(false);
  m_slider->setToolTip(tr("Budget as a fraction of the plain run's peak (store-all)"));
  m_fraction = new QLabel(this);
  m_fraction->setMinimumWidth(m_fraction->fontMetrics().horizontalAdvance(QStringLiteral("1000.0%")));
  auto* layout = new QGridLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_field, 0, 0, 1, 2);
  layout->addWidget(m_slider, 1, 0);
  layout->addWidget(m_fraction, 1, 1);
  connect(m_slider, &QSlider::valueChanged, this, &BudgetEditor::onSliderMoved);
  connect(m_field, &QLineEdit::editingFinished, this, [this] { (void)commit(); });
  // Every keystroke is checked, so that a budget that will not parse is red before anything runs.
  connect(m_field, &QLineEdit::textEdited, this, [this](const QString& text) {
    BudgetChoice parsed;
    QString error;
    showError(parse(text, parsed, error) ? QString() : error);
  });
  showBudget();
}

void BudgetEditor::setVanillaPeak(Bytes peak) {
  m_vanillaPeak = peak;
  {
    const QSignalBlocker block(m_slider);
    m_slider->setRange(1, kSliderSteps);
  }
  m_slider->setEnabled(peak.value > 0);
  showBudget();
}

void BudgetEditor::extendScale(Bytes bytes) {
  if (m_vanillaPeak.value <= 0 || bytes <= fullScale()) return;
  const double steps =
      std::ceil(static_cast<double>(bytes.value) / static_cast<double>(m_vanillaPeak.value) * kSliderSteps);
  {
    const QSignalBlocker block(m_slider);
    m_slider->setRange(1, static_cast<int>(std::min(steps, 100.0 * kSliderSteps)));
  }
  showBudget();
}

Bytes BudgetEditor::fullScale() const {
  return Bytes{static_cast<std::int64_t>(std::llround(static_cast<double>(m_slider->maximum()) / kSliderSteps *
                                                      static_cast<double>(m_vanillaPeak.value)))};
}

void BudgetEditor::setBudget(const BudgetChoice& budget) {
  showError({});
  if (budget == m_budget) {
    showBudget();  // the field shows the budget again, over whatever text was typed
    return;
  }
  m_budget = budget;
  showBudget();
  emit budgetChanged();
}

void BudgetEditor::onSliderMoved(int value) {
  if (m_vanillaPeak.value <= 0) return;
  const double fraction = static_cast<double>(value) / kSliderSteps;
  const auto bytes = static_cast<std::int64_t>(std::llround(fraction * static_cast<double>(m_vanillaPeak.value)));
  setBudget({BudgetChoice::Kind::Fixed, Bytes{std::max<std::int64_t>(1, bytes)}});
}

void BudgetEditor::showError(const QString& error) {
  m_error = error;
  m_field->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("QLineEdit { color: #c0392b; }"));
  m_field->setToolTip(error.isEmpty() ? fieldHelp() : error);
}

bool BudgetEditor::commit() {
  BudgetChoice parsed;
  QString error;
  if (!parse(m_field->text(), parsed, error)) {
    showError(error);
    return false;
  }
  showError({});
  // The field shows sizes rounded to three digits; re-reading that text must not move the budget.
  if (parsed.kind == BudgetChoice::Kind::Fixed && m_budget.kind == BudgetChoice::Kind::Fixed &&
      m_field->text().trimmed() == QString::fromStdString(formatByteSize(m_budget.bytes)))
    return true;
  setBudget(parsed);
  return true;
}

void BudgetEditor::showBudget() {
  const QSignalBlocker blockSlider(m_slider);
  const QSignalBlocker blockField(m_field);
  switch (m_budget.kind) {
    case BudgetChoice::Kind::None: m_field->clear(); break;
    case BudgetChoice::Kind::Least: m_field->setText(QStringLiteral("least")); break;
    case BudgetChoice::Kind::Fixed: m_field->setText(QString::fromStdString(formatByteSize(m_budget.bytes))); break;
  }
  if (m_vanillaPeak.value > 0 && m_budget.kind == BudgetChoice::Kind::Fixed) {
    const double fraction = static_cast<double>(m_budget.bytes.value) / static_cast<double>(m_vanillaPeak.value);
    m_slider->setValue(std::clamp(static_cast<int>(std::lround(fraction * kSliderSteps)), 1, m_slider->maximum()));
    m_fraction->setText(QStringLiteral("%1%").arg(100.0 * fraction, 0, 'f', 1));
  } else {
    m_slider->setValue(m_slider->maximum());
    m_fraction->setText(m_budget.kind == BudgetChoice::Kind::Least ? tr("least") : tr("none"));
  }
}

}  // namespace remat::studio
