#include "remat/graph/WorkspaceModel.hpp"

#include <algorithm>
#include <numeric>

#include "remat/graph/OpTable.hpp"

namespace remat::graph {

namespace {

// Sizes saturate here: a graph file's shapes are not bounded by its bytes, and applyWorkspaceModel
// refuses a result whose total passes kMaxGraphTotal, which a saturated size always does.
constexpr std::int64_t kSaturated = kMaxGraphTotal + 1;

std::int64_t saturatedProduct(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) || out > kSaturated ? kSaturated : out;
}

std::int64_t elementCount(const Node& n) {
  std::int64_t count = 1;
  for (std::int64_t d : n.shape) count = saturatedProduct(count, std::max<std::int64_t>(d, 0));
  return count;
}

// The bytes of a node's tensor as the framework holds it: elements times the dtype's size. A view has
// 0 bytes in the graph (it shares its base's storage) but its full size here, since a kernel that
// reads it makes temporaries of that size. Without a shape or a known dtype, the graph's bytes.
std::int64_t tensorBytes(const Node& n) {
  const auto element = dtypeBytes(n.dtype);
  if (n.shape.empty() || !element) return n.bytes.value;
  return saturatedProduct(elementCount(n), *element);
}

// A 1x1 convolution with stride 1 and no padding: every kernel dimension of the weight is 1 and the
// output keeps the input's spatial size. LibTorch's CPU convolution runs it as a matrix product on the
// tensors as they are (no reordered copies).
bool pointwise(const Node& x, const Node& w, const Node& y) {
  if (w.shape.size() < 3 || x.shape.size() != w.shape.size() || y.shape.size() != w.shape.size()) return false;
  for (std::size_t d = 2; d < w.shape.size(); ++d)
    if (w.shape[d] != 1 || x.shape[d] != y.shape[d]) return false;
  return true;
}

struct Temporaries {
  std::int64_t forward = 0;
  std::int64_t backward = 0;
};

// LibTorch's CPU kernels (Debian's 1.13 with oneDNN), as remat-runner calls them, measured per op and
// phase as the allocator's peak in a step beyond the tensors of the schedule (bench/step-temporaries.sh,
// BENCHMARKS.md "Where the temporaries are"). Sizes are the operands' as the kernels see them; the
// factors of elementwise backwards are the intermediate products of their derivative formulas.
Temporaries libtorchCpu(const ComputeGraph& g, const Node& n) {
  const auto in = [&](std::size_t k) -> const Node* { return k < n.inputs.size() ? &g.node(n.inputs[k]) : nullptr; };
  const Node* x = in(0);
  const Node* w = in(1);
  const std::int64_t y = tensorBytes(n);
  if (n.op == "Conv" && x && w) {
    // oneDNN reorders the weight and the input into its blocked layouts (or, with few input channels,
    // writes the output in its own layout and copies it back); its backward reorders the weight (or
    // the output's gradient). A 1x1 convolution with stride 1 is a matrix product on the tensors as
    // they are, in both phases.
    if (pointwise(*x, *w, n)) return {};
    return {std::max(std::min(tensorBytes(*w) + tensorBytes(*x), kSaturated), y), std::max(tensorBytes(*w), y)};
  }
  if (n.op == "SoftmaxCrossEntropyLoss" && x)
    // The forward's log-probabilities; the backward's softmax and the gradient of the scores.
    return {tensorBytes(*x), saturatedProduct(tensorBytes(*x), 2)};
  const std::int64_t indices = n.shape.empty() ? 0 : saturatedProduct(elementCount(n), 8);
  if (n.op == "MaxPool") return {indices, indices};  // the int64 index of each output's maximum
  if (n.op == "Dropout")                             // the mask, then as bools
    return {y, std::min(y + (n.shape.empty() ? 0 : elementCount(n)), kSaturated)};
  if (x && (n.op == "BatchNormalization" || n.op == "ReduceMean" || n.op == "Slice" || n.op == "Split"))
    return {0, tensorBytes(*x)};  // an input-sized gradient made before it is scattered or scaled
  if (n.op == "Pow" || n.op == "Erf") return {0, saturatedProduct(y, 5)};
  if (n.op == "Div") return {0, saturatedProduct(y, 3)};
  if (n.op == "Mul" || n.op == "Sqrt") return {0, y};
  return {};
}

}  // namespace

std::vector<std::string> workspaceModelNames() { return {"file", "none", "libtorch-cpu"}; }

Result<ComputeGraph> applyWorkspaceModel(const ComputeGraph& g, std::string_view model) {
  if (model == "file") return g;
  if (model == "none" || model == "libtorch-cpu") {
    std::vector<Node> nodes = g.nodes();
    std::int64_t total = 0;  // bytes and workspace, bounded as the readers bound a file's
    for (Node& n : nodes) {
      if (n.kind == NodeKind::Op) {
        const Temporaries t = model == "none" ? Temporaries{} : libtorchCpu(g, n);
        n.workspace = Bytes{t.forward};
        n.bwdWorkspace = Bytes{t.backward};
      }
      total += n.bytes.value + n.workspace.value + n.bwdWorkspace.value;  // each term is at most 2^60 + 1
      if (total > kMaxGraphTotal)
        return Result<ComputeGraph>::failure(
            Diagnostic{{},
                       "node '" + n.name + "': with the " + std::string(model) +
                           " workspace the graph's total size passes 2^60: its shapes describe tensors too "
                           "large to count"});
    }
    return g.withNodes(std::move(nodes), g.costModel());
  }
  std::string known;
  for (const auto& m : workspaceModelNames()) known += (known.empty() ? "" : ", ") + m;
  return Result<ComputeGraph>::failure(
      Diagnostic{{}, "unknown workspace model '" + std::string(model) + "' (known: " + known + ")"});
}

}  // namespace remat::graph
