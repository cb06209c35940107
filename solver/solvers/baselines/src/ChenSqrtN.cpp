#include "remat/solvers/ChenSqrtN.hpp"

#include <cmath>

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"

namespace remat::solvers {

const SolverInfo& ChenSqrtN::info() const {
  static const SolverInfo kInfo{
      .id = "chen-sqrtn",
      .name = "Chen's sqrt(n)",
      .citation = "Chen et al., Training Deep Nets with Sublinear Memory Cost, arXiv:1604.06174, 2016",
      .problemClass = "DAGs with single-boundary cuts",
      .exact = false,
      .figureSlot = 2,
  };
  return kInfo;
}

namespace {
std::string noCutMessage() {
  return "Chen's method does not apply to this graph: no operation separates its ancestors from the rest of "
         "the graph on its own (no single-boundary cut), so there is nowhere to place a checkpoint";
}

}  // namespace

SolverOutput ChenSqrtN::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  // A unit of work: a closure while finding the cuts.
  TimeLimit limit = startLimit(request);
  const auto found = chenCutChain(g, [&] { return limit.charge(); });
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  if (!found)
    return {SolveStatus::TimeLimit, std::nullopt, "time limit reached while finding the single-boundary cuts"};
  const std::vector<graph::NodeSet>& chain = *found;
  if (chain.empty()) return {SolveStatus::Infeasible, std::nullopt, noCutMessage()};

  // The chain of cuts is the network seen as Chen's linear sequence of n = cuts + 1 layers (a residual
  // block is one layer); it gets about sqrt(n) segments. The j-th cut is the chain member whose
  // activation memory is nearest to j/k of the total, so that segments hold similar memory.
  const auto layers = static_cast<double>(chain.size() + 1);
  const auto segments = std::max<std::size_t>(2, static_cast<std::size_t>(std::lround(std::sqrt(layers))));
  std::vector<Bytes> prefix;
  prefix.reserve(chain.size());
  for (const auto& l : chain) prefix.push_back(graph::bytesOf(g, l));
  const double total = double(g.opBytes().value);
  std::vector<graph::NodeSet> lowerSets;
  std::size_t last = SIZE_MAX;
  for (std::size_t j = 1; j < segments; ++j) {
    const double target = total * double(j) / double(segments);
    std::size_t pick = 0;
    for (std::size_t c = 1; c < chain.size(); ++c)
      if (std::abs(double(prefix[c].value) - target) < std::abs(double(prefix[pick].value) - target)) pick = c;
    if (last != SIZE_MAX && pick <= last) continue;
    lowerSets.push_back(chain[pick]);
    last = pick;
  }
  lowerSets.push_back(graph::fullSet(g));
  Plan plan = chainPlan(g, lowerSets, request.model);
  return {SolveStatus::Feasible, std::move(plan), {}};
}

}  // namespace remat::solvers
