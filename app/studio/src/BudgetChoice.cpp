#include "remat/studio/BudgetChoice.hpp"

#include <QCoreApplication>

#include "remat/graph/ByteSize.hpp"

namespace remat::studio {

bool parseBudgetChoice(const QString& text, BudgetChoice& out, QString& error) {
  const QString t = text.trimmed();
  if (t.isEmpty() || t.compare(QStringLiteral("none"), Qt::CaseInsensitive) == 0) {
    out = {};
    return true;
  }
  if (t.compare(QStringLiteral("least"), Qt::CaseInsensitive) == 0) {
    out = {BudgetChoice::Kind::Least, Bytes{0}};
    return true;
  }
  const auto bytes = parseByteSize(t.toStdString());
  if (!bytes || bytes->value <= 0) {
    error = QCoreApplication::translate("BudgetEditor",
                                        "'%1' is not a budget: give bytes, a size such as 2GiB, 'least' or nothing")
                .arg(t);
    return false;
  }
  out = {BudgetChoice::Kind::Fixed, *bytes};
  return true;
}

}  // namespace remat::studio
