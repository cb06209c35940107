#pragma once

#include <QString>
#include <QWidget>

#include "remat/graph/Units.hpp"
#include "remat/studio/BudgetChoice.hpp"

class QLineEdit;
class QSlider;
class QLabel;

namespace remat::studio {

/// A field taking a budget ("2GiB", "1500000000", "least", or empty for none) and a slider giving it
/// as a fraction of the plain run's peak (store-all's simulated peak); each follows the other. The
/// slider reaches past 100% when the owner extends its scale: budgets in the DP model (no liveness,
/// each segment counted twice) can exceed the plain run's simulated peak.
class BudgetEditor : public QWidget {
  Q_OBJECT

 public:
  explicit BudgetEditor(QWidget* parent = nullptr);

  /// The plain run's peak: the slider's unit (100%) and its full scale until extended. Zero disables
  /// the slider.
  void setVanillaPeak(Bytes peak);
  [[nodiscard]] Bytes vanillaPeak() const { return m_vanillaPeak; }
  /// Extends the slider's right end to at least `bytes` (never below the plain run's peak; a new
  /// vanilla peak resets it), keeping the budget as it is.
  void extendScale(Bytes bytes);
  /// The budget at the slider's right end.
  [[nodiscard]] Bytes fullScale() const;

  /// The budget last taken from the field or the slider. Text typed since is taken by commit(), which
  /// Enter, leaving the field and Run call.
  [[nodiscard]] const BudgetChoice& budget() const { return m_budget; }
  void setBudget(const BudgetChoice& budget);
  /// Takes the field's text as the budget: true when it parses (budgetChanged is emitted if it moved the
  /// budget), false with errorText() set and the budget unchanged.
  [[nodiscard]] bool commit();
  /// Parses a text as the field does (parseBudgetChoice): true and the choice, or false and a readable
  /// message.
  [[nodiscard]] static bool parse(const QString& text, BudgetChoice& out, QString& error) {
    return parseBudgetChoice(text, out, error);
  }

  /// The error of the text in the field (checked at every keystroke), empty when it is valid.
  [[nodiscard]] const QString& errorText() const { return m_error; }

  [[nodiscard]] QLineEdit* field() const { return m_field; }
  [[nodiscard]] QSlider* slider() const { return m_slider; }
  /// Slider steps per 100% (the vanilla peak).
  static constexpr int kSliderSteps = 1000;

 signals:
  void budgetChanged();

 private:
  void onSliderMoved(int value);
  void showError(const QString& error);
  void showBudget();

  QLineEdit* m_field = nullptr;
  QSlider* m_slider = nullptr;
  QLabel* m_fraction = nullptr;
  Bytes m_vanillaPeak{0};
  BudgetChoice m_budget;
  QString m_error;
};

}  // namespace remat::studio
