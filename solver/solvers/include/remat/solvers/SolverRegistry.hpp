#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "remat/solvers/Solver.hpp"

namespace remat::solvers {

/// Solvers by stable kebab-case id.
class SolverRegistry {
 public:
  void add(std::unique_ptr<Solver> solver);
  [[nodiscard]] const Solver* find(std::string_view id) const;
  [[nodiscard]] std::vector<std::string> ids() const;
  [[nodiscard]] const std::vector<std::unique_ptr<Solver>>& solvers() const { return m_solvers; }
  /// The plain run (SolverInfo::plainRun); throws std::logic_error when none is registered.
  [[nodiscard]] const Solver& plainRun() const;
  /// Whether `id` names the plain run (false for unknown ids).
  [[nodiscard]] bool isPlainRun(std::string_view id) const;

  /// Every solver Remat ships.
  [[nodiscard]] static const SolverRegistry& builtin();

 private:
  std::vector<std::unique_ptr<Solver>> m_solvers;
};

}  // namespace remat::solvers
