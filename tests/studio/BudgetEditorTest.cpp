#include <catch2/catch.hpp>

#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>

#include "StudioTestSupport.hpp"
#include "remat/graph/ByteSize.hpp"
#include "remat/studio/BudgetEditor.hpp"

using remat::Bytes;
using remat::studio::BudgetChoice;
using remat::studio::BudgetEditor;

namespace {
void type(BudgetEditor& editor, const QString& text) {
  editor.field()->setText(text);
  emit editor.field()->editingFinished();
}
}  // namespace

TEST_CASE("BudgetEditor parses sizes, 'least' and nothing", "[studio][budget]") {
  BudgetChoice c;
  QString error;
  REQUIRE(BudgetEditor::parse(QStringLiteral("2GiB"), c, error));
  CHECK(c == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{std::int64_t{2} << 30}});
  REQUIRE(BudgetEditor::parse(QStringLiteral(" 1500 "), c, error));
  CHECK(c == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{1500}});
  REQUIRE(BudgetEditor::parse(QStringLiteral("Least"), c, error));
  CHECK(c.kind == BudgetChoice::Kind::Least);
  REQUIRE(BudgetEditor::parse(QString(), c, error));
  CHECK(c.kind == BudgetChoice::Kind::None);
  CHECK_FALSE(BudgetEditor::parse(QStringLiteral("lots"), c, error));
  CHECK(error.contains(QStringLiteral("lots")));
  CHECK_FALSE(BudgetEditor::parse(QStringLiteral("0"), c, error));
}

TEST_CASE("BudgetEditor keeps the field and the slider in step", "[studio][budget]") {
  remat::test::ensureWidgetApplication();
  BudgetEditor editor;
  QSignalSpy changed(&editor, &BudgetEditor::budgetChanged);
  CHECK_FALSE(editor.slider()->isEnabled());  // no scale before a graph
  const Bytes peak{4'000'000'000};
  editor.setVanillaPeak(peak);
  CHECK(editor.slider()->isEnabled());

  editor.slider()->setValue(250);
  CHECK(editor.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{1'000'000'000}});
  CHECK(editor.field()->text() == QString::fromStdString(remat::formatByteSize(Bytes{1'000'000'000})));
  CHECK(changed.count() == 1);

  // Re-reading the rounded text the slider wrote keeps the exact budget.
  emit editor.field()->editingFinished();
  CHECK(editor.budget().bytes == Bytes{1'000'000'000});
  CHECK(changed.count() == 1);

  type(editor, QStringLiteral("2GB"));
  CHECK(editor.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{2'000'000'000}});
  CHECK(editor.slider()->value() == 500);
  CHECK(changed.count() == 2);

  type(editor, QStringLiteral("not a size"));
  CHECK_FALSE(editor.errorText().isEmpty());
  CHECK(editor.budget().bytes == Bytes{2'000'000'000});  // the last valid budget stays

  type(editor, QStringLiteral("least"));
  CHECK(editor.errorText().isEmpty());
  CHECK(editor.budget().kind == BudgetChoice::Kind::Least);
  type(editor, QString());
  CHECK(editor.budget().kind == BudgetChoice::Kind::None);
  CHECK(editor.slider()->value() == BudgetEditor::kSliderSteps);
}

TEST_CASE("BudgetEditor's slider reaches past the plain run's peak when extended", "[studio][budget]") {
  remat::test::ensureWidgetApplication();
  BudgetEditor editor;
  const Bytes peak{4'000'000'000};
  editor.setVanillaPeak(peak);
  CHECK(editor.fullScale() == peak);
  editor.extendScale(Bytes{3'000'000'000});  // below: no change
  CHECK(editor.slider()->maximum() == BudgetEditor::kSliderSteps);
  editor.extendScale(Bytes{7'000'000'000});
  CHECK(editor.slider()->maximum() == 1750);
  CHECK(editor.fullScale() == Bytes{7'000'000'000});
  QSignalSpy changed(&editor, &BudgetEditor::budgetChanged);
  CHECK(changed.count() == 0);  // extending keeps the budget
  editor.slider()->setValue(1500);
  CHECK(editor.budget() == BudgetChoice{BudgetChoice::Kind::Fixed, Bytes{6'000'000'000}});
  // A new graph starts again from its own plain run.
  editor.setVanillaPeak(Bytes{1'000'000'000});
  CHECK(editor.slider()->maximum() == BudgetEditor::kSliderSteps);
}
