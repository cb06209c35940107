#include "remat/solvers/ChenGreedy.hpp"

#include <cmath>
#include <set>

#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"

namespace remat::solvers {

const SolverInfo& ChenGreedy::info() const {
  static const SolverInfo kInfo{
      .id = "chen-greedy",
      .name = "Chen's greedy segmentation",
      .citation = "Chen et al., Training Deep Nets with Sublinear Memory Cost, arXiv:1604.06174, 2016 (Algorithm 3)",
      .problemClass = "DAGs with single-boundary cuts",
      .exact = false,
      .figureSlot = 5,
  };
  return kInfo;
}

SolverOutput ChenGreedy::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  // A unit of work: a closure while finding the cuts, a threshold of the grid after.
  TimeLimit limit = startLimit(request);
  const auto found = chenCutChain(g, [&] { return limit.charge(); });
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  if (!found)
    return {SolveStatus::TimeLimit, std::nullopt, "time limit reached while finding the single-boundary cuts"};
  const std::vector<graph::NodeSet>& chain = *found;
  if (chain.empty())
    return {SolveStatus::Infeasible, std::nullopt,
            "Chen's method does not apply to this graph: it has no single-boundary cut to place a checkpoint at"};

  std::vector<std::int64_t> prefix;
  prefix.reserve(chain.size());
  for (const auto& l : chain) prefix.push_back(graph::bytesOf(g, l).value);
  const std::int64_t total = std::max<std::int64_t>(1, g.opBytes().value);
  std::int64_t smallest = total;
  for (const graph::Node& n : g.nodes())
    if (n.kind == graph::NodeKind::Op && n.bytes.value > 0) smallest = std::min(smallest, n.bytes.value);

  // Thresholds b on a geometric grid from the smallest tensor to the whole graph.
  constexpr int kGrid = 48;
  std::set<std::vector<std::size_t>> seen;
  std::optional<Plan> best;
  Bytes bestPeak{0};
  Ticks bestOverhead{0};
  const sim::Simulator simulator(g, {.liveness = request.liveness, .requireComplete = true});
  for (int step = 0; step <= kGrid; ++step) {
    if (limit.charge()) {
      if (limit.cancelled()) return {SolveStatus::Cancelled, std::move(best), "cancelled"};
      std::string why = best ? "time limit reached: the best segmentation so far" : "time limit reached";
      return {SolveStatus::TimeLimit, std::move(best), std::move(why)};
    }
    if (request.progress) request.progress(double(step) / kGrid, "searching segment thresholds");
    const double b = double(smallest) * std::pow(double(total) / double(smallest), double(step) / kGrid);
    std::vector<std::size_t> cuts;
    std::int64_t since = 0;
    std::int64_t lastPrefix = 0;
    for (std::size_t c = 0; c < chain.size(); ++c) {
      since = prefix[c] - lastPrefix;
      if (double(since) > b) {
        cuts.push_back(c);
        lastPrefix = prefix[c];
      }
    }
    if (!seen.insert(cuts).second) continue;
    std::vector<graph::NodeSet> lowerSets;
    lowerSets.reserve(cuts.size() + 1);
    for (std::size_t c : cuts) lowerSets.push_back(chain[c]);
    lowerSets.push_back(graph::fullSet(g));
    Plan candidate = chainPlan(g, lowerSets, request.model);
    const sim::SimulationResult r = simulator.run(candidate.schedule);
    if (!r.valid()) throw std::logic_error("chen-greedy built an illegal schedule: " + r.error->message);
    const bool fits = !request.budget || r.peak <= *request.budget;
    const bool bestFits = best && (!request.budget || bestPeak <= *request.budget);
    bool better = false;
    if (!best)
      better = true;
    else if (fits != bestFits)
      better = fits;
    else if (request.budget && fits)
      better = r.overhead < bestOverhead || (r.overhead == bestOverhead && r.peak < bestPeak);
    else
      better = r.peak < bestPeak || (r.peak == bestPeak && r.overhead < bestOverhead);
    if (better) {
      best = std::move(candidate);
      bestPeak = r.peak;
      bestOverhead = r.overhead;
    }
  }
  // Solver::solve() turns a plan over the budget into Infeasible with the figures.
  return {SolveStatus::Feasible, std::move(best), {}};
}

}  // namespace remat::solvers
