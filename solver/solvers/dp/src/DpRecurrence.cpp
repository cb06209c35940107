#include "remat/solvers/DpRecurrence.hpp"

#include <algorithm>

namespace remat::solvers {

namespace {

// The Pareto front of a set of ways: by overhead ascending, each kept only with less checkpoint memory
// than every way of at most its overhead.
std::vector<Reach> paretoFront(std::vector<Reach> ways) {
  std::sort(ways.begin(), ways.end(), [](const Reach& a, const Reach& b) {
    return a.overhead != b.overhead ? a.overhead < b.overhead : a.checkpoints < b.checkpoints;
  });
  std::vector<Reach> front;
  for (const Reach& w : ways)
    if (front.empty() || w.checkpoints < front.back().checkpoints) front.push_back(w);
  return front;
}

}  // namespace

std::vector<std::vector<Reach>> recurrenceFronts(const LowerSetFamily& f, Bytes budget) {
  std::vector<std::vector<Reach>> fronts(f.size());
  if (fronts.empty()) return fronts;
  fronts[0] = {Reach{}};  // ∅: nothing recomputed, nothing held
  // The family runs by size, so every proper subset of L_j comes before it, its front already final.
  for (std::size_t j = 1; j < f.size(); ++j) {
    std::vector<Reach> ways;
    for (std::size_t i = 0; i < j; ++i) {
      if (!f.subset(i, j) || !f.allowed(i, j)) continue;  // i < j: a subset is a proper one
      const Step step = stepOf(f.transition(i, j));
      for (const Reach& p : fronts[i])
        if (stepFits(p, step, budget)) ways.push_back(stepTo(p, step));
    }
    fronts[j] = paretoFront(std::move(ways));
  }
  return fronts;
}

}  // namespace remat::solvers
