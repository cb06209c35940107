// The ONNX reader: libonnx's protobuf classes and shape inference stay in this translation unit.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "OnnxShapeFolding.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/Einsum.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/graph/OpTable.hpp"
#include "remat/io/Onnx.hpp"
#include "remat/io/detail/ReaderSupport.hpp"

namespace remat::io {
namespace {

using graph::NodeKind;
using graph::NodeSpec;
using graph::OpSpec;

// The dtype name Remat writes for an ONNX element type; empty for types it does not size.
std::string dtypeName(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: return "float32";
    case onnx::TensorProto::FLOAT16: return "float16";
    case onnx::TensorProto::BFLOAT16: return "bfloat16";
    case onnx::TensorProto::DOUBLE: return "float64";
    case onnx::TensorProto::INT64: return "int64";
    case onnx::TensorProto::INT32: return "int32";
    case onnx::TensorProto::INT16: return "int16";
    case onnx::TensorProto::INT8: return "int8";
    case onnx::TensorProto::UINT8: return "uint8";
    case onnx::TensorProto::UINT16: return "uint16";
    case onnx::TensorProto::UINT32: return "uint32";
    case onnx::TensorProto::UINT64: return "uint64";
    case onnx::TensorProto::BOOL: return "bool";
    default: return {};
  }
}

bool isFloating(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::BFLOAT16 || type == onnx::TensorProto::DOUBLE;
}

// What Remat knows of one tensor: element type and dimensions (-1 where unknown, with the symbol).
struct TensorType {
  int elemType = 0;
  bool ranked = false;
  std::vector<std::int64_t> dims;
  std::vector<std::string> symbols;  // per dimension: the dim_param, or empty
};

TensorType fromTypeProto(const onnx::TypeProto& t) {
  TensorType out;
  if (!t.has_tensor_type()) return out;
  out.elemType = t.tensor_type().elem_type();
  if (!t.tensor_type().has_shape()) return out;
  out.ranked = true;
  for (const auto& d : t.tensor_type().shape().dim()) {
    out.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    out.symbols.push_back(d.has_dim_param() ? d.dim_param() : std::string{});
  }
  return out;
}

TensorType fromTensorProto(const onnx::TensorProto& t) {
  TensorType out;
  out.elemType = t.data_type();
  out.ranked = true;
  for (std::int64_t d : t.dims()) {
    out.dims.push_back(d);
    out.symbols.emplace_back();
  }
  return out;
}

bool fullyKnown(const TensorType& t) {
  if (!t.ranked) return false;
  for (std::int64_t d : t.dims)
    if (d < 0) return false;
  return true;
}

std::string shapeText(const TensorType& t) {
  if (!t.ranked) return "unranked";
  std::string s = "[";
  for (std::size_t k = 0; k < t.dims.size(); ++k) {
    if (k) s += ", ";
    s += t.dims[k] >= 0 ? std::to_string(t.dims[k]) : (t.symbols[k].empty() ? "?" : t.symbols[k]);
  }
  return s + "]";
}

// Bytes of a fully known tensor, or nullopt when the product overflows 63 bits.
std::optional<std::int64_t> tensorBytes(const TensorType& t, std::int64_t elementBytes) {
  std::int64_t n = elementBytes;
  for (std::int64_t d : t.dims)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

double elementCount(const TensorType& t) {
  double n = 1;
  for (std::int64_t d : t.dims) n *= double(d);
  return n;
}

// The bytes of data an initializer carries in the file, or nullopt when it keeps them elsewhere.
std::optional<std::int64_t> storedBytes(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  if (t.has_raw_data()) return static_cast<std::int64_t>(t.raw_data().size());
  const auto size = graph::dtypeBytes(dtypeName(t.data_type()));
  if (!size) return std::nullopt;
  const std::int64_t count = t.float_data_size() + t.int32_data_size() + t.int64_data_size() + t.double_data_size() +
                             t.uint64_data_size() + t.string_data_size();
  if (count == 0) return std::nullopt;  // no data at all: the model was saved without its weights
  return count * *size;
}

// The ONNX attributes as a JSON object (numbers, strings and their lists; tensors and graphs by kind).
// `operands`: values of operands the import leaves out (shape-like constants), each under its ONNX schema
// name; an attribute of the same name wins (older opsets carry them as attributes).
std::string attributesJson(const onnx::NodeProto& node, std::size_t output, nlohmann::json operands) {
  nlohmann::json j = operands.is_object() ? std::move(operands) : nlohmann::json::object();
  for (const auto& a : node.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::INT: j[a.name()] = a.i(); break;
      case onnx::AttributeProto::FLOAT: j[a.name()] = a.f(); break;
      case onnx::AttributeProto::STRING: j[a.name()] = a.s(); break;
      case onnx::AttributeProto::INTS: j[a.name()] = std::vector<std::int64_t>(a.ints().begin(), a.ints().end()); break;
      case onnx::AttributeProto::FLOATS: j[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end()); break;
      case onnx::AttributeProto::STRINGS:
        j[a.name()] = std::vector<std::string>(a.strings().begin(), a.strings().end());
        break;
      default: j[a.name()] = "<" + onnx::AttributeProto_AttributeType_Name(a.type()) + ">"; break;
    }
  }
  if (!node.name().empty()) j["onnx_node"] = node.name();
  if (output > 0) j["onnx_output"] = output;
  if (!node.domain().empty() && node.domain() != "ai.onnx") j["onnx_domain"] = node.domain();
  return j.empty() ? std::string{} : j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Convolution and pooling windows: ONNX's shape inference divides by strides and dilations and
// indexes by the kernel's rank without checking them. Empty when the attributes are sound.
std::string badWindowAttribute(const onnx::NodeProto& n) {
  static const std::set<std::string> kWindowed{"Conv",       "ConvTranspose", "ConvInteger", "QLinearConv",
                                               "MaxPool",    "AveragePool",   "LpPool",      "MaxUnpool",
                                               "MaxRoiPool", "DeformConv"};
  if (!kWindowed.contains(n.op_type())) return {};
  std::map<std::string, std::size_t> lengths;
  for (const auto& a : n.attribute()) {
    const std::string& name = a.name();
    const bool positive = name == "strides" || name == "dilations" || name == "kernel_shape";
    if (positive || name == "pads" || name == "output_padding" || name == "output_shape") {
      for (std::int64_t v : a.ints())
        if (positive ? v < 1 : v < 0)
          return "attribute '" + name + "' holds " + std::to_string(v) +
                 (positive ? "; it must be at least 1" : "; it must not be negative");
      lengths[name] = static_cast<std::size_t>(a.ints_size());
    }
    if (name == "group" && a.i() < 1)
      return "attribute 'group' is " + std::to_string(a.i()) + "; it must be at least 1";
  }
  // Per spatial axis: kernel_shape, strides, dilations, output_padding; pads twice as many.
  std::optional<std::size_t> rank;
  for (const char* name : {"kernel_shape", "strides", "dilations", "output_padding"}) {
    auto it = lengths.find(name);
    if (it == lengths.end()) continue;
    if (rank && *rank != it->second)
      return std::string("attribute '") + name + "' does not have one value per spatial axis";
    rank = it->second;
  }
  if (auto pads = lengths.find("pads"); pads != lengths.end() && rank && pads->second != 2 * *rank)
    return "attribute 'pads' needs two values per spatial axis";
  return {};
}

// Element strides of a dense row-major tensor.
std::vector<std::int64_t> denseStrides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> out(dims.size());
  std::int64_t step = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    out[d] = step;
    step *= std::max<std::int64_t>(dims[d], 1);
  }
  return out;
}

// The strides under which a tensor of dimensions `from` laid out with `strides` can be seen with the
// dimensions `to` without moving data, or nullopt when it cannot (then PyTorch's reshape copies and
// its view refuses). The old dimensions fall into runs whose elements are evenly spaced (a dimension's
// stride is the next inner one's span); each run must be refined by a run of the new dimensions with
// the same element count, whose strides then follow from the run's innermost stride.
std::optional<std::vector<std::int64_t>> viewStrides(const std::vector<std::int64_t>& from,
                                                     const std::vector<std::int64_t>& strides,
                                                     const std::vector<std::int64_t>& to) {
  std::int64_t count = 1;
  for (std::int64_t d : from) count *= d;
  if (from.empty() || count == 0) return denseStrides(to);
  std::vector<std::int64_t> out(to.size());
  std::int64_t next = static_cast<std::int64_t>(to.size()) - 1;  // innermost new dimension not placed yet
  std::int64_t base = strides.back();                            // stride of the current run's innermost dimension
  std::int64_t runCount = 1;                                     // elements of the old run so far
  std::int64_t placed = 1;                                       // elements of the new dimensions placed in it
  for (std::size_t d = from.size(); d-- > 0;) {
    runCount *= from[d];  // at most the element count: no overflow
    if (base <= 0) return std::nullopt;
    // The run goes on when the next outer dimension's stride is the run's span, runCount·base (compared by
    // division: the product can exceed 64 bits where it is not a stride).
    const bool runEnds =
        d == 0 || (from[d - 1] != 1 && !(strides[d - 1] % base == 0 && strides[d - 1] / base == runCount));
    if (!runEnds) continue;
    while (next >= 0 && (placed < runCount || to[static_cast<std::size_t>(next)] == 1)) {
      out[static_cast<std::size_t>(next)] = placed * base;
      placed *= to[static_cast<std::size_t>(next)];
      --next;
    }
    if (placed != runCount) return std::nullopt;
    if (d > 0) {
      base = strides[d - 1];
      runCount = 1;
      placed = 1;
    }
  }
  if (next != -1) return std::nullopt;
  return out;
}

// A constant's elements as JSON: integers as integers, reals as reals, and the reals JSON cannot
// write as the strings "inf", "-inf" and "nan"; a scalar (rank 0) as one value, else a flat list.
nlohmann::json valuesJson(const std::vector<double>& values, bool integer, bool scalar) {
  auto one = [integer](double x) -> nlohmann::json {
    if (integer) return static_cast<std::int64_t>(x);
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return x;
  };
  if (scalar && values.size() == 1) return one(values[0]);
  nlohmann::json list = nlohmann::json::array();
  for (double x : values) list.push_back(one(x));
  return list;
}

bool contains(const std::vector<std::uint32_t>& v, std::size_t k) {
  return std::find(v.begin(), v.end(), static_cast<std::uint32_t>(k)) != v.end();
}

class OnnxImport {
 public:
  OnnxImport(onnx::ModelProto& model, const std::string& file, const OnnxOptions& options)
      : m_model(model), m_graph(*model.mutable_graph()), m_options(options), m_diag(file) {}

  Result<graph::ComputeGraph> run() {
    if (!namesAreText() || !nodesMatchSchemas() || !tensorsAreSound()) return m_diag.failure();
    indexConsumers();
    classifyInputs();
    if (!applyBatch()) return m_diag.failure();
    inferShapes();
    if (m_diag.hasErrors()) return m_diag.failure();
    collectTypes();
    for (const auto& init : m_graph.initializer()) m_fileInitializers.insert(init.name());
    foldShapes();
    findStatic();
    assumeUnknownShapes();
    emitInputs();
    emitNodes();
    if (m_unknownShapes > 1)
      m_diag.error(m_diag.at(0), std::to_string(m_unknownShapes - 1) + " more output" +
                                     (m_unknownShapes == 2 ? " has" : "s have") + " no known shape after it");
    if (m_diag.hasErrors()) return m_diag.failure();
    warnUnknown();
    graph::GraphBuilder builder;
    builder.setName(graphName());
    builder.setTimeUnit("ns");
    builder.setSource(m_diag.at(0));
    for (auto& spec : m_specs) builder.add(std::move(spec));
    auto built = m_diag.build(builder);
    if (!built.ok()) return built;
    auto costed = graph::applyCostModel(built.value(), "flops");
    if (!costed.ok()) return costed;
    Result<graph::ComputeGraph> out(std::move(costed).value(), built.warnings());
    return out;
  }

 private:
  struct Use {
    std::size_t node;
    std::size_t position;
  };

  std::string where(std::size_t k) const {
    const auto& n = m_graph.node(static_cast<int>(k));
    std::string s = "node " + std::to_string(k);
    if (!n.name().empty() && detail::isValidUtf8(n.name())) s += " '" + n.name() + "'";
    return s + " (" + n.op_type() + ")";
  }

  const OpSpec* specOf(const onnx::NodeProto& n) const {
    if (!n.domain().empty() && n.domain() != "ai.onnx") return nullptr;
    return graph::findOpSpec(n.op_type());
  }

  std::string graphName() const {
    std::string stem = detail::fileStem(m_diag.file());
    if (!stem.empty()) return stem;
    return m_graph.name().empty() ? "onnx" : m_graph.name();
  }

  // Tensor names become node ids and operation types node fields of the native format, which is
  // UTF-8 text; protobuf does not check that ONNX's strings are.
  // Every tensor the model carries (initializers, Constant values, in subgraphs too) holds as many
  // bytes as its shape says: ONNX's shape inference copies them without checking (and crashes).
  bool tensorsAreSound() {
    checkTensors(m_graph, 0);
    return !m_diag.hasErrors();
  }

  void checkTensor(const onnx::TensorProto& t, const std::string& what) {
    const TensorType type = fromTensorProto(t);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return;  // kept outside the file, never read
    const auto size = graph::dtypeBytes(dtypeName(t.data_type()));
    const auto claimed = size ? tensorBytes(type, *size) : std::nullopt;
    for (std::int64_t d : t.dims())
      if (d < 0) {
        m_diag.errorAtPath(what, "a negative dimension in shape " + shapeText(type));
        return;
      }
    if (t.data_type() == onnx::TensorProto::STRING) {
      if (t.has_raw_data()) m_diag.errorAtPath(what, "a string tensor with raw data");
      return;
    }
    const auto stored = storedBytes(t);
    if (!stored) return;  // no data: saved without its weights
    if (!claimed || *stored != *claimed)
      m_diag.errorAtPath(what, "its shape " + shapeText(type) + " claims " +
                                   (claimed ? std::to_string(*claimed) : std::string("an unknown number of")) +
                                   " bytes but its data holds " + std::to_string(*stored));
  }

  void checkTensors(const onnx::GraphProto& g, int depth) {
    if (depth > 8) {
      m_diag.error(m_diag.at(0), "subgraphs nested more than 8 deep");
      return;
    }
    for (const auto& t : g.initializer()) checkTensor(t, "initializer '" + t.name() + "'");
    for (const auto& n : g.node()) {
      for (const auto& a : n.attribute()) {
        const std::string what = "attribute '" + a.name() + "' of a " + n.op_type() + " node";
        if (a.has_t()) checkTensor(a.t(), what);
        for (const auto& t : a.tensors()) checkTensor(t, what);
        if (a.has_g()) checkTensors(a.g(), depth + 1);
        for (const auto& sub : a.graphs()) checkTensors(sub, depth + 1);
        if (a.has_sparse_tensor() || a.sparse_tensors_size() > 0)
          m_diag.errorAtPath(what, "sparse tensors are not supported");
      }
    }
    if (g.sparse_initializer_size() > 0) m_diag.error(m_diag.at(0), "sparse initializers are not supported");
  }

  bool namesAreText() {
    auto check = [&](const std::string& name, const std::string& what) {
      if (!detail::isValidUtf8(name)) m_diag.errorAtPath(what, "a name that is not valid UTF-8");
    };
    for (const auto& v : m_graph.input()) check(v.name(), "graph input");
    for (const auto& t : m_graph.initializer()) check(t.name(), "initializer");
    for (int k = 0; k < m_graph.node_size() && !m_diag.full(); ++k) {
      const auto& n = m_graph.node(k);
      const std::string at = "node " + std::to_string(k);
      check(n.op_type(), at);
      check(n.domain(), at);
      for (const auto& in : n.input()) check(in, at);
      for (const auto& out : n.output()) check(out, at);
    }
    return !m_diag.hasErrors();
  }

  // Every node of a known ONNX operation against its schema at the model's opset: operand and output
  // counts, attribute types, required attributes. ONNX's shape inference trusts all of that and
  // crashes on models that break it, so it runs only on models that pass.
  bool nodesMatchSchemas() {
    auto& opset = m_opsets;
    for (const auto& o : m_model.opset_import())
      opset[o.domain() == "ai.onnx" ? std::string{} : o.domain()] = static_cast<int>(o.version());
    for (int k = 0; k < m_graph.node_size() && !m_diag.full(); ++k) {
      const auto& n = m_graph.node(k);
      const std::string domain = n.domain() == "ai.onnx" ? std::string{} : n.domain();
      auto version = opset.find(domain);
      if (version == opset.end()) {
        m_diag.errorAtPath(where(static_cast<std::size_t>(k)),
                           "the model imports no opset for domain '" + domain + "'");
        continue;
      }
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), version->second, domain);
      if (!schema) continue;  // an operation ONNX does not know: imported as unknown
      try {
        schema->Verify(n);
      } catch (const std::exception& e) {
        m_diag.errorAtPath(where(static_cast<std::size_t>(k)),
                           std::string("does not match its ONNX schema: ") + e.what());
        continue;
      }
      if (const std::string bad = badWindowAttribute(n); !bad.empty())
        m_diag.errorAtPath(where(static_cast<std::size_t>(k)), bad);
    }
    return !m_diag.hasErrors();
  }

  // Shape computations that shape inference could not see through become initializers, and shapes
  // are inferred again from them, until nothing more folds. A round can need the last one's shapes (a
  // Swin block pads by amounts computed from the shape of the block before it: one round per block, 12
  // in Swin-T), and each round removes at least one node, so the loop ends.
  void foldShapes() {
    auto shapeOf = [this](const std::string& name) -> std::optional<std::vector<std::int64_t>> {
      auto it = m_types.find(name);
      if (it == m_types.end() || !it->second.ranked) return std::nullopt;
      return it->second.dims;
    };
    while (true) {
      const std::size_t folded = detail::foldShapeComputations(m_graph, shapeOf);
      if (folded > 0) indexConsumers();
      if (folded == 0 && shapeEinsums() == 0) break;
      inferShapes();
      collectTypes();
    }
  }

  // ONNX's shape inference (libonnx 1.12) gives an Einsum's output its rank only (MaxViT's attention
  // is one), and what follows it then has no shape either. Where every operand's shape is known, the
  // equation gives the output's (graph::einsumShapes); an equation that does not fit its operands is
  // an error at the node. The number of outputs given a shape.
  std::size_t shapeEinsums() {
    std::size_t given = 0;
    for (int k = 0; k < m_graph.node_size(); ++k) {
      const auto& n = m_graph.node(k);
      if (n.op_type() != "Einsum" || !specOf(n) || n.output_size() != 1) continue;
      // Each output once, by name (folding renumbers the nodes between rounds): an error is reported
      // once, and shape inference moves a graph output's type to the graph's output list and may leave it
      // rank-only again, which must not give it a shape round after round.
      if (m_einsumDone.contains(n.output(0))) continue;
      auto known = m_types.find(n.output(0));
      if (known != m_types.end() && fullyKnown(known->second)) continue;
      std::vector<std::vector<std::int64_t>> shapes;
      std::optional<int> elemType;
      for (const auto& in : n.input()) {
        auto t = m_types.find(in);
        if (t == m_types.end() || !fullyKnown(t->second)) break;
        shapes.push_back(t->second.dims);
        elemType = t->second.elemType;
      }
      if (shapes.size() != static_cast<std::size_t>(n.input_size()) || !elemType) continue;
      std::string equation;
      for (const auto& a : n.attribute())
        if (a.name() == "equation") equation = a.s();
      const graph::EinsumShapes e = graph::einsumShapes(equation, shapes);
      m_einsumDone.insert(n.output(0));
      if (!e.error.empty()) {
        m_diag.errorAtPath(where(static_cast<std::size_t>(k)),
                           detail::isValidUtf8(equation)
                               ? "the equation '" + equation + "' does not fit its operands: " + e.error
                               : std::string("the equation is not UTF-8 text"));
        continue;
      }
      // The rank-only entry shape inference left (a graph output's, or an intermediate's), replaced; or
      // a new one.
      onnx::ValueInfoProto* info = nullptr;
      for (auto& v : *m_graph.mutable_output())
        if (v.name() == n.output(0)) info = &v;
      for (auto& v : *m_graph.mutable_value_info())
        if (!info && v.name() == n.output(0)) info = &v;
      if (!info) info = m_graph.add_value_info();
      info->set_name(n.output(0));
      auto* tensor = info->mutable_type()->mutable_tensor_type();
      tensor->set_elem_type(*elemType);
      tensor->mutable_shape()->clear_dim();
      for (std::int64_t d : e.output) tensor->mutable_shape()->add_dim()->set_dim_value(d);
      m_types[n.output(0)] = fromTypeProto(info->type());
      ++given;
    }
    return given;
  }

  void indexConsumers() {
    m_uses.clear();
    m_initializers.clear();
    for (int k = 0; k < m_graph.node_size(); ++k) {
      const auto& n = m_graph.node(k);
      for (int p = 0; p < n.input_size(); ++p)
        if (!n.input(p).empty())
          m_uses[n.input(p)].push_back({static_cast<std::size_t>(k), static_cast<std::size_t>(p)});
    }
    for (const auto& init : m_graph.initializer()) m_initializers.emplace(init.name(), &init);
    m_constantNodes.clear();
    for (const auto& n : m_graph.node())
      if (n.op_type() == "Constant" && n.output_size() == 1) m_constantNodes.emplace(n.output(0), &n);
  }

  // A graph input is a parameter when it is an initializer, or when it is not of an integer or boolean
  // type and feeds a weight position of a known operation or is a floating-point vector (a bias).
  // Otherwise it is data, unless it cannot carry the batch: data has the batch as its first dimension,
  // and the batch is the first dimension of the inputs that are data beyond doubt (integer ids and
  // labels, and what feeds the data operand of an operation with weights, as images a convolution). A
  // floating-point input whose first dimension is fixed at another size is then a parameter broadcast
  // over the batch: ConvNeXt's layer scales [C, 1, 1], ViT's class token [1, 1, D] (exported at a batch
  // other than 1). Taken for data, --batch would rewrite its first dimension, and it would have no
  // gradient.
  void classifyInputs() {
    std::vector<std::pair<std::string, TensorType>> candidates;
    for (const auto& in : m_graph.input()) {
      if (m_initializers.contains(in.name())) continue;
      const TensorType t = fromTypeProto(in.type());
      // Integers and booleans are ids, labels, masks and index tables, never trained: not weights
      // wherever they go (an attention mask cast and added to the scores feeds what looks like a bias);
      // below, data where they carry the batch.
      const bool integral = t.elemType != 0 && !isFloating(t.elemType);
      const bool weight =
          !integral && ((isFloating(t.elemType) && t.ranked && t.dims.size() <= 1) || feedsWeight(in.name()));
      if (weight)
        m_paramInputs.insert(in.name());
      else
        candidates.emplace_back(in.name(), t);
    }
    // The batch as the first dimension's size, or its symbol where the export left it dynamic.
    const auto firstDim = [](const TensorType& t) -> std::optional<std::string> {
      if (!t.ranked || t.dims.empty()) return std::nullopt;
      if (t.dims.front() >= 0) return std::to_string(t.dims.front());
      if (t.symbols.front().empty()) return std::nullopt;
      return "'" + t.symbols.front() + "'";
    };
    // The batch: from the floating-point inputs that feed the data operand of an op with weights (an
    // image into a convolution) where there are any, else from the integer and boolean inputs (ids,
    // labels), which may also be index tables or masks (Swin's relative position index, [2401]).
    std::optional<std::string> batch;
    bool agreed = true;
    for (const bool floating : {true, false}) {
      for (const auto& [name, t] : candidates) {
        if (isFloating(t.elemType) != floating || (floating && !feedsDataOperand(name))) continue;
        const auto d = firstDim(t);
        if (!d) continue;  // a scalar, or a first dimension of no known size or symbol
        if (batch && *batch != *d) agreed = false;
        batch = d;
      }
      if (batch) break;
    }
    for (const auto& [name, t] : candidates) {
      // A fixed first dimension other than the batch's size or symbol: a floating-point input of rank
      // >= 2 that is not the data operand of an op with weights is broadcast over the batch (a layer
      // scale, a class token); an integer or boolean one is a table or a mask (Swin's index feeds a
      // Gather as ids do). Both are parameters (those of integer or boolean type have no gradient),
      // which --batch leaves as they are.
      const bool fixedOther =
          agreed && batch && t.ranked && !t.dims.empty() && t.dims.front() >= 0 && firstDim(t) != batch;
      const bool param = fixedOther && (isFloating(t.elemType) ? t.dims.size() >= 2 && !feedsDataOperand(name) : true);
      (param ? m_paramInputs : m_dataInputs).insert(name);
    }
  }

  // True when the tensor is the data operand of a known operation that has weights (a convolution's
  // or a Gemm's input, a normalization's): a position that is not one of its weight inputs. Not of an
  // elementwise sum or product, whose operands may be either (a scale times the data, or the reverse).
  bool feedsDataOperand(const std::string& name) const {
    static const std::set<std::string> kElementwise{"Add", "Sub", "Mul", "Div"};
    for (const Use& u : usesOf(name)) {
      const auto& consumer = m_graph.node(static_cast<int>(u.node));
      if (kElementwise.contains(consumer.op_type())) continue;
      const OpSpec* spec = specOf(consumer);
      if (spec && !spec->weightInputs.empty() && !contains(spec->weightInputs, u.position)) return true;
    }
    return false;
  }

  // True when the tensor reaches a weight position of a known operation, directly or through a few
  // layout operations (exporters transpose Linear weights for MatMul and slice position tables).
  bool feedsWeight(const std::string& name, int depth = 0) const {
    static const std::set<std::string> kLayout{"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                               "Identity",  "Slice",   "Cast",    "Expand"};
    for (const Use& u : usesOf(name)) {
      const auto& consumer = m_graph.node(static_cast<int>(u.node));
      const OpSpec* spec = specOf(consumer);
      if (spec && contains(spec->weightInputs, u.position)) return true;
      if (depth < 4 && u.position == 0 && kLayout.contains(consumer.op_type()) && consumer.output_size() > 0 &&
          feedsWeight(consumer.output(0), depth + 1))
        return true;
    }
    return false;
  }

  const std::vector<Use>& usesOf(const std::string& name) const {
    static const std::vector<Use> kNone;
    auto it = m_uses.find(name);
    return it == m_uses.end() ? kNone : it->second;
  }

  // --batch: the first dimension of every data input becomes N; shapes inferred by the exporter go.
  // Without it, a data input with a symbolic dimension is an error that says what to do.
  bool applyBatch() {
    for (auto& in : *m_graph.mutable_input()) {
      if (!m_dataInputs.contains(in.name()) || !in.type().has_tensor_type()) continue;
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      for (int d = 0; d < shape->dim_size(); ++d) {
        auto* dim = shape->mutable_dim(d);
        if (d == 0 && m_options.batch) {
          if (dim->has_dim_value() && dim->dim_value() != *m_options.batch)
            m_rebatched.push_back("'" + in.name() + "' (" + std::to_string(dim->dim_value()) + " -> " +
                                  std::to_string(*m_options.batch) + ")");
          dim->clear_dim_param();
          dim->set_dim_value(*m_options.batch);
          continue;
        }
        if (dim->has_dim_value() && dim->dim_value() >= 0) continue;
        const std::string symbol = dim->has_dim_param() ? "'" + dim->dim_param() + "'" : "without a size";
        if (d == 0)
          m_diag.errorAtPath("input '" + in.name() + "'",
                             "dimension 0 is dynamic (" + symbol + "): give the batch size with --batch N");
        else
          m_diag.errorAtPath("input '" + in.name() + "'",
                             "dimension " + std::to_string(d) + " is dynamic (" + symbol +
                                 "): Remat needs static shapes besides the batch; export the model with a fixed size");
      }
    }
    if (m_diag.hasErrors()) return false;
    if (m_options.batch) {
      m_graph.clear_value_info();
      for (auto& out : *m_graph.mutable_output())
        if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
    }
    return true;
  }

  // libonnx 1.12's shape inference crashes on some malformed models that pass every check above
  // (fuzzing keeps finding new ones), so it runs in a forked child: the child infers and sends the
  // model back through a pipe; a child that dies takes only itself down, and the import fails with a
  // clear message. A failed inference keeps the shapes found before it (reported below as unknown).
  void inferShapes() {
    int fds[2];
    if (::pipe(fds) != 0) {
      m_diag.error(m_diag.at(0), "cannot run ONNX shape inference: no pipe");
      return;
    }
    const pid_t child = ::fork();
    if (child < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      m_diag.error(m_diag.at(0), "cannot run ONNX shape inference: fork failed");
      return;
    }
    if (child == 0) {
      ::close(fds[0]);
      std::string reply;
      try {
        onnx::ShapeInferenceOptions options(false, 0, true);
        onnx::shape_inference::InferShapes(m_model, onnx::OpSchemaRegistry::Instance(), options);
        reply = "M" + m_model.SerializeAsString();
      } catch (const std::exception& e) {
        reply = std::string("E") + e.what();
      }
      const char* p = reply.data();
      std::size_t left = reply.size();
      while (left > 0) {
        const ssize_t n = ::write(fds[1], p, left);
        if (n <= 0) ::_exit(2);
        p += n;
        left -= static_cast<std::size_t>(n);
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string reply;
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      reply.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    onnx::ModelProto inferred;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.empty() ||
        (reply[0] == 'M' && !inferred.ParseFromArray(reply.data() + 1, static_cast<int>(reply.size() - 1)))) {
      m_diag.error(m_diag.at(0), "ONNX's shape inference (libonnx) crashed on this model; it is malformed");
      return;
    }
    if (reply[0] == 'E') {
      m_diag.warning(m_diag.at(0), "ONNX shape inference stopped early: " + reply.substr(1));
      return;
    }
    m_graph.Swap(inferred.mutable_graph());
    indexConsumers();  // the index points into the graph's nodes and initializers, which just moved
  }

  // Shape inference knows nothing of operations outside ONNX's schemas, and then nothing of what
  // follows them. Give each such output the type of its largest operand (and say so), then infer again
  // from there, until nothing changes.
  void assumeUnknownShapes() {
    for (int round = 0; round < m_graph.node_size(); ++round) {
      bool added = false;
      for (const auto& n : m_graph.node()) {
        if (specOf(n) || m_static.contains(n.output_size() ? n.output(0) : std::string{})) continue;
        const TensorType* largest = nullptr;
        std::int64_t largestBytes = -1;
        for (const auto& in : n.input()) {
          auto t = m_types.find(in);
          if (t == m_types.end() || !fullyKnown(t->second)) continue;
          const auto b = tensorBytes(t->second, graph::dtypeBytes(dtypeName(t->second.elemType)).value_or(4));
          if (b && *b > largestBytes) {
            largest = &t->second;
            largestBytes = *b;
          }
        }
        if (!largest) continue;
        for (const auto& out : n.output()) {
          if (out.empty()) continue;
          if (auto t = m_types.find(out); t != m_types.end() && fullyKnown(t->second)) continue;
          auto* info = m_graph.add_value_info();
          info->set_name(out);
          auto* tensor = info->mutable_type()->mutable_tensor_type();
          tensor->set_elem_type(largest->elemType);
          for (std::int64_t d : largest->dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
          m_types[out] = *largest;
          m_diag.warningAtPath("output '" + out + "'", "the shape of this output of operation '" + n.op_type() +
                                                           "' is unknown; assumed that of its largest operand " +
                                                           shapeText(*largest));
          added = true;
        }
      }
      if (!added) return;
      inferShapes();
      collectTypes();
    }
  }

  void collectTypes() {
    for (const auto& v : m_graph.input()) m_types[v.name()] = fromTypeProto(v.type());
    for (const auto& v : m_graph.value_info()) m_types[v.name()] = fromTypeProto(v.type());
    for (const auto& v : m_graph.output()) {
      TensorType t = fromTypeProto(v.type());
      if (t.ranked || !m_types.contains(v.name())) m_types[v.name()] = t;
    }
    for (const auto& [name, init] : m_initializers) m_types[name] = fromTensorProto(*init);
    for (const auto& n : m_graph.node()) {
      if (n.op_type() != "Constant" || n.output_size() < 1) continue;
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) m_types[n.output(0)] = fromTensorProto(a.t());
    }
  }

  // Values that do not depend on data or weights: initializers that feed no weight position, Constant
  // outputs, shapes of tensors, and whatever is computed from those alone. They are not tensors of the
  // training step unless an operation uses them as data.
  void findStatic() {
    for (const auto& [name, init] : m_initializers) m_static.insert(name);
    for (const auto& n : m_graph.node()) {
      bool isStatic = n.op_type() == "Constant" || n.op_type() == "Shape" || n.op_type() == "Size";
      if (!isStatic && n.input_size() > 0) {
        isStatic = true;
        for (const auto& in : n.input())
          if (!in.empty() && !m_static.contains(in)) isStatic = false;
      }
      if (isStatic && n.op_type().rfind("Random", 0) != 0)
        for (const auto& out : n.output()) m_static.insert(out);
    }
  }

  std::int64_t bytesOf(const std::string& name, const TensorType& t, const std::string& context) {
    const std::string dtype = dtypeName(t.elemType);
    const auto size = graph::dtypeBytes(dtype);
    if (!size) {
      m_diag.errorAtPath(context, "tensor '" + name + "' has an element type Remat cannot size (ONNX type " +
                                      std::to_string(t.elemType) + ")");
      return 0;
    }
    const auto bytes = tensorBytes(t, *size);
    if (!bytes) {
      m_diag.errorAtPath(context, "tensor '" + name + "' of shape " + shapeText(t) + " claims more than 2^63 bytes");
      return 0;
    }
    return *bytes;
  }

  // A `param` or `input` node for a graph input or a static tensor used as data (once per tensor).
  void emitLeaf(const std::string& name, NodeKind kind, const std::string& context) {
    if (!m_emitted.insert(name).second) return;
    NodeSpec spec;
    spec.name = name;
    spec.kind = kind;
    spec.where = m_diag.at(0, context);
    auto it = m_types.find(name);
    if (it == m_types.end() || !fullyKnown(it->second)) {
      m_diag.errorAtPath(context, "the shape of '" + name + "' is not known" +
                                      (it == m_types.end() ? std::string{} : " (" + shapeText(it->second) + ")"));
      return;
    }
    spec.shape = it->second.dims;
    spec.dtype = dtypeName(it->second.elemType);
    spec.bytes = bytesOf(name, it->second, context);
    // Constants of the program (Constant nodes and what folds from them: an exponent, an epsilon, a fill
    // value, an index) carry their value. The file's own initializers may be weights (a model exported
    // with its parameters): they stay parameters, trained and without a value.
    if (!m_fileInitializers.contains(name))
      if (auto value = constantJson(name)) {
        spec.attrs = nlohmann::json{{"value", *value}}.dump();
        spec.constant = true;
      }
    m_specs.push_back(std::move(spec));
  }

  // The elements of a static tensor the file holds (an initializer, a Constant, or a folded shape
  // computation) when it has at most kMaxFoldedElements of them; the runtime plays the graph with them.
  std::optional<nlohmann::json> constantJson(const std::string& name) const {
    const onnx::TensorProto* tensor = nullptr;
    if (auto init = m_initializers.find(name); init != m_initializers.end()) tensor = init->second;
    if (auto c = m_constantNodes.find(name); !tensor && c != m_constantNodes.end()) {
      // A Constant the folder keeps (a non-finite value, or a large one)
      for (const auto& a : c->second->attribute()) {
        if (a.name() == "value" && a.has_t()) tensor = &a.t();
        if (a.name() == "value_float") return nlohmann::json(a.f());
        if (a.name() == "value_int") return nlohmann::json(a.i());
      }
    }
    if (!tensor) return std::nullopt;
    auto values = detail::smallTensorValues(*tensor);
    if (!values) return std::nullopt;
    return valuesJson(*values, !isFloating(tensor->data_type()), tensor->dims_size() == 0);
  }

  // The schema name of operand `p` of node `n` at the model's opset, or empty.
  std::string operandName(const onnx::NodeProto& n, std::size_t p) const {
    const std::string domain = n.domain() == "ai.onnx" ? std::string{} : n.domain();
    auto version = m_opsets.find(domain);
    if (version == m_opsets.end()) return {};
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), version->second, domain);
    if (!schema || p >= schema->inputs().size()) return {};
    return schema->inputs()[p].GetName();
  }

  void emitInputs() {
    for (const auto& in : m_graph.input()) {
      if (m_initializers.contains(in.name()) || usesOf(in.name()).empty()) continue;
      emitLeaf(in.name(), m_dataInputs.contains(in.name()) ? NodeKind::Input : NodeKind::Param,
               "input '" + in.name() + "'");
    }
  }

  void emitNodes() {
    std::unordered_set<std::string> produced;
    for (int k = 0; k < m_graph.node_size(); ++k)
      for (const auto& out : m_graph.node(k).output()) produced.insert(out);
    for (int k = 0; k < m_graph.node_size() && !m_diag.full(); ++k) {
      const auto& n = m_graph.node(k);
      if (n.output_size() == 0 || n.output(0).empty() || m_static.contains(n.output(0))) continue;
      const OpSpec* known = specOf(n);
      if (!known) ++m_unknown[n.op_type()];
      const OpSpec& spec = known ? *known : graph::unknownOpSpec();
      const std::string context = where(static_cast<std::size_t>(k));
      // Operands: data tensors, in order; shape-like operands and absent optional ones are left out.
      std::vector<std::string> inputs;
      nlohmann::json operands = nlohmann::json::object();
      graph::Saves saves;
      saves.output = spec.savesOutput;
      for (int p = 0; p < n.input_size(); ++p) {
        const std::string& in = n.input(p);
        if (in.empty()) continue;
        if (known && contains(spec.shapeInputs, static_cast<std::size_t>(p))) {
          // Left out of the graph; its value goes into the attributes (Slice's starts and ends,
          // Dropout's ratio), so that the graph can be executed as it was exported.
          const std::string operand = operandName(n, static_cast<std::size_t>(p));
          if (auto value = constantJson(in); value && !operand.empty()) operands[operand] = *value;
          continue;
        }
        const bool isGraphInput = m_dataInputs.contains(in) || m_paramInputs.contains(in);
        if (m_static.contains(in)) {
          emitLeaf(in, NodeKind::Param, context);
        } else if (!isGraphInput && !produced.contains(in)) {
          m_diag.errorAtPath(context,
                             "input '" + in + "' is neither a graph input, an initializer nor an output of any node");
          continue;
        }
        if (!known || contains(spec.savesInputs, static_cast<std::size_t>(p)))
          saves.inputs.push_back(static_cast<std::uint32_t>(inputs.size()));
        inputs.push_back(in);
      }
      for (int o = 0; o < n.output_size(); ++o) {
        const std::string& name = n.output(o);
        if (name.empty() || (o > 0 && usesOf(name).empty())) continue;  // unused extra outputs: indices, masks
        emitOp(n, static_cast<std::size_t>(o), spec, known != nullptr, inputs, saves, operands, context);
      }
    }
  }

  void emitOp(const onnx::NodeProto& n, std::size_t o, const OpSpec& spec, bool known,
              const std::vector<std::string>& inputs, const graph::Saves& saves, const nlohmann::json& operands,
              const std::string& context) {
    const std::string& name = n.output(static_cast<int>(o));
    NodeSpec s;
    s.name = name;
    s.kind = NodeKind::Op;
    s.op = n.op_type();
    s.inputs = inputs;
    s.saves = saves;
    s.attrs = attributesJson(n, o, operands);
    s.where = m_diag.at(0, context);
    auto it = m_types.find(name);
    if (it != m_types.end() && fullyKnown(it->second)) {
      s.shape = it->second.dims;
      s.dtype = dtypeName(it->second.elemType);
      s.bytes = spec.view && viewsItsOperand(n, inputs, it->second) ? 0 : bytesOf(name, it->second, context);
      // A view keeps its elements; a Reshape to a shape fixed at export does not follow a new batch.
      if (spec.view && !inputs.empty())
        if (auto in = m_types.find(inputs[0]);
            in != m_types.end() && fullyKnown(in->second) && elementCount(in->second) != elementCount(it->second))
          m_diag.errorAtPath(
              context, "'" + name + "' has shape " + shapeText(it->second) + " but its operand " +
                           shapeText(in->second) +
                           (m_options.batch ? "; the model fixes its batch size at export and cannot be "
                                              "re-batched: export it at batch " +
                                                  std::to_string(*m_options.batch) + " or with a dynamic batch axis"
                                            : ""));
    } else if (m_unknownShapes++ == 0) {
      // The first tensor without a shape is the cause; the ones after it mostly follow from it.
      std::string why = !known ? "; no operand's shape is known either"
                        : m_options.batch
                            ? "; a model exported at another batch size that fixes it in a Reshape or Expand cannot "
                              "be re-batched: export it at batch " +
                                  std::to_string(*m_options.batch) + " or with a dynamic batch axis"
                            : "; export the model with static shapes";
      // Which first dimensions --batch changed: an input listed here that is no batch data (a weight the
      // importer could not tell from data) is the likelier cause.
      if (known && m_options.batch) {
        if (m_rebatched.empty()) {
          why = "; the inputs kept their exported sizes under --batch " + std::to_string(*m_options.batch) +
                ", so this is not a re-batching: ONNX's shape inference could not infer it";
        } else {
          why += "; --batch changed the first dimension of ";
          for (std::size_t i = 0; i < m_rebatched.size() && i < 3; ++i) why += (i ? ", " : "") + m_rebatched[i];
          if (m_rebatched.size() > 3) why += " and " + std::to_string(m_rebatched.size() - 3) + " more inputs";
        }
      }
      m_diag.errorAtPath(context, "the shape of output '" + name + "' is not known after shape inference" +
                                      (it == m_types.end() ? std::string{} : " (" + shapeText(it->second) + ")") + why);
    }
    m_specs.push_back(std::move(s));
  }

  // Whether a layout operation's output can alias its operand, as in PyTorch: a transpose always
  // can (it permutes the strides), a reshape only when its operand's layout allows the new shape
  // (viewStrides); otherwise PyTorch's reshape copies (the head merge `y.transpose(1, 2).reshape(b, t, d)`),
  // and so does the graph: the output gets its own bytes. Records the strides of the views it keeps;
  // every other tensor of the graph is dense.
  bool viewsItsOperand(const onnx::NodeProto& n, const std::vector<std::string>& inputs, const TensorType& out) {
    if (inputs.empty()) return true;
    auto in = m_types.find(inputs[0]);
    if (in == m_types.end() || !fullyKnown(in->second) || in->second.dims.size() > 64) return true;
    // Element counts that do not fit in 63 bits are reported as sizes elsewhere; strides are not computed.
    if (elementCount(in->second) > 4e18 || (out.ranked && elementCount(out) > 4e18)) return true;
    const std::vector<std::int64_t>& from = in->second.dims;
    auto known = m_strides.find(inputs[0]);
    const std::vector<std::int64_t> strides = known != m_strides.end() ? known->second : denseStrides(from);
    std::optional<std::vector<std::int64_t>> result;
    if (n.op_type() == "Transpose") {
      std::vector<std::int64_t> perm;
      for (const auto& a : n.attribute())
        if (a.name() == "perm") perm.assign(a.ints().begin(), a.ints().end());
      if (perm.empty())
        for (std::size_t d = from.size(); d-- > 0;) perm.push_back(static_cast<std::int64_t>(d));
      if (perm.size() != from.size()) return true;  // shape inference has reported it
      result.emplace();
      for (std::int64_t d : perm) {
        if (d < 0 || d >= static_cast<std::int64_t>(from.size())) return true;
        result->push_back(strides[static_cast<std::size_t>(d)]);
      }
    } else if (n.op_type() == "Identity") {
      result = strides;
    } else {
      if (elementCount(in->second) != elementCount(out)) return true;  // reported by the caller
      result = viewStrides(from, strides, out.dims);
      if (!result) return false;
    }
    if (*result != denseStrides(out.dims)) m_strides[n.output(0)] = std::move(*result);
    return true;
  }

  void warnUnknown() {
    for (const auto& [type, count] : m_unknown)
      m_diag.warning(m_diag.at(0), "unknown operation '" + type + "' (" + std::to_string(count) + " node" +
                                       (count == 1 ? "" : "s") +
                                       "): imported with conservative defaults (the backward keeps every operand "
                                       "and the output, backward time = forward time)");
  }

  onnx::ModelProto& m_model;
  onnx::GraphProto& m_graph;
  OnnxOptions m_options;
  detail::Diagnostics m_diag;
  std::unordered_map<std::string, std::vector<Use>> m_uses;
  std::unordered_map<std::string, const onnx::TensorProto*> m_initializers;
  std::unordered_map<std::string, const onnx::NodeProto*> m_constantNodes;  // by output
  std::unordered_set<std::string> m_fileInitializers;                       // before folding adds its own
  std::set<std::string> m_dataInputs;
  std::set<std::string> m_paramInputs;
  std::vector<std::string> m_rebatched;  ///< inputs whose exported first dimension --batch changed, with both
  std::unordered_map<std::string, TensorType> m_types;
  std::unordered_map<std::string, int> m_opsets;                         // by domain ("" for ONNX's)
  std::unordered_map<std::string, std::vector<std::int64_t>> m_strides;  // views that are not dense
  std::unordered_set<std::string> m_static;
  std::unordered_set<std::string> m_emitted;
  std::map<std::string, std::size_t> m_unknown;
  std::size_t m_unknownShapes = 0;     // operation outputs left without a shape
  std::set<std::string> m_einsumDone;  // outputs of Einsums given a shape, or an error, from their equation
  std::vector<NodeSpec> m_specs;
};

}  // namespace

bool looksLikeOnnx(std::string_view bytes) {
  // ModelProto.ir_version is field 1, a varint: tag byte 0x08, then a small version number.
  return bytes.size() > 2 && static_cast<unsigned char>(bytes[0]) == 0x08 &&
         static_cast<unsigned char>(bytes[1]) < 0x80;
}

Result<graph::ComputeGraph> readOnnx(std::string_view bytes, const std::string& fileName, const OnnxOptions& options) {
  detail::Diagnostics diag(fileName);
  if (options.batch && *options.batch <= 0) {
    diag.error(diag.at(0), "--batch must be a positive integer, got " + std::to_string(*options.batch));
    return diag.failure();
  }
  try {
    onnx::ModelProto model;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
        !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      diag.error(diag.at(0), "not a readable ONNX model: the protobuf does not parse (truncated or corrupt file?)");
      return diag.failure();
    }
    if (!model.has_graph() || model.graph().node_size() == 0) {
      diag.error(diag.at(0), "the ONNX model has no graph, or a graph without nodes");
      return diag.failure();
    }
    OnnxImport import(model, fileName, options);
    return import.run();
  } catch (const std::exception& e) {
    diag.error(diag.at(0), std::string("cannot import the ONNX model: ") + e.what());
    return diag.failure();
  }
}

}  // namespace remat::io
