#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/solvers/ChainModel.hpp"

namespace remat::solvers {

/// A graph seen as a chain (for `chain-dp`): its stages are the segments between consecutive
/// single-boundary cuts of chenCutChain, L_1 ⊊ L_2 ⊊ ... ⊊ V; stage i is L_i \ L_{i-1}. A cut's only
/// member read from outside it is its closing operation b_i, so stage i+1 reads nothing of the stages
/// before it but b_i (and inputs and parameters, which are resident): a^i is the value of b_i. On a
/// plain chain every operation is a stage; a graph without such cuts is one stage.
///
/// How the model of each stage is taken from its nodes (sizes are graph::Node::bytes, as the DP model
/// counts them; gradients have the simulator's sizes, a view's being its base tensor's):
///  - uf, ub: the sums of the nodes' fwdTime and bwdTime;
///  - x^i = bytes of b_i, δ^i = the size of b_i's gradient (both 0 for the last stage);
///  - x̄^i (the tape): b_i plus every node of the stage that a backward of the stage keeps (`saves`:
///    its own output or an input). Values the backward keeps from the stage before can only be b_{i-1},
///    which is a^{i-1}, held anyway while B^i runs;
///  - peak(F_∅), peak(F_all): the most held while the stage's forwards run in topological order, each
///    node freed after its last consumer in the stage unless kept (b_i only, or the tape), plus the
///    running node's workspace;
///  - peak(B^i): starting from the tape and δ^i, the backwards in reverse topological order: each
///    allocates the gradients of its operation inputs (δ^{i-1} among them) and an output's seed, frees
///    its own gradient after, and tape values are dropped after the last backward that keeps them (or
///    before the first when none does). Parameter gradients are left out: they only grow during the
///    step and the budget search below covers them.
struct GraphChain {
  struct Stage {
    std::vector<graph::NodeId> nodes;     ///< topological order
    std::optional<graph::NodeId> output;  ///< b_i; none for the last stage
    std::vector<bool> tape;               ///< by position: kept by F_all
    // The lowering's frees, as positions into `nodes`:
    /// by position, the stage nodes whose last consumer in the stage is this forward (or that have
    /// none); b_i is never listed;
    std::vector<std::vector<std::uint32_t>> forwardFrees;
    std::vector<std::uint32_t> backwardUnused;  ///< tape values no backward of the stage keeps
    /// by position, the tape values whose last (lowest-positioned) backward keeper is this node.
    std::vector<std::vector<std::uint32_t>> backwardFrees;
  };
  std::vector<Stage> stages;
  ChainModel model;      ///< bytes and the graph's time unit
  std::size_t cuts = 0;  ///< single-boundary cuts found, before any coarsening
};

/// Linearises a graph at its single-boundary cuts (chenCutChain), keeping at most `maxStages` stages:
/// with more, an evenly spaced subset of the cuts is used. O(|V|·(|V| + |E|)) for the cuts.
[[nodiscard]] GraphChain linearizeGraph(const graph::ComputeGraph& g, std::size_t maxStages);
/// The same, asking `stopped` while it finds the cuts (chenCutChain); nullopt when stopped.
[[nodiscard]] std::optional<GraphChain> linearizeGraph(const graph::ComputeGraph& g, std::size_t maxStages,
                                                       const std::function<bool()>& stopped);

/// The model with every memory figure rounded up to whole slots of `slotBytes` (so a schedule that fits
/// in k slots fits in k·slotBytes bytes in the byte model); times are kept.
[[nodiscard]] ChainModel discretise(const ChainModel& bytes, std::int64_t slotBytes);

/// The memory of the schedule without recomputation (F_all for every stage, then every backward).
[[nodiscard]] std::int64_t storeAllMemory(const ChainModel& model);

/// Lowers chain operations to a schedule over the graph's nodes: a forward of stage i runs the stage's
/// forwards in topological order, freeing each value after its last consumer in the stage unless kept
/// (b_i; the tape for F_all), and `ForwardDrop` then frees b_{i-1}; `Backward i` runs the stage's backwards in reverse
/// topological order, each followed by the free of its gradient and of the tape values it was the
/// last to keep; `Discard i` frees what is held of stage i. Every free is explicit, so the schedule is
/// legal with and without liveness analysis. Precondition: `ops` is legal for runChainOps.
[[nodiscard]] sim::Schedule lowerChainOps(const GraphChain& chain, const std::vector<ChainOp>& ops);

}  // namespace remat::solvers
