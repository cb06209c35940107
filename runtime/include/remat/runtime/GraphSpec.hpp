#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace remat::runtime {

enum class NodeKind { Input, Param, Op };

/// One node of a native graph JSON, with only what the runner needs (docs/formats.md).
struct NodeSpec {
  std::string id;
  NodeKind kind = NodeKind::Op;
  std::string op;                   ///< operation type (ONNX name), op nodes only
  std::vector<std::size_t> inputs;  ///< indices into GraphSpec::nodes, in operand order
  std::int64_t bytes = 0;           ///< the size the simulator counts
  std::vector<std::int64_t> shape;  ///< empty: a scalar
  std::string dtype = "float32";
  std::vector<std::uint32_t> savesInputs;
  bool savesOutput = false;
  std::int64_t workspace = 0;
  nlohmann::json attrs = nlohmann::json::object();
  /// A constant's elements, row-major (`attrs.value` of an input or param node, as the ONNX importer
  /// records small constants: an exponent, a fill value, an index); empty: drawn at random.
  std::vector<double> value;

  [[nodiscard]] std::int64_t elements() const;
  /// Bytes of shape x dtype (what a dense tensor of this node occupies).
  [[nodiscard]] std::int64_t denseBytes() const;
  /// An op node the graph counts as zero bytes although its shape is not empty: a view that aliases
  /// its operand's storage (Reshape, Transpose, ... as the ONNX importer writes them).
  [[nodiscard]] bool isAliasView() const { return kind == NodeKind::Op && bytes == 0 && denseBytes() > 0; }
  /// A parameter the backward differentiates: not a constant and of a floating-point type (the
  /// simulator's Node::hasGradient).
  [[nodiscard]] bool hasGradient() const;
};

/// A native graph JSON (`"format": "remat-graph"`) as the runner sees it. Node indices follow the file;
/// `topoOps` is a topological order of the op nodes (the file's order where it is one).
struct GraphSpec {
  std::string file;
  std::string name;
  std::vector<NodeSpec> nodes;
  std::unordered_map<std::string, std::size_t> byId;
  std::vector<std::size_t> topoOps;
  std::vector<std::vector<std::size_t>> successors;      ///< distinct consumers, ascending index
  std::vector<std::vector<std::size_t>> opPredecessors;  ///< distinct op-node operands, ascending index
  std::vector<std::vector<std::size_t>> paramInputs;     ///< distinct param operands, ascending index

  [[nodiscard]] std::optional<std::size_t> find(std::string_view id) const;
  [[nodiscard]] const NodeSpec& node(std::size_t i) const { return nodes[i]; }
  [[nodiscard]] bool isOp(std::size_t i) const { return nodes[i].kind == NodeKind::Op; }
};

/// Size in bytes of one element of a dtype name ("float32", "int64", "bool", ...); nullopt if unknown.
[[nodiscard]] std::optional<std::int64_t> dtypeSize(std::string_view dtype);

/// Reads a native graph JSON file. Throws RunnerError (ExitCode::Input) with the file and JSON path.
[[nodiscard]] GraphSpec readGraphSpec(const std::string& path);
/// The same from text (`fileName` is used in messages).
[[nodiscard]] GraphSpec parseGraphSpec(std::string_view text, const std::string& fileName);

/// The most a file remat-runner reads may hold (graphs, plans, play scripts; as remat's own readers).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;
/// Reads a whole file; throws RunnerError (ExitCode::Input) when it cannot or when it holds more than
/// maxBytes (read in blocks, so /dev/zero is refused too).
[[nodiscard]] std::string readTextFile(const std::string& path, std::size_t maxBytes = kMaxInputFileBytes);

}  // namespace remat::runtime
