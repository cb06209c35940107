#include "remat/solvers/Revolve.hpp"

#include <limits>
#include <set>
#include <stdexcept>

namespace remat::solvers {
namespace {

// β(c, r) = C(c + r, c), saturating at the largest 64-bit value.
std::uint64_t beta(std::uint64_t c, std::int64_t r) {
  if (r < 0) return 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t value = 1;
  for (std::uint64_t k = 1; k <= std::uint64_t(r); ++k) {
    if (value > kMax / (c + k)) return kMax;
    value = value * (c + k) / k;  // C(c + k, k) from C(c + k - 1, k - 1), exact
  }
  return value;
}

class Builder {
 public:
  explicit Builder(std::vector<RevolveAction>& out) : m_out(out) {}

  // Reverses steps from+1 .. from+steps; x_from is current and in a snapshot; `snaps` snapshots are
  // available, x_from's included.
  void reverse(std::uint32_t from, std::uint32_t steps, std::uint32_t snaps) {
    if (steps == 1) {
      emit(RevolveAction::Kind::Reverse, from + 1);
      return;
    }
    if (snaps == 1) {
      for (std::uint32_t k = steps; k >= 1; --k) {
        if (k != steps) emit(RevolveAction::Kind::Restore, from);
        for (std::uint32_t i = from + 1; i < from + k; ++i) emit(RevolveAction::Kind::Advance, i);
        emit(RevolveAction::Kind::Reverse, from + k);
      }
      return;
    }
    // The split of Griewank's recursion: advance m̂ steps, keep x_{from+m̂}, reverse the tail with one
    // snapshot fewer, then the head with all of them.
    std::uint32_t best = 1;
    std::uint64_t bestCost = std::numeric_limits<std::uint64_t>::max();
    for (std::uint32_t split = 1; split < steps; ++split) {
      const std::uint64_t cost =
          split + revolveForwardSteps(steps - split, snaps - 1) + revolveForwardSteps(split, snaps);
      if (cost < bestCost) {
        bestCost = cost;
        best = split;
      }
    }
    for (std::uint32_t i = from + 1; i <= from + best; ++i) emit(RevolveAction::Kind::Advance, i);
    emit(RevolveAction::Kind::Takeshot, from + best);
    reverse(from + best, steps - best, snaps - 1);
    emit(RevolveAction::Kind::Release, from + best);
    emit(RevolveAction::Kind::Restore, from);
    reverse(from, best, snaps);
  }

 private:
  void emit(RevolveAction::Kind kind, std::uint32_t state) { m_out.push_back({kind, state}); }
  std::vector<RevolveAction>& m_out;
};

}  // namespace

std::uint64_t revolveForwardSteps(std::uint64_t steps, std::uint64_t checkpoints) {
  if (steps == 0 || checkpoints == 0) throw std::invalid_argument("revolve needs at least one step and one checkpoint");
  std::int64_t r = 0;
  while (beta(checkpoints, r) < steps) ++r;
  return std::uint64_t(r) * steps - beta(checkpoints + 1, r - 1);
}

std::vector<RevolveAction> revolveSchedule(std::uint32_t steps, std::uint32_t checkpoints) {
  if (steps == 0 || checkpoints == 0) throw std::invalid_argument("revolve needs at least one step and one checkpoint");
  std::vector<RevolveAction> out;
  out.push_back({RevolveAction::Kind::Takeshot, 0});
  Builder(out).reverse(0, steps, checkpoints);
  out.push_back({RevolveAction::Kind::Release, 0});
  return out;
}

std::vector<ChainOp> revolveChainOps(const std::vector<RevolveAction>& actions) {
  std::vector<ChainOp> ops;
  std::set<std::uint32_t> snapshots;
  std::uint32_t current = 0;
  // The current state, once consumed by a reversal, is dropped unless a snapshot holds it (x_0 is resident).
  auto leave = [&](std::uint32_t state) {
    if (state != 0 && !snapshots.contains(state)) ops.push_back({ChainOpKind::Discard, state});
  };
  for (const RevolveAction& a : actions) {
    switch (a.kind) {
      case RevolveAction::Kind::Advance:
        ops.push_back(
            {current == 0 || snapshots.contains(current) ? ChainOpKind::ForwardCheck : ChainOpKind::ForwardDrop,
             a.state});
        current = a.state;
        break;
      case RevolveAction::Kind::Takeshot: snapshots.insert(a.state); break;
      case RevolveAction::Kind::Restore: current = a.state; break;
      case RevolveAction::Kind::Release:
        snapshots.erase(a.state);
        if (a.state != 0) ops.push_back({ChainOpKind::Discard, a.state});
        break;
      case RevolveAction::Kind::Reverse:
        ops.push_back({ChainOpKind::ForwardAll, a.state});
        ops.push_back({ChainOpKind::Backward, a.state});
        leave(current);
        current = a.state - 1;  // consumed: a restore follows
        break;
    }
  }
  return ops;
}

}  // namespace remat::solvers
