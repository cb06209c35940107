#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace remat::solvers {

/// One stage of a heterogeneous chain in the model of Beaumont, Eyraud-Dubois, Herrmann, Joly and
/// Shilova, "Optimal checkpointing for heterogeneous chains: how to train deep neural networks with
/// limited memory", arXiv:1911.13214, 2019 (the `rotor` package). Stage i (1-based) reads the
/// activation a^{i-1} and produces a^i; its backward B^i reads the gradient δ^i, its tape ā^i and a^{i-1}
/// and produces δ^{i-1}. a^0 (the graph's inputs) is resident and costs nothing here.
///
/// The model is unit-free integers: memory in one unit (bytes, or slots once discretised), time in the
/// graph's ticks. Every peak is what the operation adds while it runs on top of what is already held,
/// not counting its input a^{i-1} (held by whoever decided to keep it).
struct ChainStage {
  std::int64_t forwardTime = 0;     ///< uf: time of the stage's forward
  std::int64_t backwardTime = 0;    ///< ub: time of its backward
  std::int64_t output = 0;          ///< x^i: size of a^i, what the next stage reads (0 for the last stage)
  std::int64_t tape = 0;            ///< x̄^i: what F_all keeps for B^i, a^i included
  std::int64_t outputGrad = 0;      ///< δ^i: size of the gradient of a^i (0 for the last stage)
  std::int64_t forwardPeak = 0;     ///< during F_∅ / F_ck: intermediates, transients and a^i
  std::int64_t forwardAllPeak = 0;  ///< during F_all: the same keeping ā^i
  /// During B^i: what is left of ā^i, δ^i, gradients inside the stage, δ^{i-1} and transients. The
  /// tape and δ^i held before B^i are replaced by this figure while it runs.
  std::int64_t backwardPeak = 0;
};

/// A chain of stages 1..L (stored 0-based: stages[i - 1] is stage i).
struct ChainModel {
  std::vector<ChainStage> stages;

  [[nodiscard]] std::size_t length() const { return stages.size(); }
  /// Stage i, 1-based as in the paper.
  [[nodiscard]] const ChainStage& stage(std::size_t i) const { return stages[i - 1]; }
  /// The time of a schedule without recomputation: Σ (uf + ub).
  [[nodiscard]] std::int64_t storeAllTime() const;
};

/// An operation of a chain schedule, in the paper's vocabulary (stages 1-based; a^0 is resident and
/// never dropped):
///  - `ForwardDrop i` (F_∅): computes a^i from a^{i-1} and drops a^{i-1}, which must be held alone and
///    unpinned (i ≥ 2; for i = 1 it is ForwardCheck);
///  - `ForwardCheck i` (F_ck): computes a^i and keeps a^{i-1}, pinning it;
///  - `ForwardAll i` (F_all): computes a^i keeping the whole tape ā^i, and keeps a^{i-1}, pinning it;
///  - `Backward i` (B^i): needs δ^i (i is the next backward), ā^i and a^{i-1}; drops ā^i and δ^i and
///    leaves δ^{i-1};
///  - `Discard i`: drops a^i (or ā^i); a pinned a^i only once B^{i+1} is done.
/// Pinning makes schedules persistent, as the paper's are: an activation that a forward kept stays
/// until the backward that needs it. (Without that rule a schedule could drop a^{i-1} while the
/// stages after it run and recompute it before B^i; the DP does not consider such schedules.)
enum class ChainOpKind : std::uint8_t { ForwardDrop, ForwardCheck, ForwardAll, Backward, Discard };

struct ChainOp {
  ChainOpKind kind = ChainOpKind::ForwardCheck;
  std::uint32_t stage = 0;

  bool operator==(const ChainOp&) const = default;
};

/// What the chain model says of an operation sequence: legal or not (and why), its time, its peak
/// memory (the highest held + running figure) and how many forwards it runs.
struct ChainRun {
  bool valid = false;
  std::string error;
  std::int64_t time = 0;
  std::int64_t peak = 0;
  std::size_t forwards = 0;  ///< forward operations, recomputations included
};

/// Runs an operation sequence in the chain model (the model's own simulator, used by the tests and the
/// self-checks; the graph's simulator judges the lowered schedule). Legal: a forward of stage i needs
/// a^{i-1} (alone or in its tape), a^i absent and i not yet back-propagated, and the rules of each
/// operation above; the sequence must end with every backward done. O(ops + L).
[[nodiscard]] ChainRun runChainOps(const ChainModel& model, const std::vector<ChainOp>& ops);

}  // namespace remat::solvers
