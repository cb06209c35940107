#include "Ops.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ExpandUtils.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace remat::runtime::detail {
namespace {

using nlohmann::json;
using Shape = std::vector<std::int64_t>;

// An attribute the runner cannot execute; unsupportedReason turns it into a message before any run.
struct AttrError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const NodeSpec& nodeOf(const GraphSpec& g, std::size_t v) { return g.node(v); }
const Shape& inputShape(const GraphSpec& g, std::size_t v, std::size_t k) { return g.node(g.node(v).inputs[k]).shape; }
std::size_t operandCount(const GraphSpec& g, std::size_t v) { return g.node(v).inputs.size(); }

std::int64_t attrInt(const NodeSpec& n, const char* key, std::int64_t fallback) {
  if (!n.attrs.contains(key)) return fallback;
  const json& a = n.attrs[key];
  if (!a.is_number_integer()) throw AttrError(std::string("attribute '") + key + "' is not an integer");
  return a.get<std::int64_t>();
}

double attrFloat(const NodeSpec& n, const char* key, double fallback) {
  if (!n.attrs.contains(key)) return fallback;
  const json& a = n.attrs[key];
  if (!a.is_number()) throw AttrError(std::string("attribute '") + key + "' is not a number");
  return a.get<double>();
}

std::string attrString(const NodeSpec& n, const char* key, const std::string& fallback) {
  if (!n.attrs.contains(key)) return fallback;
  const json& a = n.attrs[key];
  if (!a.is_string()) throw AttrError(std::string("attribute '") + key + "' is not a string");
  return a.get<std::string>();
}

std::optional<Shape> attrInts(const NodeSpec& n, const char* key) {
  if (!n.attrs.contains(key)) return std::nullopt;
  const json& a = n.attrs[key];
  if (!a.is_array()) throw AttrError(std::string("attribute '") + key + "' is not a list of integers");
  Shape out;
  for (const json& x : a) {
    if (!x.is_number_integer()) throw AttrError(std::string("attribute '") + key + "' is not a list of integers");
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= std::max<std::int64_t>(r, 1))
    throw AttrError("axis " + std::to_string(axis) + " is out of range");
  return axis < 0 ? axis + r : axis;
}

// ---- windows (Conv, MaxPool): ONNX pads are [begin..., end...]; ATen takes one symmetric pad per axis.
struct Window {
  Shape kernel, stride, padding, dilation;
};

Window windowAttrs(const GraphSpec& g, std::size_t v, bool needKernel) {
  const NodeSpec& n = nodeOf(g, v);
  const Shape& x = inputShape(g, v, 0);
  if (x.size() < 3) throw AttrError("expects an input of rank 3 or more");
  const std::size_t spatial = x.size() - 2;
  Window w;
  if (auto k = attrInts(n, "kernel_shape"))
    w.kernel = *k;
  else if (needKernel)
    throw AttrError("attribute 'kernel_shape' is missing");
  w.stride = attrInts(n, "strides").value_or(Shape(spatial, 1));
  w.dilation = attrInts(n, "dilations").value_or(Shape(spatial, 1));
  const Shape pads = attrInts(n, "pads").value_or(Shape(2 * spatial, 0));
  const std::string autoPad = attrString(n, "auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID") throw AttrError("auto_pad " + autoPad + " is not supported");
  if (w.stride.size() != spatial || w.dilation.size() != spatial || pads.size() != 2 * spatial ||
      (needKernel && w.kernel.size() != spatial))
    throw AttrError("window attributes do not match the input rank");
  for (std::size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) throw AttrError("asymmetric pads are not supported");
    w.padding.push_back(pads[i]);
  }
  return w;
}

// ---- kernels

using ForwardFn = std::function<at::Tensor(const ForwardCall&)>;
using BackwardFn = std::function<std::vector<at::Tensor>(const BackwardCall&)>;
using CheckFn = std::function<void(const GraphSpec&, std::size_t)>;  // throws AttrError

struct Kernel {
  std::size_t minOperands = 1;
  std::size_t maxOperands = 1;
  std::vector<std::size_t> needsInputs;  ///< operand positions the backward reads
  bool needsOutput = false;
  bool needsAllInputs = false;  ///< the backward re-runs the forward under autograd (needs every operand)
  ForwardFn forward;
  BackwardFn backward;  ///< empty: autograd on the single operation
  CheckFn check;
};

const std::unordered_map<std::string, Kernel>& kernels();

// The backward through LibTorch's autograd on this one operation: the saved operands become fresh
// leaves, the forward runs again inside the step and autograd differentiates it. Nothing outlives the
// call: the recorded graph and the recomputed output are temporaries of the step (workspace).
std::vector<at::Tensor> autogradBackward(const BackwardCall& c) {
  const Kernel& k = kernels().at(c.graph.node(c.node).op);
  at::AutoGradMode enable(true);
  std::vector<at::Tensor> leaves(c.inputs.size());
  std::vector<at::Tensor> wrt;
  std::vector<std::size_t> positions;
  for (std::size_t p = 0; p < c.inputs.size(); ++p) {
    if (!c.inputs[p].defined()) throw std::logic_error("autograd backward without operand " + std::to_string(p));
    leaves[p] = c.inputs[p].detach();
    if (c.needGrad[p] && at::isFloatingType(leaves[p].scalar_type())) {
      leaves[p].requires_grad_(true);
      wrt.push_back(leaves[p]);
      positions.push_back(p);
    }
  }
  std::vector<at::Tensor> out(c.inputs.size());
  if (wrt.empty()) return out;
  at::Tensor y = k.forward(ForwardCall{c.graph, c.node, leaves, c.seed});
  auto grads =
      torch::autograd::grad({y}, wrt, {c.grad}, /*retain_graph=*/false, /*create_graph=*/false, /*allow_unused=*/true);
  for (std::size_t i = 0; i < positions.size(); ++i) out[positions[i]] = grads[i];
  return out;
}

at::Tensor sumTo(const at::Tensor& t, const Shape& shape) { return at::sum_to(t, at::IntArrayRef(shape)); }

// Split: the offset of this output along the axis. Outputs after the first carry `onnx_output`; the
// sizes of the earlier outputs come from the sibling nodes (same ONNX node), else from the `split`
// attribute, else the parts are equal (ONNX's default).
std::int64_t splitOffset(const GraphSpec& g, std::size_t v, std::int64_t axis) {
  const NodeSpec& n = g.node(v);
  const std::int64_t index = attrInt(n, "onnx_output", 0);
  if (auto split = attrInts(n, "split")) {
    if (index >= static_cast<std::int64_t>(split->size())) throw AttrError("'split' has no entry for this output");
    return std::accumulate(split->begin(), split->begin() + index, std::int64_t{0});
  }
  const std::string onnxNode = attrString(n, "onnx_node", "");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(index), -1);
  for (std::size_t w : g.successors[n.inputs[0]]) {
    const NodeSpec& s = g.node(w);
    if (s.op != "Split" || attrString(s, "onnx_node", "") != onnxNode || onnxNode.empty()) continue;
    const std::int64_t j = attrInt(s, "onnx_output", 0);
    if (j < index) sizes[static_cast<std::size_t>(j)] = s.shape.at(static_cast<std::size_t>(axis));
  }
  std::int64_t offset = 0;
  for (std::int64_t s : sizes) {
    if (s < 0) return index * n.shape.at(static_cast<std::size_t>(axis));  // an unused earlier part: equal parts
    offset += s;
  }
  return offset;
}

at::ScalarType onnxType(std::int64_t t) {
  switch (t) {
    case 1: return at::kFloat;
    case 2: return at::kByte;
    case 3: return at::kChar;
    case 5: return at::kShort;
    case 6: return at::kInt;
    case 7: return at::kLong;
    case 9: return at::kBool;
    case 10: return at::kHalf;
    case 11: return at::kDouble;
    case 16: return at::kBFloat16;
    default: throw AttrError("Cast to ONNX type " + std::to_string(t) + " is not supported");
  }
}

// Reduction backward: spread the gradient over the reduced axes, divided by their size for a mean.
at::Tensor spread(const at::Tensor& grad, const Shape& in, const Shape& axes, bool mean) {
  Shape kept = in;
  std::int64_t count = 1;
  for (std::int64_t a : axes) {
    count *= in[static_cast<std::size_t>(a)];
    kept[static_cast<std::size_t>(a)] = 1;
  }
  at::Tensor g = grad.reshape(kept).expand(in);
  return mean ? at::div(g, static_cast<double>(count)) : g.contiguous();
}

// ONNX Slice along one axis: the kept indices, and whether they are one run (step 1: a narrow).
struct SliceAxis {
  std::int64_t axis = 0;
  std::int64_t step = 1;
  std::vector<std::int64_t> index;
};

// The axes of a Slice node from the operands the importer records as attributes (`starts`, `ends`,
// optional `axes` and `steps`), with ONNX's rules: negative positions count from the end, positions
// are clamped to the axis, a negative step walks backwards. The kept counts must give the graph's shape.
std::vector<SliceAxis> sliceAxes(const GraphSpec& g, std::size_t v) {
  const NodeSpec& n = g.node(v);
  const Shape& in = inputShape(g, v, 0);
  const auto starts = attrInts(n, "starts");
  const auto ends = attrInts(n, "ends");
  if (!starts || !ends)
    throw AttrError("its 'starts' and 'ends' are not recorded (convert the model again with this version of remat)");
  Shape axes = attrInts(n, "axes").value_or(Shape{});
  if (axes.empty())
    for (std::size_t a = 0; a < starts->size(); ++a) axes.push_back(static_cast<std::int64_t>(a));
  const Shape steps = attrInts(n, "steps").value_or(Shape(starts->size(), 1));
  if (ends->size() != starts->size() || axes.size() != starts->size() || steps.size() != starts->size())
    throw AttrError("'starts', 'ends', 'axes' and 'steps' differ in length");
  Shape out = in;
  std::vector<SliceAxis> result;
  for (std::size_t k = 0; k < starts->size(); ++k) {
    SliceAxis s{.axis = normalizeAxis(axes[k], in.size()), .step = steps[k], .index = {}};
    const std::int64_t dim = in[static_cast<std::size_t>(s.axis)];
    if (s.step == 0) throw AttrError("a step of 0");
    auto clamp = [dim](std::int64_t x, std::int64_t low, std::int64_t high) {
      if (x < 0) x += dim;
      return std::clamp(x, low, high);
    };
    const std::int64_t begin = s.step > 0 ? clamp((*starts)[k], 0, dim) : clamp((*starts)[k], 0, dim - 1);
    const std::int64_t end = s.step > 0 ? clamp((*ends)[k], 0, dim) : clamp((*ends)[k], -1, dim - 1);
    for (std::int64_t i = begin; s.step > 0 ? i < end : i > end; i += s.step) s.index.push_back(i);
    out[static_cast<std::size_t>(s.axis)] = static_cast<std::int64_t>(s.index.size());
    result.push_back(std::move(s));
  }
  if (out != n.shape) throw AttrError("its bounds do not give the graph's shape");
  return result;
}

Shape reduceAxes(const GraphSpec& g, std::size_t v) {
  const Shape& in = inputShape(g, v, 0);
  Shape axes;
  if (auto a = attrInts(g.node(v), "axes")) {
    for (std::int64_t x : *a) axes.push_back(normalizeAxis(x, in.size()));
  } else {
    for (std::size_t i = 0; i < in.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  return axes;
}

std::unordered_map<std::string, Kernel> makeKernels() {
  std::unordered_map<std::string, Kernel> k;
  auto in = [](const auto& c, std::size_t p) -> const at::Tensor& { return c.inputs[p]; };
  auto has = [](const auto& c, std::size_t p) { return p < c.inputs.size() && c.inputs[p].defined(); };
  auto need = [](const BackwardCall& c, std::size_t p) { return p < c.needGrad.size() && c.needGrad[p]; };

  // ---- products
  k["Conv"] = Kernel{.minOperands = 2,
                     .maxOperands = 3,
                     .needsInputs = {0, 1},
                     .forward =
                         [=](const ForwardCall& c) {
                           const Window w = windowAttrs(c.graph, c.node, false);
                           const auto groups = attrInt(c.graph.node(c.node), "group", 1);
                           c10::optional<at::Tensor> bias;
                           if (has(c, 2)) bias = in(c, 2);
                           return at::convolution(in(c, 0), in(c, 1), bias, w.stride, w.padding, w.dilation, false,
                                                  Shape(w.stride.size(), 0), groups);
                         },
                     .backward =
                         [=](const BackwardCall& c) {
                           const Window w = windowAttrs(c.graph, c.node, false);
                           const auto groups = attrInt(c.graph.node(c.node), "group", 1);
                           const bool hasBias = operandCount(c.graph, c.node) > 2;
                           const Shape biasShape = hasBias ? inputShape(c.graph, c.node, 2) : Shape{};
                           auto [gx, gw, gb] = at::convolution_backward(
                               c.grad, in(c, 0), in(c, 1),
                               hasBias ? at::OptionalIntArrayRef(biasShape) : at::OptionalIntArrayRef(), w.stride,
                               w.padding, w.dilation, false, Shape(w.stride.size(), 0), groups,
                               {need(c, 0), need(c, 1), hasBias && need(c, 2)});
                           std::vector<at::Tensor> out{gx, gw};
                           if (hasBias) out.push_back(gb);
                           return out;
                         },
                     .check = [](const GraphSpec& g, std::size_t v) { (void)windowAttrs(g, v, false); }};

  k["Gemm"] = Kernel{.minOperands = 2,
                     .maxOperands = 3,
                     .needsInputs = {0, 1},
                     .forward =
                         [=](const ForwardCall& c) {
                           const NodeSpec& n = c.graph.node(c.node);
                           const double alpha = attrFloat(n, "alpha", 1.0), beta = attrFloat(n, "beta", 1.0);
                           const at::Tensor a = attrInt(n, "transA", 0) ? in(c, 0).t() : in(c, 0);
                           const at::Tensor b = attrInt(n, "transB", 0) ? in(c, 1).t() : in(c, 1);
                           if (has(c, 2)) return at::addmm(in(c, 2), a, b, beta, alpha);
                           at::Tensor y = at::mm(a, b);
                           return alpha == 1.0 ? y : at::mul(y, alpha);
                         },
                     .backward =
                         [=](const BackwardCall& c) {
                           const NodeSpec& n = c.graph.node(c.node);
                           const double alpha = attrFloat(n, "alpha", 1.0), beta = attrFloat(n, "beta", 1.0);
                           const bool ta = attrInt(n, "transA", 0) != 0, tb = attrInt(n, "transB", 0) != 0;
                           const at::Tensor a = ta ? in(c, 0).t() : in(c, 0);
                           const at::Tensor b = tb ? in(c, 1).t() : in(c, 1);
                           const at::Tensor g = alpha == 1.0 ? c.grad : at::mul(c.grad, alpha);
                           std::vector<at::Tensor> out(c.inputs.size());
                           if (need(c, 0)) out[0] = ta ? at::mm(b, g.t()) : at::mm(g, b.t());
                           if (need(c, 1)) out[1] = tb ? at::mm(g.t(), a) : at::mm(a.t(), g);
                           if (c.inputs.size() > 2 && need(c, 2)) {
                             const at::Tensor s = sumTo(c.grad, inputShape(c.graph, c.node, 2));
                             out[2] = beta == 1.0 ? s : at::mul(s, beta);
                           }
                           return out;
                         },
                     .check =
                         [](const GraphSpec& g, std::size_t v) {
                           if (inputShape(g, v, 0).size() != 2 || inputShape(g, v, 1).size() != 2)
                             throw AttrError("operands must be matrices");
                         }};

  k["MatMul"] = Kernel{.minOperands = 2,
                       .maxOperands = 2,
                       .needsInputs = {0, 1},
                       .forward = [=](const ForwardCall& c) { return at::matmul(in(c, 0), in(c, 1)); },
                       .backward = [=](const BackwardCall& c) -> std::vector<at::Tensor> {
                         const at::Tensor& a = in(c, 0);
                         const at::Tensor& b = in(c, 1);
                         if (a.dim() < 2 || b.dim() < 2) return autogradBackward(c);
                         std::vector<at::Tensor> out(2);
                         if (need(c, 0))
                           out[0] = sumTo(at::matmul(c.grad, b.transpose(-1, -2)), inputShape(c.graph, c.node, 0));
                         if (need(c, 1)) {
                           if (b.dim() == 2 && a.dim() > 2)
                             // A matrix weight under batched rows (a linear layer): fold the batch dimensions
                             // into the rows, one product as PyTorch's own matmul backward does, instead of a
                             // batched outer product summed afterwards.
                             out[1] = at::mm(a.reshape({-1, a.size(-1)}).t(), c.grad.reshape({-1, c.grad.size(-1)}));
                           else
                             out[1] = sumTo(at::matmul(a.transpose(-1, -2), c.grad), inputShape(c.graph, c.node, 1));
                         }
                         return out;
                       }};

  // ---- normalisation
  k["BatchNormalization"] =
      Kernel{.minOperands = 5,
             .maxOperands = 5,
             .needsInputs = {0, 1},
             .forward =
                 [=](const ForwardCall& c) {
                   const double eps = attrFloat(c.graph.node(c.node), "epsilon", 1e-5);
                   // Batch statistics (training); the running statistics are not updated, so that a recomputation
                   // changes nothing.
                   return std::get<0>(at::native_batch_norm(in(c, 0), in(c, 1), in(c, 2), {}, {}, true, 0.0, eps));
                 },
             .backward =
                 [=](const BackwardCall& c) {
                   const double eps = attrFloat(c.graph.node(c.node), "epsilon", 1e-5);
                   // The graph keeps the input and the scale, not the batch mean and inverse deviation (they stand
                   // for them, being small): recompute them from the saved input inside this step (workspace).
                   auto stats = at::native_batch_norm(in(c, 0), in(c, 1), in(c, 2), {}, {}, true, 0.0, eps);
                   std::get<0>(stats).reset();
                   auto [gx, gs, gb] = at::native_batch_norm_backward(c.grad, in(c, 0), in(c, 1), {}, {},
                                                                      std::get<1>(stats), std::get<2>(stats), true, eps,
                                                                      {need(c, 0), need(c, 1), need(c, 2)});
                   // The running statistics (operands 3 and 4) do not affect a training-mode output: no gradient.
                   return std::vector<at::Tensor>{gx, gs, gb, {}, {}};
                 },
             .check =
                 [](const GraphSpec& g, std::size_t v) {
                   if (attrInt(g.node(v), "training_mode", 0) != 1)
                     throw AttrError("inference-mode batch norm (training_mode 0) is not supported: the runner trains");
                 }};

  k["LayerNormalization"] =
      Kernel{.minOperands = 2, .maxOperands = 3, .needsAllInputs = true, .forward = [=](const ForwardCall& c) {
               const NodeSpec& n = c.graph.node(c.node);
               const Shape& x = inputShape(c.graph, c.node, 0);
               const auto axis = normalizeAxis(attrInt(n, "axis", -1), x.size());
               const Shape normalized(x.begin() + axis, x.end());
               c10::optional<at::Tensor> bias;
               if (has(c, 2)) bias = in(c, 2);
               return at::layer_norm(in(c, 0), normalized, in(c, 1), bias, attrFloat(n, "epsilon", 1e-5));
             }};

  // ---- activations
  k["Relu"] = Kernel{
      .needsOutput = true,
      .forward = [=](const ForwardCall& c) { return at::relu(in(c, 0)); },
      .backward =
          [](const BackwardCall& c) { return std::vector<at::Tensor>{at::threshold_backward(c.grad, c.output, 0)}; }};
  k["LeakyRelu"] = Kernel{.needsInputs = {0},
                          .forward =
                              [=](const ForwardCall& c) {
                                return at::leaky_relu(in(c, 0), attrFloat(c.graph.node(c.node), "alpha", 0.01));
                              },
                          .backward =
                              [=](const BackwardCall& c) {
                                return std::vector<at::Tensor>{at::leaky_relu_backward(
                                    c.grad, in(c, 0), attrFloat(c.graph.node(c.node), "alpha", 0.01), false)};
                              }};
  k["Sigmoid"] =
      Kernel{.needsOutput = true,
             .forward = [=](const ForwardCall& c) { return at::sigmoid(in(c, 0)); },
             .backward =
                 [](const BackwardCall& c) { return std::vector<at::Tensor>{at::sigmoid_backward(c.grad, c.output)}; }};
  k["Tanh"] = Kernel{
      .needsOutput = true,
      .forward = [=](const ForwardCall& c) { return at::tanh(in(c, 0)); },
      .backward = [](const BackwardCall& c) { return std::vector<at::Tensor>{at::tanh_backward(c.grad, c.output)}; }};
  k["Exp"] =
      Kernel{.needsOutput = true,
             .forward = [=](const ForwardCall& c) { return at::exp(in(c, 0)); },
             .backward = [](const BackwardCall& c) { return std::vector<at::Tensor>{at::mul(c.grad, c.output)}; }};
  k["Sqrt"] = Kernel{
      .needsOutput = true,
      .forward = [=](const ForwardCall& c) { return at::sqrt(in(c, 0)); },
      .backward = [](const BackwardCall& c) { return std::vector<at::Tensor>{at::div(c.grad, at::mul(c.output, 2))}; }};
  k["Neg"] = Kernel{.forward = [=](const ForwardCall& c) { return at::neg(in(c, 0)); },
                    .backward = [](const BackwardCall& c) { return std::vector<at::Tensor>{at::neg(c.grad)}; }};
  k["Gelu"] = Kernel{.needsAllInputs = true, .forward = [=](const ForwardCall& c) {
                       return at::gelu(in(c, 0), attrString(c.graph.node(c.node), "approximate", "none"));
                     }};
  k["Erf"] = Kernel{.needsAllInputs = true, .forward = [=](const ForwardCall& c) { return at::erf(in(c, 0)); }};
  auto axisOf = [](const GraphSpec& g, std::size_t v) {
    return normalizeAxis(attrInt(g.node(v), "axis", -1), inputShape(g, v, 0).size());
  };
  k["Softmax"] = Kernel{.needsOutput = true,
                        .forward = [=](const ForwardCall& c) { return at::softmax(in(c, 0), axisOf(c.graph, c.node)); },
                        .backward =
                            [=](const BackwardCall& c) {
                              return std::vector<at::Tensor>{at::_softmax_backward_data(
                                  c.grad, c.output, axisOf(c.graph, c.node), c.output.scalar_type())};
                            },
                        .check = [=](const GraphSpec& g, std::size_t v) { (void)axisOf(g, v); }};
  k["LogSoftmax"] =
      Kernel{.needsOutput = true,
             .forward = [=](const ForwardCall& c) { return at::log_softmax(in(c, 0), axisOf(c.graph, c.node)); },
             .backward =
                 [=](const BackwardCall& c) {
                   return std::vector<at::Tensor>{at::_log_softmax_backward_data(
                       c.grad, c.output, axisOf(c.graph, c.node), c.output.scalar_type())};
                 },
             .check = [=](const GraphSpec& g, std::size_t v) { (void)axisOf(g, v); }};

  // ---- elementwise arithmetic with broadcasting: gradients are summed back to each operand's shape
  k["Add"] = Kernel{.minOperands = 2,
                    .maxOperands = 2,
                    .forward = [=](const ForwardCall& c) { return at::add(in(c, 0), in(c, 1)); },
                    .backward =
                        [=](const BackwardCall& c) {
                          std::vector<at::Tensor> out(2);
                          for (std::size_t p = 0; p < 2; ++p)
                            if (need(c, p)) out[p] = sumTo(c.grad, inputShape(c.graph, c.node, p));
                          return out;
                        }};
  k["Sub"] = Kernel{.minOperands = 2,
                    .maxOperands = 2,
                    .forward = [=](const ForwardCall& c) { return at::sub(in(c, 0), in(c, 1)); },
                    .backward =
                        [=](const BackwardCall& c) {
                          std::vector<at::Tensor> out(2);
                          if (need(c, 0)) out[0] = sumTo(c.grad, inputShape(c.graph, c.node, 0));
                          if (need(c, 1)) out[1] = at::neg(sumTo(c.grad, inputShape(c.graph, c.node, 1)));
                          return out;
                        }};
  k["Mul"] = Kernel{.minOperands = 2,
                    .maxOperands = 2,
                    .needsInputs = {0, 1},
                    .forward = [=](const ForwardCall& c) { return at::mul(in(c, 0), in(c, 1)); },
                    .backward =
                        [=](const BackwardCall& c) {
                          std::vector<at::Tensor> out(2);
                          if (need(c, 0)) out[0] = sumTo(at::mul(c.grad, in(c, 1)), inputShape(c.graph, c.node, 0));
                          if (need(c, 1)) out[1] = sumTo(at::mul(c.grad, in(c, 0)), inputShape(c.graph, c.node, 1));
                          return out;
                        }};
  k["Div"] = Kernel{.minOperands = 2,
                    .maxOperands = 2,
                    .needsInputs = {0, 1},
                    .forward = [=](const ForwardCall& c) { return at::div(in(c, 0), in(c, 1)); },
                    .backward =
                        [=](const BackwardCall& c) {
                          std::vector<at::Tensor> out(2);
                          if (need(c, 0)) out[0] = sumTo(at::div(c.grad, in(c, 1)), inputShape(c.graph, c.node, 0));
                          if (need(c, 1))
                            out[1] = sumTo(at::div(at::mul(at::neg(c.grad), in(c, 0)), at::mul(in(c, 1), in(c, 1))),
                                           inputShape(c.graph, c.node, 1));
                          return out;
                        }};
  k["Pow"] = Kernel{.minOperands = 2, .maxOperands = 2, .needsAllInputs = true, .forward = [=](const ForwardCall& c) {
                      return at::pow(in(c, 0), in(c, 1));
                    }};
  k["Where"] =
      Kernel{.minOperands = 3,
             .maxOperands = 3,
             .needsInputs = {0},
             .forward = [=](const ForwardCall& c) { return at::where(in(c, 0).to(at::kBool), in(c, 1), in(c, 2)); },
             .backward =
                 [=](const BackwardCall& c) {
                   const at::Tensor cond = in(c, 0).to(at::kBool);
                   const at::Tensor zero = at::zeros({}, c.grad.options());
                   std::vector<at::Tensor> out(3);
                   if (need(c, 1)) out[1] = sumTo(at::where(cond, c.grad, zero), inputShape(c.graph, c.node, 1));
                   if (need(c, 2)) out[2] = sumTo(at::where(cond, zero, c.grad), inputShape(c.graph, c.node, 2));
                   return out;
                 }};

  // ---- reductions and pooling
  k["ReduceMean"] = Kernel{.forward =
                               [=](const ForwardCall& c) {
                                 return at::mean(in(c, 0), reduceAxes(c.graph, c.node),
                                                 attrInt(c.graph.node(c.node), "keepdims", 1) != 0);
                               },
                           .backward =
                               [=](const BackwardCall& c) {
                                 return std::vector<at::Tensor>{
                                     spread(c.grad, inputShape(c.graph, c.node, 0), reduceAxes(c.graph, c.node), true)};
                               },
                           .check =
                               [](const GraphSpec& g, std::size_t v) {
                                 (void)reduceAxes(g, v);
                                 if (attrInt(g.node(v), "noop_with_empty_axes", 0) != 0)
                                   throw AttrError("noop_with_empty_axes is not supported");
                               }};
  auto spatialAxes = [](const GraphSpec& g, std::size_t v) {
    Shape axes;
    for (std::size_t i = 2; i < inputShape(g, v, 0).size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    return axes;
  };
  k["GlobalAveragePool"] =
      Kernel{.forward = [=](const ForwardCall& c) { return at::mean(in(c, 0), spatialAxes(c.graph, c.node), true); },
             .backward =
                 [=](const BackwardCall& c) {
                   return std::vector<at::Tensor>{
                       spread(c.grad, inputShape(c.graph, c.node, 0), spatialAxes(c.graph, c.node), true)};
                 }};
  auto poolAttrs = [](const GraphSpec& g, std::size_t v) {
    const NodeSpec& n = g.node(v);
    if (inputShape(g, v, 0).size() != 4) throw AttrError("only 2-D max pooling (NCHW) is supported");
    if (attrInt(n, "storage_order", 0) != 0) throw AttrError("storage_order 1 is not supported");
    return windowAttrs(g, v, true);
  };
  k["MaxPool"] =
      Kernel{.needsInputs = {0},
             .forward =
                 [=](const ForwardCall& c) {
                   const Window w = poolAttrs(c.graph, c.node);
                   return at::max_pool2d(in(c, 0), w.kernel, w.stride, w.padding, w.dilation,
                                         attrInt(c.graph.node(c.node), "ceil_mode", 0) != 0);
                 },
             .backward =
                 [=](const BackwardCall& c) {
                   const Window w = poolAttrs(c.graph, c.node);
                   const bool ceil = attrInt(c.graph.node(c.node), "ceil_mode", 0) != 0;
                   // The graph keeps the input (and the output, standing for PyTorch's indices); the indices are
                   // recomputed here from the saved input, so nothing but the tables lives across steps.
                   auto pooled = at::max_pool2d_with_indices(in(c, 0), w.kernel, w.stride, w.padding, w.dilation, ceil);
                   std::get<0>(pooled).reset();
                   return std::vector<at::Tensor>{at::max_pool2d_with_indices_backward(
                       c.grad, in(c, 0), w.kernel, w.stride, w.padding, w.dilation, ceil, std::get<1>(pooled))};
                 },
             .check = [=](const GraphSpec& g, std::size_t v) { (void)poolAttrs(g, v); }};

  // ---- views and layout. A view's output takes the graph's shape; the player checks that it aliases
  // its operand when the graph counts it as zero bytes.
  Kernel view{.forward = [=](const ForwardCall& c) { return in(c, 0).reshape(c.graph.node(c.node).shape); },
              .backward =
                  [=](const BackwardCall& c) {
                    return std::vector<at::Tensor>(1, c.grad.reshape(inputShape(c.graph, c.node, 0)));
                  }};
  k["Reshape"] = view;
  k["Flatten"] = view;
  k["Squeeze"] = view;
  k["Unsqueeze"] = view;
  k["Identity"] = view;
  auto permutation = [](const GraphSpec& g, std::size_t v) {
    const std::size_t rank = inputShape(g, v, 0).size();
    Shape perm = attrInts(g.node(v), "perm").value_or(Shape{});
    if (perm.empty())
      for (std::size_t i = rank; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
    if (perm.size() != rank) throw AttrError("'perm' does not match the input rank");
    return perm;
  };
  k["Transpose"] =
      Kernel{.forward = [=](const ForwardCall& c) { return in(c, 0).permute(permutation(c.graph, c.node)); },
             .backward =
                 [=](const BackwardCall& c) {
                   const Shape perm = permutation(c.graph, c.node);
                   Shape inverse(perm.size());
                   for (std::size_t i = 0; i < perm.size(); ++i)
                     inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
                   return std::vector<at::Tensor>(1, c.grad.permute(inverse));
                 },
             .check = [=](const GraphSpec& g, std::size_t v) { (void)permutation(g, v); }};
  auto splitAxis = [](const GraphSpec& g, std::size_t v) {
    return normalizeAxis(attrInt(g.node(v), "axis", 0), inputShape(g, v, 0).size());
  };
  k["Split"] = Kernel{.forward =
                          [=](const ForwardCall& c) {
                            const auto axis = splitAxis(c.graph, c.node);
                            return in(c, 0).narrow(axis, splitOffset(c.graph, c.node, axis),
                                                   c.graph.node(c.node).shape.at(static_cast<std::size_t>(axis)));
                          },
                      .backward =
                          [=](const BackwardCall& c) {
                            const auto axis = splitAxis(c.graph, c.node);
                            at::Tensor z = at::zeros(inputShape(c.graph, c.node, 0), c.grad.options());
                            z.narrow(axis, splitOffset(c.graph, c.node, axis), c.grad.size(axis)).copy_(c.grad);
                            return std::vector<at::Tensor>{z};
                          },
                      .check = [=](const GraphSpec& g, std::size_t v) { (void)splitOffset(g, v, splitAxis(g, v)); }};
  // Slice: a narrow for a step of 1, an index_select otherwise (the player gives the result its own
  // storage, as the graph counts it); the backward puts the gradient back in place, axis by axis.
  k["Slice"] = Kernel{
      .forward =
          [=](const ForwardCall& c) {
            at::Tensor t = in(c, 0);
            for (const SliceAxis& s : sliceAxes(c.graph, c.node)) {
              const auto count = static_cast<std::int64_t>(s.index.size());
              t = s.step == 1 && count > 0 ? t.narrow(s.axis, s.index.front(), count)
                                           : t.index_select(s.axis, at::tensor(s.index, t.options().dtype(at::kLong)));
            }
            return t;
          },
      .backward =
          [=](const BackwardCall& c) {
            const std::vector<SliceAxis> axes = sliceAxes(c.graph, c.node);
            std::vector<Shape> shapes{inputShape(c.graph, c.node, 0)};  // before each axis
            for (const SliceAxis& s : axes) {
              shapes.push_back(shapes.back());
              shapes.back()[static_cast<std::size_t>(s.axis)] = static_cast<std::int64_t>(s.index.size());
            }
            at::Tensor g = c.grad;
            for (std::size_t a = axes.size(); a-- > 0;) {
              const SliceAxis& s = axes[a];
              at::Tensor z = at::zeros(shapes[a], g.options());
              if (s.step == 1 && !s.index.empty())
                z.narrow(s.axis, s.index.front(), static_cast<std::int64_t>(s.index.size())).copy_(g);
              else
                z.index_copy_(s.axis, at::tensor(s.index, g.options().dtype(at::kLong)), g);
              g = std::move(z);
            }
            return std::vector<at::Tensor>{g};
          },
      .check = [=](const GraphSpec& g, std::size_t v) { (void)sliceAxes(g, v); }};
  // Expand: broadcast to the graph's shape (ONNX's two-way broadcast gives the output shape); the
  // backward sums the gradient back to the operand's shape.
  k["Expand"] = Kernel{
      .forward = [=](const ForwardCall& c) { return in(c, 0).expand(c.graph.node(c.node).shape); },
      .backward =
          [=](const BackwardCall& c) { return std::vector<at::Tensor>{sumTo(c.grad, inputShape(c.graph, c.node, 0))}; },
      .check =
          [=](const GraphSpec& g, std::size_t v) {
            const Shape& from = inputShape(g, v, 0);
            const Shape& to = g.node(v).shape;
            bool ok = from.size() <= to.size();
            for (std::size_t d = 0; ok && d < from.size(); ++d) {
              const std::int64_t f = from[from.size() - 1 - d];
              ok = f == 1 || f == to[to.size() - 1 - d];
            }
            if (!ok) throw AttrError("its operand does not broadcast to the graph's shape");
          }};
  k["Concat"] = Kernel{
      .maxOperands = 1u << 20,
      .forward =
          [=](const ForwardCall& c) {
            return at::cat(c.inputs,
                           normalizeAxis(attrInt(c.graph.node(c.node), "axis", 0), c.graph.node(c.node).shape.size()));
          },
      .backward =
          [=](const BackwardCall& c) {
            const auto axis =
                normalizeAxis(attrInt(c.graph.node(c.node), "axis", 0), c.graph.node(c.node).shape.size());
            std::vector<at::Tensor> out(c.inputs.size());
            std::int64_t offset = 0;
            for (std::size_t p = 0; p < c.inputs.size(); ++p) {
              const std::int64_t size = inputShape(c.graph, c.node, p).at(static_cast<std::size_t>(axis));
              if (need(c, p)) out[p] = c.grad.narrow(axis, offset, size);
              offset += size;
            }
            return out;
          }};
  auto gatherAxis = [](const GraphSpec& g, std::size_t v) {
    return normalizeAxis(attrInt(g.node(v), "axis", 0), inputShape(g, v, 0).size());
  };
  k["Gather"] =
      Kernel{.minOperands = 2,
             .maxOperands = 2,
             .needsInputs = {1},
             .forward =
                 [=](const ForwardCall& c) {
                   const auto axis = gatherAxis(c.graph, c.node);
                   return at::index_select(in(c, 0), axis, in(c, 1).reshape(-1)).reshape(c.graph.node(c.node).shape);
                 },
             .backward =
                 [=](const BackwardCall& c) {
                   std::vector<at::Tensor> out(2);
                   if (!need(c, 0)) return out;
                   const auto axis = gatherAxis(c.graph, c.node);
                   const at::Tensor index = in(c, 1).reshape(-1);
                   Shape selected = inputShape(c.graph, c.node, 0);
                   selected[static_cast<std::size_t>(axis)] = index.numel();
                   out[0] = at::zeros(inputShape(c.graph, c.node, 0), c.grad.options())
                                .index_add_(axis, index, c.grad.reshape(selected));
                   return out;
                 },
             .check = [=](const GraphSpec& g, std::size_t v) { (void)gatherAxis(g, v); }};
  k["Cast"] = Kernel{
      .forward = [=](const ForwardCall& c) { return in(c, 0).to(onnxType(attrInt(c.graph.node(c.node), "to", 1))); },
      .backward =
          [=](const BackwardCall& c) {
            std::vector<at::Tensor> out(1);
            const std::string& dtype = c.graph.node(c.graph.node(c.node).inputs[0]).dtype;
            if (need(c, 0) && at::isFloatingType(c.grad.scalar_type()))
              out[0] = c.grad.to(dtype == "float64" || dtype == "double" ? at::kDouble
                                 : dtype == "float16" || dtype == "half" ? at::kHalf
                                 : dtype == "bfloat16"                   ? at::kBFloat16
                                                                         : at::kFloat);
            return out;
          },
      .check = [](const GraphSpec& g, std::size_t v) { (void)onnxType(attrInt(g.node(v), "to", 1)); }};

  // ---- dropout: the mask is drawn from a generator seeded per node, so a recomputation and the
  // baseline draw the same one; the backward reads the mask from the output's non-zero pattern (the
  // graph keeps the output for it). The ratio is an ONNX operand the importer leaves out; without a
  // `ratio` attribute ONNX's default 0.5 applies.
  auto dropoutRatio = [](const GraphSpec& g, std::size_t v) {
    const double p = attrFloat(g.node(v), "ratio", 0.5);
    if (p < 0 || p >= 1) throw AttrError("ratio must be in [0, 1)");
    return p;
  };
  k["Dropout"] =
      Kernel{.needsOutput = true,
             .forward =
                 [=](const ForwardCall& c) {
                   const double p = dropoutRatio(c.graph, c.node);
                   at::Generator gen = at::detail::createCPUGenerator(c.seed);
                   at::Tensor mask =
                       at::empty(in(c, 0).sizes(), at::TensorOptions().dtype(at::kFloat)).bernoulli_(1.0 - p, gen);
                   return at::mul(in(c, 0), mask.to(in(c, 0).device(), in(c, 0).scalar_type()).mul_(1.0 / (1.0 - p)));
                 },
             .backward =
                 [=](const BackwardCall& c) {
                   const double p = dropoutRatio(c.graph, c.node);
                   return std::vector<at::Tensor>{at::mul(c.grad, c.output.ne(0)).mul_(1.0 / (1.0 - p))};
                 },
             .check = [=](const GraphSpec& g, std::size_t v) { (void)dropoutRatio(g, v); }};

  // ---- loss
  k["SoftmaxCrossEntropyLoss"] = Kernel{.minOperands = 2,
                                        .maxOperands = 3,
                                        .needsAllInputs = true,
                                        .forward =
                                            [=](const ForwardCall& c) {
                                              const NodeSpec& n = c.graph.node(c.node);
                                              const std::string r = attrString(n, "reduction", "mean");
                                              const std::int64_t reduction = r == "none" ? 0 : r == "sum" ? 2 : 1;
                                              c10::optional<at::Tensor> weight;
                                              if (has(c, 2)) weight = in(c, 2);
                                              return at::nll_loss_nd(at::log_softmax(in(c, 0), 1), in(c, 1), weight,
                                                                     reduction, attrInt(n, "ignore_index", -100));
                                            },
                                        .check =
                                            [](const GraphSpec& g, std::size_t v) {
                                              const std::string r = attrString(g.node(v), "reduction", "mean");
                                              if (r != "mean" && r != "sum" && r != "none")
                                                throw AttrError("reduction '" + r + "' is not supported");
                                            }};
  return k;
}

const std::unordered_map<std::string, Kernel>& kernels() {
  static const std::unordered_map<std::string, Kernel> kKernels = makeKernels();
  return kKernels;
}

}  // namespace

std::optional<std::string> unsupportedReason(const GraphSpec& g, std::size_t v) {
  const NodeSpec& n = g.node(v);
  if (n.kind != NodeKind::Op) return std::nullopt;
  auto it = kernels().find(n.op);
  if (it == kernels().end()) return "node '" + n.id + "': op " + n.op + " is not supported by remat-runner";
  const Kernel& k = it->second;
  const std::string prefix = "node '" + n.id + "': op " + n.op + ": ";
  if (n.inputs.size() < k.minOperands || n.inputs.size() > k.maxOperands)
    return prefix + std::to_string(n.inputs.size()) + " operands are not supported";
  try {
    if (k.check) k.check(g, v);
  } catch (const AttrError& e) {
    return prefix + e.what();
  } catch (const std::exception& e) {
    return prefix + "bad attributes: " + e.what();
  }
  auto saved = [&](std::size_t p) {
    return std::find(n.savesInputs.begin(), n.savesInputs.end(), p) != n.savesInputs.end();
  };
  for (std::size_t p = 0; p < n.inputs.size(); ++p) {
    const bool needed =
        k.needsAllInputs || std::find(k.needsInputs.begin(), k.needsInputs.end(), p) != k.needsInputs.end();
    if (needed && g.isOp(n.inputs[p]) && !saved(p))
      return prefix + "its backward needs operand " + std::to_string(p) + " ('" + g.node(n.inputs[p]).id +
             "'), which the graph does not save";
  }
  if (k.needsOutput && !n.savesOutput) return prefix + "its backward needs its output, which the graph does not save";
  return std::nullopt;
}

at::Tensor runForward(const ForwardCall& call) { return kernels().at(call.graph.node(call.node).op).forward(call); }

std::vector<at::Tensor> runBackward(const BackwardCall& call) {
  const Kernel& k = kernels().at(call.graph.node(call.node).op);
  std::vector<at::Tensor> out = k.backward ? k.backward(call) : autogradBackward(call);
  out.resize(call.inputs.size());
  return out;
}

}  // namespace remat::runtime::detail
