#pragma once

#include <QString>

#include "remat/graph/Units.hpp"

namespace remat::studio {

/// The memory budget the solvers run under: none (unconstrained), each solver's least feasible one,
/// or a byte count.
struct BudgetChoice {
  enum class Kind { None, Least, Fixed };
  Kind kind = Kind::None;
  Bytes bytes{0};  ///< Fixed only
  bool operator==(const BudgetChoice&) const = default;
};

/// Parses a budget as the panel's field and session files give it ("2GiB", "1500000000", "least", or
/// empty or "none" for none): true and the choice, or false and a readable message.
[[nodiscard]] bool parseBudgetChoice(const QString& text, BudgetChoice& out, QString& error);

}  // namespace remat::studio
