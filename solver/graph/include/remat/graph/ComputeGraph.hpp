#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "remat/graph/Node.hpp"
#include "remat/graph/NodeId.hpp"
#include "remat/graph/Units.hpp"

namespace remat::graph {

namespace detail {
struct Topology;
}

/// An immutable computation graph (docs/architecture.md section 2), built and validated by GraphBuilder.
///
/// Nodes are stored in a topological order with every input and parameter first, so that the operation
/// nodes (the paper's V) occupy the contiguous range [firstOp(), size()) and OpIndex i is NodeId
/// firstOp() + i. The edge structure is also kept as a Boost.Graph (see BoostTopology.hpp) for
/// algorithms that want it; hot paths use the compressed adjacency arrays below.
class ComputeGraph {
 public:
  /// Number of nodes of every kind.
  [[nodiscard]] std::size_t size() const { return m_nodes.size(); }
  /// Number of operation nodes, |V|.
  [[nodiscard]] std::size_t opCount() const { return m_nodes.size() - m_firstOp; }
  /// Number of distinct (producer, consumer) edges.
  [[nodiscard]] std::size_t edgeCount() const { return m_succ.size(); }

  [[nodiscard]] const Node& node(NodeId id) const { return m_nodes[id.value]; }
  [[nodiscard]] const std::vector<Node>& nodes() const { return m_nodes; }
  [[nodiscard]] bool isOp(NodeId id) const { return id.value >= m_firstOp; }
  [[nodiscard]] std::uint32_t firstOp() const { return m_firstOp; }
  [[nodiscard]] NodeId opNode(OpIndex i) const { return NodeId{m_firstOp + i.value}; }
  [[nodiscard]] OpIndex opIndex(NodeId id) const { return OpIndex{id.value - m_firstOp}; }

  /// Distinct consumers of a node, ascending.
  [[nodiscard]] std::span<const NodeId> successors(NodeId id) const {
    return {m_succ.data() + m_succOffsets[id.value], m_succ.data() + m_succOffsets[id.value + 1]};
  }
  /// Distinct operation-node producers among a node's inputs, ascending (inputs and params left out).
  [[nodiscard]] std::span<const NodeId> opPredecessors(NodeId id) const {
    return {m_opPred.data() + m_opPredOffsets[id.value], m_opPred.data() + m_opPredOffsets[id.value + 1]};
  }

  /// The node with this name, if any.
  [[nodiscard]] std::optional<NodeId> find(std::string_view name) const;

  /// Operation nodes without consumers (losses and other outputs); a graph may have several.
  [[nodiscard]] const std::vector<NodeId>& outputs() const { return m_outputs; }

  [[nodiscard]] const std::string& name() const { return m_name; }
  /// Unit of fwd_time and bwd_time, for example "ticks", "us" or "ms".
  [[nodiscard]] const std::string& timeUnit() const { return m_timeUnit; }
  /// Which cost model filled the times: "paper", "flops", "profiled" or "file".
  [[nodiscard]] const std::string& costModel() const { return m_costModel; }

  /// Whether the graph is computed as given: the file is the whole computation (Moccasin's random
  /// layered graphs, a graph read with ReadOptions::asGiven), and no backward pass is added. Schedules of
  /// such a graph have forwards only; each operation is computed at least once.
  [[nodiscard]] bool asGiven() const { return m_asGiven; }

  /// Pins the graph itself carries (docs/pins.md, "In a graph file"): operations every plan of it is
  /// made under, in the file's order. A graph captured from PyTorch pins `recompute` the values its
  /// in-place writes need as they were (docs/python.md); solvers::graphPins turns them into Pins.
  [[nodiscard]] const std::vector<NodeId>& pinnedKeep() const { return m_pinnedKeep; }
  [[nodiscard]] const std::vector<NodeId>& pinnedRecompute() const { return m_pinnedRecompute; }

  /// Explicit backward nodes given by the file (Checkmate training graphs); empty otherwise.
  [[nodiscard]] const std::vector<BackwardNode>& explicitBackward() const { return m_backward; }

  /// Memory totals by kind.
  [[nodiscard]] Bytes paramBytes() const { return m_paramBytes; }
  [[nodiscard]] Bytes inputBytes() const { return m_inputBytes; }
  [[nodiscard]] Bytes opBytes() const { return m_opBytes; }
  [[nodiscard]] Ticks totalForwardTime() const { return m_fwdTime; }

  /// The Boost.Graph view of the same edges (vertex i is NodeId i). Defined in BoostTopology.hpp.
  [[nodiscard]] const detail::Topology& topology() const { return *m_topology; }

  /// Same nodes (names, kinds, values, inputs by name), same explicit backward graph and same pins.
  [[nodiscard]] bool sameAs(const ComputeGraph& other) const;

  /// A copy computed as given (asGiven()): the same operations, no explicit backward nodes.
  [[nodiscard]] ComputeGraph computedAsGiven() const;

  /// A copy without the graph's own pins (`--no-graph-pins`).
  [[nodiscard]] ComputeGraph withoutPins() const;

  /// A copy whose per-node fields are replaced by `nodes` (same names, kinds and inputs, same order);
  /// used by cost models to write new times into an otherwise identical graph, in `timeUnit` when
  /// given.
  [[nodiscard]] ComputeGraph withNodes(std::vector<Node> nodes, std::string costModel,
                                       std::optional<std::string> timeUnit = std::nullopt) const;

 private:
  friend class GraphBuilder;
  ComputeGraph() = default;
  void index();

  std::string m_name;
  std::string m_timeUnit = "ticks";
  std::string m_costModel = "file";
  bool m_asGiven = false;
  std::vector<Node> m_nodes;
  std::uint32_t m_firstOp = 0;
  std::vector<std::uint32_t> m_succOffsets;
  std::vector<NodeId> m_succ;
  std::vector<std::uint32_t> m_opPredOffsets;
  std::vector<NodeId> m_opPred;
  std::vector<NodeId> m_outputs;
  std::unordered_map<std::string, NodeId> m_byName;
  std::vector<BackwardNode> m_backward;
  std::vector<NodeId> m_pinnedKeep;
  std::vector<NodeId> m_pinnedRecompute;
  Bytes m_paramBytes{0};
  Bytes m_inputBytes{0};
  Bytes m_opBytes{0};
  Ticks m_fwdTime{0};
  std::shared_ptr<const detail::Topology> m_topology;
};

}  // namespace remat::graph
