#pragma once

// The Checkmate MILP as data (private to milp/): its formulation over the combined forward+backward graph,
// built without CBC, and the decoding of a solution into a schedule. Milp.cpp hands it to CBC and CLP.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/solvers/Pins.hpp"

namespace remat::solvers::milp_detail {

// The Checkmate formulation over the combined graph: stage t < n computes forward op t; stage t >= n runs
// the backward of op 2n-1-t (reverse topological order). R/S exist for forward values only; backwards run
// exactly once, at their own stage, so all gradient memory is a per-stage constant. A graph computed as
// given (ComputeGraph::asGiven) has the n forward stages only.
struct Formulation {
  std::size_t n = 0;
  std::size_t stages = 0;
  std::vector<double> colLo, colUp, obj;
  std::vector<bool> integer;
  std::vector<int> rowIdx, colIdx;
  std::vector<double> elems;
  std::vector<double> rowLo, rowUp;
  std::vector<std::vector<int>> R, S;  // [t][i]: column, or -1
  double constantTime = 0.0;           // every backward and every forward once
  double fixedTime = 0.0;              // every backward (the objective's constant part)
  double fwdOnce = 0.0;
  double memoryScale = 1.0;          // bytes per memory unit of the rows (a power of two)
  bool infeasibleConstants = false;  // a constant part alone exceeds the budget
  std::string why;

  int addCol(double lo, double up, double c, bool isInt) {
    colLo.push_back(lo);
    colUp.push_back(up);
    obj.push_back(c);
    integer.push_back(isInt);
    return static_cast<int>(colLo.size() - 1);
  }
  void addRow(const std::vector<std::pair<int, double>>& terms, double lo, double up) {
    const int r = static_cast<int>(rowLo.size());
    for (const auto& [c, a] : terms) {
      if (c < 0) continue;
      rowIdx.push_back(r);
      colIdx.push_back(c);
      elems.push_back(a);
    }
    rowLo.push_back(lo);
    rowUp.push_back(up);
  }
  [[nodiscard]] std::size_t forwardSlots(std::size_t t) const { return std::min(t, n - 1) + 1; }
  [[nodiscard]] std::uint32_t backwardOp(std::size_t t) const { return static_cast<std::uint32_t>(2 * n - 1 - t); }
};

/// The formulation at a budget (none: unconstrained) under the pins.
[[nodiscard]] Formulation formulate(const graph::ComputeGraph& g, std::optional<Bytes> budget, const Pins& pins = {});

/// The schedule of a solution x (one value per column; R and S rounded at 0.5).
[[nodiscard]] sim::Schedule decode(const graph::ComputeGraph& g, const Formulation& f, const double* x);

}  // namespace remat::solvers::milp_detail
