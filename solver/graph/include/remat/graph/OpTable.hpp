#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/graph/Node.hpp"

namespace remat::graph {

/// How an operation's forward cost grows with its tensors (the `flops` cost model).
enum class FlopsRule : std::uint8_t {
  None,           ///< no arithmetic: copies, views, indexing (only bytes move)
  PerOutput,      ///< `perElement` operations per output element (elementwise, activations)
  PerInput,       ///< `perElement` per element of the first input (reductions, pooling, losses)
  Convolution,    ///< 2 * |output| * |W| / W.shape[0]: each output element is a dot product over Cin/g x kernel
  ConvTranspose,  ///< 2 * |X| * |W| / W.shape[0]: each input element scatters into Cout/g x kernel outputs
  MatMul,         ///< 2 * |output| * K, K the last dimension of the first operand (Gemm: |A| / M)
  Einsum,         ///< the iterations of the equation's loop nest (einsumShapes), twice with two operands or more
};

/// What Remat knows about one operation type (ONNX spelling). Positions refer to the operation's
/// inputs as the ONNX node lists them.
struct OpSpec {
  std::string_view type;
  /// Inputs whose values the backward retains, following PyTorch's autograd (a convolution keeps its
  /// input and weight, ReLU only its output, Add nothing).
  std::vector<std::uint32_t> savesInputs;
  bool savesOutput = false;
  /// Backward time over forward time: 2 where the backward computes two products of the forward's
  /// size (input and weight gradients), 1 for elementwise operations, 0 for views.
  double backwardFactor = 1.0;
  FlopsRule flops = FlopsRule::PerOutput;
  double perElement = 1.0;
  /// The output aliases the first input's storage in the framework (reshape, flatten, squeeze,
  /// transpose): it adds no bytes.
  bool view = false;
  /// Whether a gradient flows into the output: false for `Saved`, the tensors an operation keeps of its
  /// own for its backward (max-pool's indices, dropout's mask), which `remat.torch.capture` writes as a
  /// node of their own so that they are held from the forward to the backward.
  bool differentiable = true;
  /// Inputs that hold weights when a graph input or initializer feeds them (imported as `param`).
  std::vector<std::uint32_t> weightInputs;
  /// Inputs that only carry shapes, axes, indices of slicing or scales: they are not tensors of the
  /// training step and are left out of the graph.
  std::vector<std::uint32_t> shapeInputs;
};

/// The spec of an operation type; nullptr when the table does not know it.
[[nodiscard]] const OpSpec* findOpSpec(std::string_view type);

/// Every operation type in the table, in table order.
[[nodiscard]] std::vector<std::string_view> knownOpTypes();

/// What the import uses for an operation the table does not know, and says so in a warning: it keeps
/// every input and its output for the backward, a backward as long as the forward, and one operation
/// per output element. Conservative: no plan counts on it being cheaper than it is.
[[nodiscard]] const OpSpec& unknownOpSpec();

/// Bytes of one element of an ONNX / PyTorch dtype name ("float32", "float16", "int64", ...); nullopt
/// for names it does not know.
[[nodiscard]] std::optional<std::int64_t> dtypeBytes(std::string_view dtype);

/// The forward work of node v: floating-point operations and bytes moved (inputs read, output
/// written), from the op table and the shapes the graph holds. Shapes that are missing count as
/// empty tensors, so a graph without shapes has zero work.
struct OpWork {
  double flops = 0;
  double bytes = 0;
};
[[nodiscard]] OpWork opWork(const ComputeGraph& g, NodeId v);

/// A device of the `flops` cost model: roofline peaks and a fixed cost per operation.
struct DeviceProfile {
  std::string_view name;
  std::string_view description;
  double fp32Flops;  ///< peak FLOP/s for float32
  double halfFlops;  ///< peak FLOP/s for float16 / bfloat16 (tensor cores where the device has them)
  double bandwidth;  ///< bytes/s of main memory
  double launchNs;   ///< fixed cost per operation (kernel launch, dispatch), in nanoseconds
};

/// The device profiles, the default (`a100`) first.
[[nodiscard]] std::span<const DeviceProfile> deviceProfiles();
[[nodiscard]] const DeviceProfile* findDeviceProfile(std::string_view name);

/// Forward time of node v on the device in nanoseconds (at least 1): the launch cost plus the larger
/// of compute time and memory time.
[[nodiscard]] std::int64_t rooflineNs(const ComputeGraph& g, NodeId v, const DeviceProfile& device);

}  // namespace remat::graph
