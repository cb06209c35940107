#include "remat/graph/OpTable.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "remat/graph/Einsum.hpp"

namespace remat::graph {
namespace {

using R = FlopsRule;

// One row per ONNX operation type. savesInputs / savesOutput follow what PyTorch's autograd keeps for
// the operation's backward; where the framework keeps a hidden tensor (max-pool's indices, dropout's
// mask, normalisation statistics) the row keeps the tensor that stands for it (docs/formats.md says
// which). perElement counts the arithmetic of one output (or input) element.
const std::vector<OpSpec>& table() {
  static const std::vector<OpSpec> kTable = [] {
    std::vector<OpSpec> t;
    auto add = [&t](OpSpec s) { t.push_back(std::move(s)); };
    // Products: keep both operands; the backward computes the input and the weight gradient.
    add({.type = "Conv", .savesInputs = {0, 1}, .backwardFactor = 2, .flops = R::Convolution, .weightInputs = {1, 2}});
    add({.type = "ConvTranspose",
         .savesInputs = {0, 1},
         .backwardFactor = 2,
         .flops = R::ConvTranspose,
         .weightInputs = {1, 2}});
    add({.type = "Gemm", .savesInputs = {0, 1}, .backwardFactor = 2, .flops = R::MatMul, .weightInputs = {1, 2}});
    add({.type = "MatMul", .savesInputs = {0, 1}, .backwardFactor = 2, .flops = R::MatMul, .weightInputs = {1}});
    // PyTorch evaluates an einsum as permutes and batched products, whose backward keeps every operand.
    add({.type = "Einsum", .savesInputs = {0, 1, 2, 3}, .backwardFactor = 2, .flops = R::Einsum});
    // Normalisations keep their input and scale (their per-channel statistics are small).
    add({.type = "BatchNormalization",
         .savesInputs = {0, 1},
         .backwardFactor = 2,
         .perElement = 5,
         .weightInputs = {1, 2, 3, 4}});
    add({.type = "LayerNormalization",
         .savesInputs = {0, 1},
         .backwardFactor = 2,
         .perElement = 8,
         .weightInputs = {1, 2}});
    add({.type = "InstanceNormalization",
         .savesInputs = {0, 1},
         .backwardFactor = 2,
         .perElement = 5,
         .weightInputs = {1, 2}});
    // Activations: those whose derivative follows from the output keep the output.
    add({.type = "Relu", .savesOutput = true});
    add({.type = "LeakyRelu", .savesInputs = {0}});
    add({.type = "Sigmoid", .savesOutput = true, .perElement = 4});
    add({.type = "Tanh", .savesOutput = true, .perElement = 4});
    add({.type = "Gelu", .savesInputs = {0}, .backwardFactor = 1.5, .perElement = 8});
    add({.type = "Erf", .savesInputs = {0}, .perElement = 8});
    add({.type = "Softmax", .savesOutput = true, .perElement = 5});
    add({.type = "LogSoftmax", .savesOutput = true, .perElement = 5});
    add({.type = "Exp", .savesOutput = true, .perElement = 4});
    add({.type = "Sqrt", .savesOutput = true, .perElement = 4});
    add({.type = "Clip", .savesInputs = {0}, .shapeInputs = {1, 2}});
    add({.type = "HardSigmoid", .savesInputs = {0}});
    add({.type = "HardSwish", .savesInputs = {0}, .perElement = 4});
    // Arithmetic: a sum's gradient passes through; a product needs the other factor.
    add({.type = "Add", .weightInputs = {1}});
    add({.type = "Sub", .weightInputs = {1}});
    add({.type = "Mul", .savesInputs = {0, 1}, .weightInputs = {1}});
    add({.type = "Div", .savesInputs = {0, 1}, .backwardFactor = 2});
    add({.type = "Pow", .savesInputs = {0, 1}, .savesOutput = true, .backwardFactor = 2, .perElement = 4});
    add({.type = "Neg", .savesInputs = {}});
    add({.type = "Where", .savesInputs = {0}});
    // Layout: copies without arithmetic, and views that alias their input.
    add({.type = "Concat", .flops = R::None});
    add({.type = "Split", .flops = R::None, .shapeInputs = {1}});
    add({.type = "Slice", .flops = R::None, .shapeInputs = {1, 2, 3, 4}});
    add({.type = "Pad", .flops = R::None, .shapeInputs = {1, 2, 3}});
    add({.type = "Expand", .flops = R::None, .shapeInputs = {1}});
    add({.type = "Tile", .flops = R::None, .shapeInputs = {1}});
    add({.type = "Reshape", .backwardFactor = 0, .flops = R::None, .view = true, .shapeInputs = {1}});
    add({.type = "Flatten", .backwardFactor = 0, .flops = R::None, .view = true});
    add({.type = "Squeeze", .backwardFactor = 0, .flops = R::None, .view = true, .shapeInputs = {1}});
    add({.type = "Unsqueeze", .backwardFactor = 0, .flops = R::None, .view = true, .shapeInputs = {1}});
    add({.type = "Transpose", .backwardFactor = 0, .flops = R::None, .view = true});
    add({.type = "Identity", .backwardFactor = 0, .flops = R::None, .view = true});
    add({.type = "Cast", .flops = R::None});
    // What an operation's backward keeps of its own (remat.torch.capture): made by that operation's
    // forward, whose time it carries, read by its backward, never differentiated.
    add({.type = "Saved", .backwardFactor = 0, .flops = R::None, .differentiable = false});
    // Pooling and resampling: max-pool keeps its input and, for its indices, its output.
    add({.type = "MaxPool", .savesInputs = {0}, .savesOutput = true, .flops = R::PerInput});
    add({.type = "AveragePool", .flops = R::PerInput});
    add({.type = "GlobalAveragePool", .flops = R::PerInput});
    add({.type = "GlobalMaxPool", .savesInputs = {0}, .savesOutput = true, .flops = R::PerInput});
    add({.type = "Resize", .perElement = 4, .shapeInputs = {1, 2, 3}});
    add({.type = "Upsample", .perElement = 4, .shapeInputs = {1}});
    // Dropout keeps its mask, for which the output stands (the mask is its non-zero pattern).
    add({.type = "Dropout", .savesOutput = true, .shapeInputs = {1, 2}});
    // Reductions and indexing.
    add({.type = "ReduceMean", .flops = R::PerInput, .shapeInputs = {1}});
    add({.type = "ReduceSum", .flops = R::PerInput, .shapeInputs = {1}});
    add({.type = "ReduceMax", .savesInputs = {0}, .savesOutput = true, .flops = R::PerInput, .shapeInputs = {1}});
    add({.type = "Gather", .savesInputs = {1}, .flops = R::None, .weightInputs = {0}});
    // Losses: softmax cross-entropy keeps its log-probabilities (stood for by the logits) and labels.
    add({.type = "SoftmaxCrossEntropyLoss",
         .savesInputs = {0, 1},
         .flops = R::PerInput,
         .perElement = 6,
         .weightInputs = {2}});
    add({.type = "NegativeLogLikelihoodLoss", .savesInputs = {1}, .flops = R::PerInput, .weightInputs = {2}});
    return t;
  }();
  return kTable;
}

double elements(const std::vector<std::int64_t>& shape) {
  double n = 1;
  for (std::int64_t d : shape) n *= double(std::max<std::int64_t>(d, 0));
  return n;
}

}  // namespace

const OpSpec* findOpSpec(std::string_view type) {
  const auto& t = table();
  auto it = std::find_if(t.begin(), t.end(), [&](const OpSpec& s) { return s.type == type; });
  return it == t.end() ? nullptr : &*it;
}

std::vector<std::string_view> knownOpTypes() {
  std::vector<std::string_view> out;
  for (const auto& s : table()) out.push_back(s.type);
  return out;
}

const OpSpec& unknownOpSpec() {
  static const OpSpec kUnknown{.type = "", .savesOutput = true};  // inputs: all, filled in by the reader
  return kUnknown;
}

std::optional<std::int64_t> dtypeBytes(std::string_view dtype) {
  struct Entry {
    std::string_view name;
    std::int64_t bytes;
  };
  static constexpr std::array<Entry, 16> kSizes{{{"float32", 4},
                                                 {"float", 4},
                                                 {"float16", 2},
                                                 {"half", 2},
                                                 {"bfloat16", 2},
                                                 {"float64", 8},
                                                 {"double", 8},
                                                 {"int64", 8},
                                                 {"int32", 4},
                                                 {"int16", 2},
                                                 {"int8", 1},
                                                 {"uint8", 1},
                                                 {"bool", 1},
                                                 {"uint16", 2},
                                                 {"uint32", 4},
                                                 {"uint64", 8}}};
  for (const auto& e : kSizes)
    if (e.name == dtype) return e.bytes;
  return std::nullopt;
}

OpWork opWork(const ComputeGraph& g, NodeId v) {
  const Node& n = g.node(v);
  OpWork w;
  if (n.kind != NodeKind::Op) return w;
  const OpSpec* spec = findOpSpec(n.op);
  const OpSpec& s = spec ? *spec : unknownOpSpec();
  const double out = elements(n.shape);
  double in0 = 0;
  double readBytes = 0;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const Node& input = g.node(n.inputs[k]);
    if (k == 0) in0 = elements(input.shape);
    readBytes += double(input.bytes.value);
  }
  if (s.view && n.bytes.value == 0) return w;  // an alias: no data moves
  // A layout operation with bytes of its own copies its operand (a reshape of a transposed tensor); its
  // operand may be a zero-byte view, so the copy reads as many bytes as it writes.
  w.bytes = s.view ? 2.0 * double(n.bytes.value) : readBytes + double(n.bytes.value);
  auto inputShape = [&](std::size_t k) -> const std::vector<std::int64_t>* {
    return k < n.inputs.size() ? &g.node(n.inputs[k]).shape : nullptr;
  };
  switch (s.flops) {
    case FlopsRule::None: break;
    case FlopsRule::PerOutput: w.flops = s.perElement * out; break;
    case FlopsRule::PerInput: w.flops = s.perElement * in0; break;
    case FlopsRule::Convolution:
    case FlopsRule::ConvTranspose: {
      const auto* weight = inputShape(1);
      if (!weight || weight->empty() || (*weight)[0] <= 0) break;
      const double perOut = elements(*weight) / double((*weight)[0]);  // Cin/g x kernel, or Cout/g x kernel
      w.flops = 2 * (s.flops == FlopsRule::Convolution ? out : in0) * perOut;
      break;
    }
    case FlopsRule::Einsum: {
      // The equation is an attribute (attrs: JSON object text); without one that fits, as elementwise.
      const auto attrs = nlohmann::json::parse(n.attrs, nullptr, false);
      const auto eq = attrs.is_object() ? attrs.find("equation") : attrs.end();
      std::vector<std::vector<std::int64_t>> shapes;
      for (NodeId u : n.inputs) shapes.push_back(g.node(u).shape);
      const EinsumShapes e = eq != attrs.end() && eq->is_string() ? einsumShapes(eq->get<std::string>(), shapes)
                                                                  : EinsumShapes{.error = "no equation"};
      w.flops = !e.error.empty() ? out : (n.inputs.size() > 1 ? 2 : 1) * e.iterations;
      break;
    }
    case FlopsRule::MatMul: {
      const auto* a = inputShape(0);
      if (!a || a->empty()) break;
      // MatMul: K is A's last dimension; Gemm's A is M x K or K x M, so K = |A| / M with M = out rows.
      double k = double(a->back());
      if (n.op == "Gemm" && !n.shape.empty() && n.shape[0] > 0) k = elements(*a) / double(n.shape[0]);
      w.flops = 2 * out * k;
      break;
    }
  }
  return w;
}

std::span<const DeviceProfile> deviceProfiles() {
  // Vendor peak figures (dense, no sparsity); the launch cost is a typical kernel launch on a GPU and
  // a typical operator dispatch on a CPU.
  static constexpr std::array<DeviceProfile, 4> kProfiles{{
      {"a100", "NVIDIA A100 SXM4 80GB: 19.5 TFLOP/s fp32, 312 TFLOP/s bf16 tensor, 2.04 TB/s", 19.5e12, 312e12,
       2.039e12, 5000},
      {"h100", "NVIDIA H100 SXM5: 67 TFLOP/s fp32, 989 TFLOP/s bf16 tensor, 3.35 TB/s", 66.9e12, 989e12, 3.35e12, 4000},
      {"v100", "NVIDIA V100 SXM2: 15.7 TFLOP/s fp32, 125 TFLOP/s fp16 tensor, 900 GB/s", 15.7e12, 125e12, 0.9e12, 5000},
      {"cpu-generic", "a server CPU socket: 2 TFLOP/s fp32 (AVX-512 FMA), 4 TFLOP/s bf16, 200 GB/s", 2e12, 4e12, 0.2e12,
       1000},
  }};
  return kProfiles;
}

const DeviceProfile* findDeviceProfile(std::string_view name) {
  for (const auto& p : deviceProfiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::int64_t rooflineNs(const ComputeGraph& g, NodeId v, const DeviceProfile& device) {
  const OpSpec* spec = findOpSpec(g.node(v).op);
  if (spec && spec->view && g.node(v).bytes.value == 0) return 1;  // an alias launches nothing
  const OpWork w = opWork(g, v);
  const std::string& dtype = g.node(v).dtype;
  const double peak = dtype == "float16" || dtype == "bfloat16" ? device.halfFlops : device.fp32Flops;
  const double seconds = std::max(w.flops / peak, w.bytes / device.bandwidth);
  const double ns = device.launchNs + seconds * 1e9;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(ns)));
}

}  // namespace remat::graph
