#include "remat/solvers/SolverRegistry.hpp"

#include <stdexcept>

#include "remat/solvers/ChainDp.hpp"
#include "remat/solvers/ChenGreedy.hpp"
#include "remat/solvers/ChenSqrtN.hpp"
#include "remat/solvers/DpSolvers.hpp"
#include "remat/solvers/Dtr.hpp"
#include "remat/solvers/Milp.hpp"
#include "remat/solvers/StoreAll.hpp"

namespace remat::solvers {

void SolverRegistry::add(std::unique_ptr<Solver> solver) {
  if (find(solver->info().id)) throw std::logic_error("solver id registered twice: " + solver->info().id);
  m_solvers.push_back(std::move(solver));
}

const Solver* SolverRegistry::find(std::string_view id) const {
  for (const auto& s : m_solvers)
    if (s->info().id == id) return s.get();
  return nullptr;
}

std::vector<std::string> SolverRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& s : m_solvers) out.push_back(s->info().id);
  return out;
}

const SolverRegistry& SolverRegistry::builtin() {
  static const SolverRegistry registry = [] {
    SolverRegistry r;
    r.add(std::make_unique<StoreAll>());
    r.add(std::make_unique<ChenSqrtN>());
    r.add(std::make_unique<ChenGreedy>());
    r.add(std::make_unique<ApproxDp>());
    r.add(std::make_unique<ExactDp>());
    r.add(std::make_unique<Milp>());
    r.add(std::make_unique<LpBoundSolver>());
    r.add(std::make_unique<ChainDp>());
    r.add(std::make_unique<Dtr>());
    return r;
  }();
  return registry;
}

}  // namespace remat::solvers
