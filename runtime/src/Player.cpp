// The player: tensors in tables, the schedule played step by step, exact accounting of live storage,
// the framework baseline and the gradient check. One of the two translation units that include LibTorch.

#include "remat/runtime/Player.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/version.h>

#ifdef REMAT_RUNTIME_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "CountingAllocator.hpp"
#include "Ops.hpp"
#include "remat/runtime/PlayScript.hpp"
#include "remat/runtime/RunnerError.hpp"

namespace remat::runtime {
namespace {

using detail::AllocationCounter;
using detail::BackwardCall;
using detail::ForwardCall;
using Clock = std::chrono::steady_clock;

at::ScalarType scalarType(const std::string& dtype) {
  if (dtype == "float32" || dtype == "float") return at::kFloat;
  if (dtype == "float16" || dtype == "half") return at::kHalf;
  if (dtype == "bfloat16") return at::kBFloat16;
  if (dtype == "float64" || dtype == "double") return at::kDouble;
  if (dtype == "int64") return at::kLong;
  if (dtype == "int32") return at::kInt;
  if (dtype == "int16") return at::kShort;
  if (dtype == "int8") return at::kChar;
  if (dtype == "uint8") return at::kByte;
  if (dtype == "bool") return at::kBool;
  throw RunnerError(ExitCode::Input, "dtype '" + dtype + "' is not supported by remat-runner");
}

std::string shapeText(at::IntArrayRef s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

const c10::StorageImpl* storageOf(const at::Tensor& t) { return t.storage().unsafeGetStorageImpl(); }

bool sameStorage(const at::Tensor& a, const at::Tensor& b) {
  return a.defined() && b.defined() && a.has_storage() && b.has_storage() && storageOf(a) == storageOf(b);
}

// A tensor whose storage is its own and exactly `bytes` long: what the tables may hold for a node the
// graph counts with its full size.
bool ownsExactStorage(const at::Tensor& t, std::int64_t bytes, const std::vector<const at::Tensor*>& others) {
  if (!t.is_contiguous() || t.storage_offset() != 0 || static_cast<std::int64_t>(t.storage().nbytes()) != bytes)
    return false;
  for (const at::Tensor* o : others)
    if (o && sameStorage(t, *o)) return false;
  return true;
}

struct Device {
  at::Device device{at::kCPU};
  bool cuda = false;
  int index = 0;
};

void synchronize(const Device& d) {
#ifdef REMAT_RUNTIME_CUDA
  if (d.cuda) c10::cuda::device_synchronize();
#else
  (void)d;
#endif
}

Device openDevice(const std::string& name) {
  Device d;
  if (name == "cpu") return d;
  if (name.rfind("cuda", 0) != 0)
    throw RunnerError(ExitCode::Usage, "--device: expected cpu, cuda or cuda:N, got '" + name + "'");
#ifdef REMAT_RUNTIME_CUDA
  if (!at::hasCUDA()) throw RunnerError(ExitCode::Device, "--device " + name + ": no CUDA device is available");
  d.device = at::Device(name);
  d.cuda = true;
  d.index = d.device.has_index() ? d.device.index() : 0;
  d.device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d.index));
  // cuBLAS is deterministic only with a fixed workspace configuration (set before its first use).
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
  return d;
#else
  throw RunnerError(ExitCode::Device,
                    "--device " + name + ": this remat-runner was built with a LibTorch without CUDA");
#endif
}

// Upper bound (exclusive) for the values of an integer input, from what consumes it: class labels of a
// loss, indices into a Gather's table. Views (Reshape, ...) pass through.
std::int64_t integerBound(const GraphSpec& g, std::size_t v) {
  std::vector<std::size_t> frontier{v};
  std::unordered_set<std::size_t> seen;
  while (!frontier.empty()) {
    const std::size_t u = frontier.back();
    frontier.pop_back();
    if (!seen.insert(u).second) continue;
    for (std::size_t w : g.successors[u]) {
      const NodeSpec& n = g.node(w);
      for (std::size_t p = 0; p < n.inputs.size(); ++p) {
        if (n.inputs[p] != u) continue;
        const NodeSpec& first = g.node(n.inputs[0]);
        if ((n.op == "SoftmaxCrossEntropyLoss" || n.op == "NegativeLogLikelihoodLoss") && p == 1 &&
            first.shape.size() >= 2)
          return first.shape[1];
        if (n.op == "Gather" && p == 1 && !first.shape.empty()) {
          std::int64_t axis = 0;
          if (n.attrs.contains("axis") && n.attrs["axis"].is_number_integer())
            axis = n.attrs["axis"].get<std::int64_t>();
          if (axis < 0) axis += static_cast<std::int64_t>(first.shape.size());
          return first.shape.at(static_cast<std::size_t>(axis));
        }
        if (n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" || n.op == "Unsqueeze" || n.op == "Identity" ||
            n.op == "Transpose")
          frontier.push_back(w);
      }
    }
  }
  return 2;
}

// Parameters and inputs, created once with seeded random values (on the CPU, then moved, so that every
// device gets the same numbers). Weights of rank 2 or more: uniform in +-1/sqrt(fan_in), as PyTorch's
// layers; vectors and scalars (biases, normalisation scales, constants such as epsilon): uniform in
// [0.5, 1.5], positive so that constants under a square root stay valid; data: standard normal.
// Constants whose value the graph records (an exponent, a fill value, an index) take it.
std::vector<at::Tensor> makeResident(const GraphSpec& g, std::uint64_t seed, const Device& d) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  std::vector<at::Tensor> out(g.nodes.size());
  for (std::size_t v = 0; v < g.nodes.size(); ++v) {
    const NodeSpec& n = g.node(v);
    if (n.kind == NodeKind::Op) continue;
    const at::ScalarType type = scalarType(n.dtype);
    at::Tensor t;
    if (!n.value.empty()) {
      t = at::tensor(n.value, at::TensorOptions().dtype(at::kDouble)).reshape(n.shape).to(type);
    } else if (at::isFloatingType(type)) {
      t = at::empty(n.shape, at::TensorOptions().dtype(at::kFloat));
      if (n.kind == NodeKind::Input) {
        t.normal_(0.0, 1.0, gen);
      } else if (n.shape.size() >= 2) {
        // fan-in: the elements of one output channel (the count divides exactly)
        const double fanIn =
            static_cast<double>(n.elements()) / static_cast<double>(std::max<std::int64_t>(n.shape[0], 1));
        const double bound = 1.0 / std::sqrt(fanIn);
        t.uniform_(-bound, bound, gen);
      } else {
        t.uniform_(0.5, 1.5, gen);
      }
      t = t.to(type);
    } else if (type == at::kBool) {
      t = at::empty(n.shape, at::TensorOptions().dtype(at::kFloat)).bernoulli_(0.5, gen).to(at::kBool);
    } else {
      t = at::randint(integerBound(g, v), n.shape, gen, at::TensorOptions().dtype(type));
    }
    out[v] = t.to(d.device).contiguous();
  }
  return out;
}

// CUDA's caching allocator throws c10::OutOfMemoryError; LibTorch's CPU allocator throws a plain c10::Error
// ("DefaultCPUAllocator: can't allocate memory", "not enough memory" in other versions). Either is the
// device's memory running out, not a failing operation.
bool isOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) return true;
  const std::string_view what = e.what();
  for (std::string_view needle : {"out of memory", "not enough memory", "can't allocate memory"})
    if (what.find(needle) != std::string_view::npos) return true;
  return false;
}

std::string firstLineOf(const std::string& text) { return text.substr(0, text.find('\n')); }

RunnerError outOfMemory(const std::string& where, const std::exception& e) {
  return RunnerError(ExitCode::OutOfMemory, where + ": out of memory: " + firstLineOf(e.what()));
}

std::uint64_t nodeSeed(std::uint64_t seed, std::size_t v) { return seed * 1000003ULL + 7919ULL * (v + 1); }

class Player {
 public:
  Player(const GraphSpec& g, const PlanSpec& plan, std::vector<ScriptStep> script, const Device& d,
         std::vector<at::Tensor>& resident, std::uint64_t seed, AllocationCounter* counter)
      : m_g(g),
        m_plan(plan),
        m_script(std::move(script)),
        m_dev(d),
        m_resident(resident),
        m_seed(seed),
        m_counter(counter) {}

  /// Plays the schedule once. With `record`, accounts live storage at every step into `steps`, and
  /// with a counter, what the CPU allocator held (a step's peak includes its temporaries).
  void iteration(bool record, std::vector<StepMeasurement>& steps, std::vector<double>& stepSeconds, double& loss) {
    const std::size_t n = m_g.nodes.size();
    m_values.assign(n, at::Tensor());
    m_grads.assign(n, at::Tensor());
    m_paramGrads.assign(n, at::Tensor());
    m_recomputed.assign(n, false);
    m_paramContributed.assign(n, false);
    at::NoGradGuard noGrad;
    stepSeconds.assign(m_script.size(), 0.0);
    // The steps' names are written before the first iteration (nameSteps), so that recording allocates
    // nothing between the tensors: small blocks taken from the holes big tensors left behind make the
    // next iteration grow the heap and page-fault (what controlCpuHeap is there to avoid).
    if (record && (steps.size() != m_script.size() || m_seen.empty())) nameSteps(steps);
    for (std::size_t s = 0; s < m_script.size(); ++s) {
      const ScriptStep& st = m_script[s];
      if (record && m_counter) m_counter->resetPeak();
      const auto t0 = Clock::now();
      try {
        switch (st.kind) {
          case StepKind::Forward: forward(s, st); break;
          case StepKind::Backward: backward(s, st); break;
          case StepKind::Free:
          case StepKind::FreeGrad: break;  // accounted "during" before the free, as the simulator
        }
      } catch (const RunnerError&) {
        throw;
      } catch (const std::exception& e) {
        if (isOutOfMemory(e)) throw outOfMemory(where(s), e);
        throw RunnerError(ExitCode::Execution, where(s) + ": " + firstLine(e.what()));
      }
      synchronize(m_dev);
      const auto t1 = Clock::now();
      if (record) {
        StepMeasurement& m = steps[s];
        if (m_counter) m.allocator = AllocatorStep{m_counter->live(), m_counter->peak(), 0};
        account(m.during, m.duringAlias);
        if (st.kind == StepKind::Forward && m_g.successors[st.node].empty() && m_values[st.node].numel() == 1)
          loss = m_values[st.node].item<double>();
      }
      const auto t2 = Clock::now();
      if (st.kind == StepKind::Free && !st.explicitFreeNoop) m_values[st.node].reset();
      if (st.kind == StepKind::FreeGrad && !st.explicitFreeNoop) m_grads[st.node].reset();
      for (std::size_t u : st.freeValuesAfter) m_values[u].reset();
      if (st.freeOwnGradAfter) m_grads[st.node].reset();
      synchronize(m_dev);
      const auto t3 = Clock::now();
      stepSeconds[s] = std::chrono::duration<double>((t1 - t0) + (t3 - t2)).count();
      if (record) {
        account(steps[s].after, steps[s].afterAlias);
        if (m_counter) steps[s].allocator->after = m_counter->live();
      }
    }
  }

  /// One StepMeasurement per step of the schedule, with its kind, node and whether it recomputes.
  void nameSteps(std::vector<StepMeasurement>& steps) {
    steps.assign(m_script.size(), StepMeasurement{});
    m_seen.resize(seenTableSize());
    for (std::size_t s = 0; s < m_script.size(); ++s) {
      steps[s].kind = std::string(stepKindName(m_script[s].kind));
      steps[s].node = m_g.node(m_script[s].node).id;
      steps[s].recompute = m_script[s].recompute;
    }
  }

  const std::vector<at::Tensor>& paramGrads() const { return m_paramGrads; }
  const std::vector<bool>& paramContributed() const { return m_paramContributed; }

 private:
  std::string where(std::size_t s) const {
    const ScriptStep& st = m_script[s];
    return m_plan.file + ": step " + std::to_string(s) + " (" + std::string(stepKindName(st.kind)) + " '" +
           m_g.node(st.node).id + "', op " + m_g.node(st.node).op + ")";
  }
  static std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

  const at::Tensor& operand(std::size_t u) const { return m_g.isOp(u) ? m_values[u] : m_resident[u]; }

  void forward(std::size_t s, const ScriptStep& st) {
    const std::size_t v = st.node;
    const NodeSpec& n = m_g.node(v);
    std::vector<at::Tensor> inputs;
    for (std::size_t u : n.inputs) inputs.push_back(operand(u));
    at::Tensor out = detail::runForward(ForwardCall{m_g, v, inputs, nodeSeed(m_seed, v)});
    if (!out.sizes().equals(n.shape) || out.scalar_type() != scalarType(n.dtype))
      throw RunnerError(ExitCode::Execution, where(s) + ": the output is " + shapeText(out.sizes()) + " " +
                                                 std::string(c10::toString(out.scalar_type())) +
                                                 " but the graph says " + shapeText(n.shape) + " " + n.dtype);
    std::vector<const at::Tensor*> others;
    others.reserve(inputs.size());
    for (const at::Tensor& t : inputs) others.push_back(&t);
    if (n.isAliasView()) {
      bool aliases = false;
      for (const at::Tensor& t : inputs) aliases = aliases || sameStorage(out, t);
      if (!aliases)
        throw RunnerError(ExitCode::Execution,
                          where(s) + ": the operation copies its operand into " +
                              std::to_string(out.numel() * out.element_size()) +
                              " new bytes (its input is not contiguous), but the graph counts it as a zero-byte view");
    } else if (!ownsExactStorage(out, n.bytes, others)) {
      out = out.clone(at::MemoryFormat::Contiguous);  // a view or oversized result: give the value its own storage
    }
    m_values[v] = std::move(out);
    m_recomputed[v] = st.recompute;
  }

  void backward(std::size_t s, const ScriptStep& st) {
    const std::size_t v = st.node;
    const NodeSpec& n = m_g.node(v);
    if (st.seedsGradient)
      m_grads[v] = at::ones(n.shape, at::TensorOptions().dtype(scalarType(n.dtype)).device(m_dev.device));
    std::vector<at::Tensor> inputs(n.inputs.size());
    std::vector<bool> needGrad(n.inputs.size(), false);
    for (std::size_t p = 0; p < n.inputs.size(); ++p) {
      const std::size_t u = n.inputs[p];
      const bool saved = std::find(n.savesInputs.begin(), n.savesInputs.end(), p) != n.savesInputs.end();
      if (!m_g.isOp(u) || saved) inputs[p] = operand(u);
      needGrad[p] = m_g.isOp(u) || m_g.node(u).hasGradient();
    }
    const at::Tensor output = n.savesOutput ? m_values[v] : at::Tensor();
    const at::Tensor& grad = m_grads[v];
    std::vector<at::Tensor> contributions =
        detail::runBackward(BackwardCall{m_g, v, inputs, output, grad, needGrad, nodeSeed(m_seed, v)});

    // Each distinct operand once: the sum of its positions' contributions goes into its gradient buffer,
    // allocated by the first contribution and accumulated in place after (the simulator's rule). As
    // PyTorch's AccumulateGrad does, a first contribution that owns its storage, in the buffer's layout,
    // becomes the buffer itself (no copy, so no temporary the framework would not make); one that shares
    // storage with the step's gradient, output, operands or another operand's contribution is copied.
    std::vector<bool> done(m_g.nodes.size(), false);
    for (std::size_t p = 0; p < n.inputs.size(); ++p) {
      const std::size_t u = n.inputs[p];
      if (!needGrad[p] || done[u]) continue;
      done[u] = true;
      at::Tensor sum;
      std::vector<const at::Tensor*> others{&grad, &output};
      for (const at::Tensor& t : inputs) others.push_back(&t);
      for (std::size_t q = 0; q < n.inputs.size(); ++q) {
        if (n.inputs[q] != u) {
          others.push_back(&contributions[q]);
          continue;
        }
        if (q < p || !contributions[q].defined()) continue;
        sum = sum.defined() ? at::add(sum, contributions[q]) : contributions[q];
      }
      const NodeSpec& in = m_g.node(u);
      if (sum.defined() && !sum.sizes().equals(in.shape))
        throw RunnerError(ExitCode::Execution, where(s) + ": the gradient for operand '" + in.id + "' is " +
                                                   shapeText(sum.sizes()) + " but the graph says " +
                                                   shapeText(in.shape));
      at::Tensor& buffer = m_g.isOp(u) ? m_grads[u] : m_paramGrads[u];
      if (!m_g.isOp(u) && sum.defined()) m_paramContributed[u] = true;
      const at::ScalarType type = scalarType(in.dtype);
      if (!buffer.defined()) {
        if (!sum.defined()) {
          // No contribution (an integer or boolean operation value, batch norm's running statistics):
          // the simulator still counts a gradient buffer, so one exists, filled with zeros.
          buffer = at::zeros(in.shape, at::TensorOptions().dtype(type).device(m_dev.device));
        } else if (sum.scalar_type() == type && ownsExactStorage(sum, in.denseBytes(), others)) {
          buffer = sum;
        } else {
          buffer = at::empty(in.shape, at::TensorOptions().dtype(type).device(m_dev.device));
          buffer.copy_(sum);
        }
      } else if (sum.defined()) {
        buffer.add_(sum);
      }
    }
  }

  // A power of two, at least 4 entries per node: account() counts at most 2 storages per node (a
  // parameter and its gradient, or a value and its gradient), so the table stays at most half full.
  // (C++17 here, for clang's sake: no std::bit_ceil.)
  std::size_t seenTableSize() const {
    std::size_t size = 1;
    while (size < 4 * m_g.nodes.size() + 4) size <<= 1;
    return size;
  }

  // Whether storage s was already counted by this call of account(): an open-addressing table, sized
  // once by nameSteps (which every recording iteration has run) for every tensor the tables can hold,
  // entries of older calls told apart by their stamp, so that accounting allocates nothing.
  bool seenBefore(const c10::StorageImpl* s) {
    const std::size_t mask = m_seen.size() - 1;
    // Fibonacci hashing: the product's high bits mix every bit of the address (its low bits are zero).
    std::uint64_t h = reinterpret_cast<std::uintptr_t>(s);
    h = (h ^ (h >> 32)) * 0x9E3779B97F4A7C15ULL;
    std::size_t at = static_cast<std::size_t>(h >> 32) & mask;
    for (;; at = (at + 1) & mask) {
      auto& [storage, stamp] = m_seen[at];
      if (stamp != m_stamp) {
        storage = s;
        stamp = m_stamp;
        return false;
      }
      if (storage == s) return true;
    }
  }

  // Live storage of the tables, each storage once. A storage is attributed to the first holder in this
  // order: parameters, inputs, parameter gradients, values and gradients of nodes the graph counts with
  // their size, then those of zero-byte views; storage only views hold is also reported as alias bytes.
  void account(Breakdown& b, AliasBytes& alias) {
    b = Breakdown{};
    alias = AliasBytes{};
    if (++m_stamp == 0) {  // the stamp wrapped: forget every entry
      std::fill(m_seen.begin(), m_seen.end(), std::pair<const c10::StorageImpl*, std::uint32_t>{nullptr, 0});
      m_stamp = 1;
    }
    auto add = [&](const at::Tensor& t, std::int64_t& category, std::int64_t* aliasCategory) {
      if (!t.defined() || !t.has_storage()) return;
      const c10::StorageImpl* s = storageOf(t);
      if (seenBefore(s)) return;
      const auto bytes = static_cast<std::int64_t>(s->nbytes());
      category += bytes;
      if (aliasCategory) *aliasCategory += bytes;
    };
    const std::size_t n = m_g.nodes.size();
    for (std::size_t v = 0; v < n; ++v)
      if (m_g.node(v).kind == NodeKind::Param) add(m_resident[v], b.params, nullptr);
    for (std::size_t v = 0; v < n; ++v)
      if (m_g.node(v).kind == NodeKind::Input) add(m_resident[v], b.inputs, nullptr);
    for (std::size_t v = 0; v < n; ++v) add(m_paramGrads[v], b.paramGrads, nullptr);
    for (int pass = 0; pass < 2; ++pass) {
      const bool views = pass == 1;
      for (std::size_t v = 0; v < n; ++v) {
        if (!m_g.isOp(v) || m_g.node(v).isAliasView() != views) continue;
        if (m_recomputed[v])
          add(m_values[v], b.recomputed, views ? &alias.recomputed : nullptr);
        else
          add(m_values[v], b.values, views ? &alias.values : nullptr);
      }
      for (std::size_t v = 0; v < n; ++v) {
        if (!m_g.isOp(v) || m_g.node(v).isAliasView() != views) continue;
        add(m_grads[v], b.grads, views ? &alias.grads : nullptr);
      }
    }
  }

  const GraphSpec& m_g;
  const PlanSpec& m_plan;
  std::vector<ScriptStep> m_script;
  Device m_dev;
  std::vector<at::Tensor>& m_resident;
  std::uint64_t m_seed;
  AllocationCounter* m_counter;  // null where the CPU allocator is not counted
  // account()'s table of the storages it has counted (seenBefore), with the stamp of the call.
  std::vector<std::pair<const c10::StorageImpl*, std::uint32_t>> m_seen;
  std::uint32_t m_stamp = 0;
  std::vector<at::Tensor> m_values, m_grads, m_paramGrads;
  std::vector<bool> m_recomputed, m_paramContributed;
};

// The plain framework run: every operation forward under autograd in topological order, then
// backward() from the outputs. Returns the gradient of every parameter (zeros where autograd gives none).
// As in an eager PyTorch program, a value is let go once its last consumer has run: from then on only
// autograd holds it, where some backward saved it.
std::vector<at::Tensor> baselineIteration(const GraphSpec& g, const std::vector<at::Tensor>& resident,
                                          std::uint64_t seed, double& loss) {
  at::AutoGradMode enable(true);
  const std::size_t n = g.nodes.size();
  std::vector<at::Tensor> leaves(n), values(n);
  std::vector<std::size_t> consumersLeft(n);
  for (std::size_t v = 0; v < n; ++v) consumersLeft[v] = g.successors[v].size();
  for (std::size_t v = 0; v < n; ++v) {
    if (g.node(v).kind == NodeKind::Op) continue;
    leaves[v] = resident[v].detach();
    if (g.node(v).hasGradient() && at::isFloatingType(leaves[v].scalar_type())) leaves[v].requires_grad_(true);
  }
  for (std::size_t v : g.topoOps) {
    std::vector<at::Tensor> inputs;
    for (std::size_t u : g.node(v).inputs) inputs.push_back(g.isOp(u) ? values[u] : leaves[u]);
    try {
      values[v] = detail::runForward(ForwardCall{g, v, inputs, nodeSeed(seed, v)});
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (isOutOfMemory(e))
        throw outOfMemory(g.file + ": baseline forward of node '" + g.node(v).id + "' (op " + g.node(v).op + ")", e);
      throw RunnerError(ExitCode::Execution, g.file + ": baseline forward of node '" + g.node(v).id + "' (op " +
                                                 g.node(v).op + "): " + what.substr(0, what.find('\n')));
    }
    // successors are distinct, so a value read twice by one op (x * x) counts that op once.
    std::vector<std::size_t> read = g.node(v).inputs;
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    for (std::size_t u : read)
      if (g.isOp(u) && --consumersLeft[u] == 0) values[u].reset();
  }
  std::vector<at::Tensor> outputs, seeds;
  for (std::size_t v : g.topoOps)
    if (g.successors[v].empty() && values[v].requires_grad()) {
      outputs.push_back(values[v]);
      seeds.push_back(at::ones_like(values[v]));
      if (values[v].numel() == 1) loss = values[v].item<double>();
    }
  torch::autograd::backward(outputs, seeds);
  std::vector<at::Tensor> grads(n);
  for (std::size_t v = 0; v < n; ++v)
    if (g.node(v).hasGradient())
      grads[v] =
          leaves[v].requires_grad() && leaves[v].grad().defined() ? leaves[v].grad() : at::zeros_like(resident[v]);
  return grads;
}

struct TensorDiff {
  double maxAbs = 0.0;  // NaN where any element differs by NaN
  double scale = 0.0;   // the reference's largest magnitude
  bool close = true;    // at::allclose over the whole tensor
};

// Compares a tensor with its reference in double on the CPU, a million elements at a time: the same
// numbers as one pass over the whole tensor, without its full-size double copies and their temporaries
// (four of them at once, 1.2 GB for GPT-2's token embedding, whose page faults took most of a checked run).
TensorDiff compareTensors(const at::Tensor& got, const at::Tensor& reference, double rtol, double atol) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  const at::Tensor a = got.detach().reshape(-1);
  const at::Tensor b = reference.detach().reshape(-1);
  TensorDiff d;
  for (std::int64_t offset = 0; offset < a.numel(); offset += kChunk) {
    const std::int64_t n = std::min(kChunk, a.numel() - offset);
    const at::Tensor x = a.narrow(0, offset, n).to(at::kCPU, at::kDouble);
    const at::Tensor y = b.narrow(0, offset, n).to(at::kCPU, at::kDouble);
    const double m = (x - y).abs().max().item<double>();
    d.maxAbs = std::isnan(m) || std::isnan(d.maxAbs) ? NAN : std::max(d.maxAbs, m);
    d.scale = std::max(d.scale, y.abs().max().item<double>());
    d.close = d.close && at::allclose(x, y, rtol, atol);
  }
  return d;
}

void compareGradients(const GraphSpec& g, const std::vector<at::Tensor>& got,
                      const std::unordered_map<std::string, at::Tensor>& reference, GradientCheck& check) {
  for (std::size_t v = 0; v < g.nodes.size(); ++v) {
    if (!g.node(v).hasGradient() || !got[v].defined() || !at::isFloatingType(got[v].scalar_type())) continue;
    ParamGradCheck p;
    p.name = g.node(v).id;
    auto it = reference.find(p.name);
    if (it == reference.end()) {
      p.ok = false;
      p.maxAbsDiff = p.maxRelDiff = INFINITY;
    } else {
      if (!got[v].sizes().equals(it->second.sizes())) {
        p.ok = false;
        p.maxAbsDiff = p.maxRelDiff = INFINITY;
      } else {
        const TensorDiff d = compareTensors(got[v], it->second, check.rtol, check.atol);
        p.maxAbsDiff = d.maxAbs;
        p.maxRelDiff = d.scale > 0 ? p.maxAbsDiff / d.scale : (p.maxAbsDiff > 0 ? INFINITY : 0.0);
        p.ok = d.close && !std::isnan(p.maxAbsDiff);
      }
    }
    check.passed = check.passed && p.ok;
    check.maxAbsDiff = std::max(check.maxAbsDiff, p.maxAbsDiff);
    check.maxRelDiff = std::max(check.maxRelDiff, p.maxRelDiff);
    check.params.push_back(std::move(p));
  }
}

std::unordered_map<std::string, at::Tensor> byName(const GraphSpec& g, const std::vector<at::Tensor>& grads) {
  std::unordered_map<std::string, at::Tensor> out;
  for (std::size_t v = 0; v < g.nodes.size(); ++v)
    if (grads[v].defined()) out[g.node(v).id] = grads[v];
  return out;
}

void saveGradients(const std::string& path, const GraphSpec& g, const std::vector<at::Tensor>& grads) {
  c10::Dict<std::string, at::Tensor> dict;
  for (std::size_t v = 0; v < g.nodes.size(); ++v)
    if (g.node(v).kind == NodeKind::Param && grads[v].defined()) dict.insert(g.node(v).id, grads[v].detach().cpu());
  const std::vector<char> bytes = torch::jit::pickle_save(c10::IValue(dict));
  writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}

std::unordered_map<std::string, at::Tensor> loadGradients(const std::string& path) {
  const std::string text = readTextFile(path);
  std::unordered_map<std::string, at::Tensor> out;
  try {
    const c10::IValue value = torch::jit::pickle_load(std::vector<char>(text.begin(), text.end()));
    for (const auto& entry : value.toGenericDict()) out[entry.key().toStringRef()] = entry.value().toTensor();
  } catch (const std::exception& e) {
    throw RunnerError(ExitCode::Input, path + ": not a gradient file written by --grads-out: " +
                                           std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
  }
  return out;
}

#ifdef REMAT_RUNTIME_CUDA
CudaStats cudaStats(int device) {
  using namespace c10::cuda::CUDACachingAllocator;
  const DeviceStats s = getDeviceStats(device);
  const auto all = static_cast<std::size_t>(StatType::AGGREGATE);
  return CudaStats{s.allocated_bytes[all].peak, s.reserved_bytes[all].peak, s.reserved_bytes[all].current};
}
#endif

void resetPeak(const Device& d) {
#ifdef REMAT_RUNTIME_CUDA
  if (d.cuda) c10::cuda::CUDACachingAllocator::resetPeakStats(d.index);
#else
  (void)d;
#endif
}

std::optional<CudaStats> peakStats(const Device& d) {
#ifdef REMAT_RUNTIME_CUDA
  if (d.cuda) return cudaStats(d.index);
#else
  (void)d;
#endif
  return std::nullopt;
}

struct Loaded {
  GraphSpec graph;
  PlanSpec plan;
  std::vector<ScriptStep> script;
};

Loaded load(const RunOptions& o) {
  Loaded l;
  l.graph = readGraphSpec(o.graphFile);
  if (o.planFile) l.plan = readPlanSpec(*o.planFile, l.graph);
  // Every operation must be executable before anything runs.
  std::vector<std::string> problems;
  for (std::size_t v : l.graph.topoOps)
    if (auto why = detail::unsupportedReason(l.graph, v)) problems.push_back(*why);
  if (!problems.empty()) {
    std::string message = l.graph.file + ": " + problems.front();
    if (problems.size() > 1) message += " (and " + std::to_string(problems.size() - 1) + " more)";
    throw RunnerError(ExitCode::UnsupportedOp, message);
  }
  if (o.planFile) l.script = makePlayScript(l.graph, l.plan, o.liveness);
  return l;
}

}  // namespace

void checkOnly(const RunOptions& options) { (void)load(options); }

namespace {

Measurement runLoaded(const RunOptions& o, Loaded& l);

}  // namespace

Measurement run(const RunOptions& o) {
  Loaded l = load(o);
  // Whatever allocates outside a step (parameters and inputs, the baseline's backward, the gradient
  // check) may run out of memory too; that is its own outcome (exit code 10), not a bug.
  try {
    return runLoaded(o, l);
  } catch (const RunnerError&) {
    throw;
  } catch (const std::exception& e) {
    if (isOutOfMemory(e)) throw outOfMemory(l.graph.file + " on " + o.device, e);
    throw;
  }
}

namespace {

// What the C library does with freed CPU memory, for the measurement's `cpu_heap`. By default glibc
// serves large blocks (above a threshold that adapts up to 32 MiB) with their own mappings and unmaps
// them when freed, and trims the heap's top: the next tensor of that size then page-faults every page
// in again. On this project's 2-core VM a fault costs about 12 us, so a 3x3 convolution's backward over
// 512 channels on a 2x2 map took 32 ms with its 9.4 MB weight-sized buffers fresh and 4 ms with them
// reused, and which of the two a step got depended on what the plan had freed before it: the same
// kernel measured 36 ms in one plan and 59 ms in another. Kept, the measured iterations reuse the
// memory the warm-up faulted in, as a caching allocator does on CUDA, and each step's time is its own.
std::string controlCpuHeap(bool keep) {
  if (!keep) return "returned";
#if defined(__GLIBC__)
  // No mappings of their own (every block from the heap) and no trimming: both return 1 when taken.
  // A sanitizer's allocator replaces malloc and takes neither.
  if (mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1) return "kept";
#endif
  return "default";
}

// The process's minor page faults so far (memory touched for the first time since it was mapped).
std::int64_t minorPageFaults() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<std::int64_t>(usage.ru_minflt) : 0;
}

// Whether this kernel counts minor faults at all: some sandboxes report 0 whatever
// the process touches, and a 0 from them is no measurement. Touches 16 fresh pages and looks.
bool minorPageFaultsCounted() {
  constexpr std::size_t kPages = 16;
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return false;
  const std::size_t bytes = kPages * static_cast<std::size_t>(page);
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return false;
  const std::int64_t before = minorPageFaults();
  auto* bytesOf = static_cast<volatile char*>(region);
  for (std::size_t i = 0; i < kPages; ++i) bytesOf[i * static_cast<std::size_t>(page)] = 1;
  const std::int64_t after = minorPageFaults();
  munmap(region, bytes);
  return after > before;
}

// A warm-up iteration that page-faults fewer pages than this found the memory it needed.
constexpr std::int64_t kQuietFaultPages = 256;
// The most warm-up iterations run beyond those asked for while the memory has not settled.
constexpr int kMoreWarmup = 8;

// Runs `iteration` `asked` times, unmeasured. With `settle` (and at least one asked), it goes on, up to
// kMoreWarmup more times, while the last one page-faulted kQuietFaultPages or more: memory LibTorch
// takes outside the counting allocator's block cache (a library's own malloc) may need more than one
// iteration to reach its high-water mark, and that iteration would have been a measured one.
// Returns how many it ran.
template <class Iteration>
int warmUp(int asked, bool settle, Iteration&& iteration) {
  int run = 0;
  std::int64_t lastFaults = 0;
  while (run < asked || (settle && run > 0 && run < asked + kMoreWarmup && lastFaults >= kQuietFaultPages)) {
    const std::int64_t before = minorPageFaults();
    iteration();
    lastFaults = minorPageFaults() - before;
    ++run;
  }
  return run;
}

Measurement runLoaded(const RunOptions& o, Loaded& l) {
  const GraphSpec& g = l.graph;
  const Device dev = openDevice(o.device);
  // Deterministic kernels where LibTorch has them. Some CUDA backward kernels have none (max-pool's,
  // for one); those warn (LibTorch names them) instead of failing the run, and the gradient check's
  // tolerance covers their reordered sums.
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
  if (o.threads > 0) at::set_num_threads(o.threads);

  Measurement m;
  m.graph = g.name;
  m.graphFile = g.file;
  m.mode = o.planFile ? "plan" : "baseline";
  m.planFile = o.planFile.value_or("");
  m.solver = l.plan.solver;
  m.device = o.device;
  m.torchVersion = TORCH_VERSION;
  m.seed = o.seed;
  m.iterations = o.iterations;
  m.liveness = o.liveness;
  if (minorPageFaultsCounted()) m.pageFaults = 0;

  // On the CPU, every byte ATen allocates is counted from here on (parameters and inputs included), so
  // that "measured" means what the framework allocated, not only what the tables hold.
  AllocationCounter* counter = nullptr;
  if (!dev.cuda) {
    m.cpuHeap = controlCpuHeap(o.keepHeap);
    counter = detail::installCountingCpuAllocator(m.cpuAllocatorNote);
    if (counter) m.cpuAllocator = CpuAllocatorStats{};
    // glibc's heap, kept, can still grow in a late iteration (a large block finds no hole big enough
    // among the small blocks freed around it): LibTorch's large blocks are kept by size instead.
    if (counter && m.cpuHeap == "kept") counter->keepLargeBlocks();
  }
  // Where the heap is kept and faults are counted, the warm-up goes on until the heap has settled.
  const bool settleHeap = m.cpuHeap == "kept" && m.pageFaults.has_value();
  std::vector<at::Tensor> resident = makeResident(g, o.seed, dev);
  std::vector<at::Tensor> grads;
  if (o.planFile) {
    Player player(g, l.plan, l.script, dev, resident, o.seed, counter);
    // Everything the loop keeps is allocated before it (see Player::iteration).
    player.nameSteps(m.steps);
    std::vector<std::vector<double>> perStep(l.script.size());
    for (auto& times : perStep) times.reserve(static_cast<std::size_t>(o.iterations));
    m.iterationSeconds.reserve(static_cast<std::size_t>(o.iterations));
    std::vector<double> stepSeconds(l.script.size());
    m.warmup = warmUp(o.warmup, settleHeap, [&] {
      synchronize(dev);
      player.iteration(false, m.steps, stepSeconds, m.loss);
      synchronize(dev);
    });
    resetPeak(dev);
    for (int it = 0; it < o.iterations; ++it) {
      synchronize(dev);
      const std::int64_t faults = minorPageFaults();
      const auto t0 = Clock::now();
      player.iteration(it == 0, m.steps, stepSeconds, m.loss);
      synchronize(dev);
      m.iterationSeconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      if (m.pageFaults) *m.pageFaults += minorPageFaults() - faults;
      for (std::size_t s = 0; s < stepSeconds.size(); ++s) perStep[s].push_back(stepSeconds[s]);
    }
    for (std::size_t s = 0; s < m.steps.size(); ++s) {
      m.steps[s].seconds = median(perStep[s]);
      if (m.cpuAllocator && m.steps[s].allocator && m.steps[s].allocator->peak > m.cpuAllocator->peakBytes) {
        m.cpuAllocator->peakBytes = m.steps[s].allocator->peak;
        m.cpuAllocator->peakStep = s;
      }
    }
    m.cuda = peakStats(dev);
    grads = player.paramGrads();
    for (std::size_t v = 0; v < g.nodes.size(); ++v)
      if (g.node(v).kind == NodeKind::Param && grads[v].defined() && !player.paramContributed()[v])
        m.modelOnlyParamGrads.push_back(g.node(v).id);
  } else {
    m.iterationSeconds.reserve(static_cast<std::size_t>(o.iterations));
    m.warmup = warmUp(o.warmup, settleHeap, [&] {
      grads.clear();
      synchronize(dev);
      grads = baselineIteration(g, resident, o.seed, m.loss);
      synchronize(dev);
    });
    resetPeak(dev);
    for (int it = 0; it < o.iterations; ++it) {
      grads.clear();  // the last iteration's gradients are not part of this one
      if (counter) counter->resetPeak();
      synchronize(dev);
      const std::int64_t faults = minorPageFaults();
      const auto t0 = Clock::now();
      grads = baselineIteration(g, resident, o.seed, m.loss);
      synchronize(dev);
      m.iterationSeconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      if (m.pageFaults) *m.pageFaults += minorPageFaults() - faults;
      if (counter) m.cpuAllocator->peakBytes = std::max(m.cpuAllocator->peakBytes, counter->peak());
    }
    m.cuda = peakStats(dev);
  }

  if (o.gradsRef || (o.checkGrads && o.planFile)) {
    GradientCheck check;
    check.rtol = o.rtol;
    check.atol = o.atol;
    std::unordered_map<std::string, at::Tensor> reference;
    if (o.gradsRef) {
      check.reference = *o.gradsRef;
      reference = loadGradients(*o.gradsRef);
    } else {
      check.reference = "baseline";
      double baselineLoss = 0;
      reference = byName(g, baselineIteration(g, resident, o.seed, baselineLoss));
    }
    compareGradients(g, grads, reference, check);
    m.gradients = std::move(check);
  }
  if (o.gradsOut) saveGradients(*o.gradsOut, g, grads);
  return m;
}

}  // namespace

}  // namespace remat::runtime
