#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/graph/Node.hpp"

namespace remat::graph {

/// A node as a reader sees it: inputs by name, so that files may list nodes in any order.
struct NodeSpec {
  std::string name;
  NodeKind kind = NodeKind::Op;
  std::string op;
  std::vector<std::string> inputs;
  std::int64_t bytes = 0;
  std::vector<std::int64_t> shape;
  std::string dtype;
  std::int64_t fwdTime = 0;
  std::int64_t bwdTime = 0;
  Saves saves;
  std::int64_t workspace = 0;
  std::optional<std::int64_t> bwdWorkspace;  ///< absent: the same as workspace
  std::string attrs;
  bool constant = false;  ///< an input or parameter whose value the graph records (Node::constant)
  SourceLocation where;   ///< reported with every problem found in this node
};

/// An explicit backward node as a reader sees it; inputs name forward or backward nodes.
struct BackwardSpec {
  std::string name;
  std::int64_t time = 0;
  std::int64_t bytes = 0;
  std::vector<std::string> inputs;
  std::string gradientOf;  ///< forward node name, or empty
  SourceLocation where;
};

/// A pin the file carries (ComputeGraph::pinnedKeep, pinnedRecompute) as a reader sees it: by name.
struct PinSpec {
  std::string name;
  bool keep = false;  ///< keep, else recompute
  SourceLocation where;
};

/// Collects nodes and builds a validated, immutable ComputeGraph. Every problem is reported with the
/// location of the node that has it: duplicate or empty ids, unknown inputs, cycles (with the cycle's
/// nodes), negative sizes and times, totals over kMaxGraphTotal (2^60), saves that point past the inputs,
/// inputs or parameters that have operands, and a graph without operations.
class GraphBuilder {
 public:
  void setName(std::string name) { m_name = std::move(name); }
  void setTimeUnit(std::string unit) { m_timeUnit = std::move(unit); }
  void setCostModel(std::string model) { m_costModel = std::move(model); }
  /// The graph is the whole computation, with no backward pass (ComputeGraph::asGiven); no explicit
  /// backward nodes may be added then.
  void setAsGiven(bool asGiven) { m_asGiven = asGiven; }

  void add(NodeSpec spec) { m_specs.push_back(std::move(spec)); }
  void addBackward(BackwardSpec spec) { m_backward.push_back(std::move(spec)); }
  /// A pin the graph carries; its name must be an operation of the graph, pinned one way only (a
  /// repeat of the same pin is dropped).
  void addPin(PinSpec spec) { m_pins.push_back(std::move(spec)); }

  /// Where to point when the graph as a whole is wrong (empty, overflowing totals).
  void setSource(SourceLocation where) { m_source = std::move(where); }

  [[nodiscard]] std::size_t size() const { return m_specs.size(); }

  /// Validates and builds. Consumes the builder's contents.
  [[nodiscard]] Result<ComputeGraph> build();

 private:
  std::string m_name;
  std::string m_timeUnit = "ticks";
  std::string m_costModel = "file";
  bool m_asGiven = false;
  SourceLocation m_source;
  std::vector<NodeSpec> m_specs;
  std::vector<BackwardSpec> m_backward;
  std::vector<PinSpec> m_pins;
};

}  // namespace remat::graph
