#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remat/graph/NodeId.hpp"
#include "remat/graph/Units.hpp"

namespace remat::graph {

/// What a node is. Inputs (data, labels) and parameters (weights) are never recomputed and are resident
/// for the whole step; operations are the paper's vertex set V.
enum class NodeKind : std::uint8_t { Input, Param, Op };

/// "input", "param" or "op", as the native format spells them.
[[nodiscard]] constexpr const char* nodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::Input: return "input";
    case NodeKind::Param: return "param";
    case NodeKind::Op: return "op";
  }
  return "op";
}

/// What an operation's backward needs: the values of some of its inputs (by position in `inputs`) and
/// possibly its own output. ReLU keeps only its output, Add keeps nothing, a convolution keeps its inputs.
struct Saves {
  std::vector<std::uint32_t> inputs;  ///< positions into Node::inputs, ascending, no duplicates
  bool output = false;

  bool operator==(const Saves&) const = default;
};

/// A tensor and the operation that produces it (docs/architecture.md section 2).
struct Node {
  std::string name;  ///< the id in the file; unique within a graph
  NodeKind kind = NodeKind::Op;
  std::string op;              ///< operation type (`Conv`, `Relu`, ...); empty for inputs and params
  std::vector<NodeId> inputs;  ///< ordered operands; may repeat a node (x * x)
  Bytes bytes{0};              ///< M_v, the output size
  std::vector<std::int64_t> shape;
  std::string dtype;
  Ticks fwdTime{0};  ///< T_v
  Ticks bwdTime{0};
  Saves saves;
  Bytes workspace{0};     ///< transient scratch memory while the op's forward (or a recomputation) runs
  Bytes bwdWorkspace{0};  ///< transient scratch memory while its backward runs
  std::string attrs;      ///< operation attributes as JSON object text; empty when none
  /// An input or parameter whose value the graph records (`attrs.value`: an exponent, a fill value, an
  /// index from the ONNX import): a constant of the program, never differentiated.
  bool constant = false;

  /// Whether the backward makes a gradient for this node when it is an operand: a parameter that is
  /// not a constant and not of an integer or boolean type (which, as in PyTorch, have none).
  [[nodiscard]] bool hasGradient() const {
    if (kind != NodeKind::Param || constant) return false;
    for (const char* discrete : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
      if (dtype == discrete) return false;
    return true;
  }

  bool operator==(const Node&) const = default;
};

/// Where a node's explicit backward node reads from (Checkmate's training graphs).
struct BackwardRef {
  enum class Side : std::uint8_t { Forward, Backward };
  Side side = Side::Forward;
  std::uint32_t index = 0;  ///< NodeId value for Forward, position in ExplicitBackward::nodes for Backward

  bool operator==(const BackwardRef&) const = default;
};

/// A backward operation given explicitly by the file (Checkmate's `backward: true` nodes), kept so that
/// solvers working on the full training graph (the MILP) see exactly what the file said.
struct BackwardNode {
  std::string name;
  Ticks time{0};
  Bytes bytes{0};
  std::vector<BackwardRef> inputs;
  NodeId gradientOf;  ///< the forward node whose backward this is, when the file says so

  bool operator==(const BackwardNode&) const = default;
};

}  // namespace remat::graph
