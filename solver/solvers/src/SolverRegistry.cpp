#include "remat/solvers/SolverRegistry.hpp"

#include <stdexcept>

#include "remat/solvers/ChainDp.hpp"
#include "remat/solvers/ChenGreedy.hpp"
#include "remat/solvers/ChenSqrtN.hpp"
#include "remat/solvers/DpEvict.hpp"
#include "remat/solvers/DpSolvers.hpp"
#include "remat/solvers/Dtr.hpp"
#include "remat/solvers/FastSa.hpp"
#include "remat/solvers/Milp.hpp"
#include "remat/solvers/StoreAll.hpp"

namespace remat::solvers {

void SolverRegistry::add(std::unique_ptr<Solver> solver) {
  const SolverInfo& info = solver->info();
  if (find(info.id)) throw std::logic_error("solver id registered twice: " + info.id);
  for (const auto& s : m_solvers) {
    if (info.plainRun && s->info().plainRun)
      throw std::logic_error("two plain runs registered: " + s->info().id + " and " + info.id);
    if (info.figureSlot && s->info().figureSlot == info.figureSlot)
      throw std::logic_error("figure slot of " + info.id + " already taken by " + s->info().id);
  }
  m_solvers.push_back(std::move(solver));
}

const Solver* SolverRegistry::find(std::string_view id) const {
  for (const auto& s : m_solvers)
    if (s->info().id == id) return s.get();
  return nullptr;
}

const Solver& SolverRegistry::plainRun() const {
  for (const auto& s : m_solvers)
    if (s->info().plainRun) return *s;
  throw std::logic_error("no plain run registered");
}

bool SolverRegistry::isPlainRun(std::string_view id) const {
  const Solver* s = find(id);
  return s && s->info().plainRun;
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
    r.add(std::make_unique<DpEvict>());
    r.add(std::make_unique<FastSa>());
    return r;
  }();
  return registry;
}

}  // namespace remat::solvers
