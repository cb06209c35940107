#include "OnnxShapeFolding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace remat::io::detail {
namespace {

// A small tensor of integers or reals, row-major; rank 0 or 1 in practice.
struct Value {
  int type = onnx::TensorProto::INT64;
  std::vector<std::int64_t> dims;
  std::vector<double> data;  // exact for the integers of shapes (|x| < 2^53)

  [[nodiscard]] bool isInteger() const { return type != onnx::TensorProto::FLOAT && type != onnx::TensorProto::DOUBLE; }
};

bool supportedType(int type) {
  return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 || type == onnx::TensorProto::FLOAT ||
         type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::BOOL;
}

std::size_t elementWidth(int type) {
  switch (type) {
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::FLOAT: return 4;
    case onnx::TensorProto::BOOL: return 1;
    default: return 8;
  }
}

std::size_t count(const std::vector<std::int64_t>& dims) {
  std::size_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0 || (d > 0 && n > kMaxFoldedElements / static_cast<std::size_t>(d))) return kMaxFoldedElements + 1;
    n *= static_cast<std::size_t>(d);
  }
  return n;
}

// The value a TensorProto holds, when it is small, of a supported type, and complete.
std::optional<Value> fromTensor(const onnx::TensorProto& t) {
  if (!supportedType(t.data_type()) || t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  Value v;
  v.type = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  const std::size_t n = count(v.dims);
  if (n > kMaxFoldedElements) return std::nullopt;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const std::size_t width = elementWidth(v.type);
    if (raw.size() != n * width) return std::nullopt;
    for (std::size_t k = 0; k < n; ++k) {
      const char* p = raw.data() + k * width;
      switch (v.type) {
        case onnx::TensorProto::INT64: {
          std::int64_t x;
          std::memcpy(&x, p, 8);
          v.data.push_back(double(x));
          break;
        }
        case onnx::TensorProto::INT32: {
          std::int32_t x;
          std::memcpy(&x, p, 4);
          v.data.push_back(double(x));
          break;
        }
        case onnx::TensorProto::FLOAT: {
          float x;
          std::memcpy(&x, p, 4);
          v.data.push_back(double(x));
          break;
        }
        case onnx::TensorProto::BOOL: v.data.push_back(*p != 0 ? 1.0 : 0.0); break;
        default: {
          double x;
          std::memcpy(&x, p, 8);
          v.data.push_back(x);
          break;
        }
      }
    }
  } else {
    switch (v.type) {
      case onnx::TensorProto::INT64:
        for (auto x : t.int64_data()) v.data.push_back(double(x));
        break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::BOOL:
        for (auto x : t.int32_data()) v.data.push_back(double(x));
        break;
      case onnx::TensorProto::FLOAT:
        for (auto x : t.float_data()) v.data.push_back(double(x));
        break;
      default:
        for (auto x : t.double_data()) v.data.push_back(x);
        break;
    }
    if (v.data.size() != n) return std::nullopt;
  }
  return v;
}

// A double as an int64 without undefined behaviour: clamped to +-2^62 (far beyond any shape).
std::int64_t toInt(double x) {
  if (!std::isfinite(x)) return 0;
  return static_cast<std::int64_t>(std::clamp(x, -4.6e18, 4.6e18));
}

// Every element representable in its type (exactly, for the integers): what toTensor may convert.
bool representable(const Value& v) {
  for (double x : v.data) {
    if (!std::isfinite(x)) return false;
    switch (v.type) {
      case onnx::TensorProto::INT32:
        if (x < -2147483648.0 || x > 2147483647.0) return false;
        break;
      case onnx::TensorProto::FLOAT:
        if (std::fabs(x) > 3.0e38) return false;
        break;
      case onnx::TensorProto::DOUBLE: break;
      default:
        if (std::fabs(x) > 9007199254740992.0) return false;  // 2^53
        break;
    }
  }
  return true;
}

onnx::TensorProto toTensor(const Value& v, const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(v.type);
  for (std::int64_t d : v.dims) t.add_dims(d);
  for (double x : v.data) {
    switch (v.type) {
      case onnx::TensorProto::INT64: t.add_int64_data(static_cast<std::int64_t>(x)); break;
      case onnx::TensorProto::INT32: t.add_int32_data(static_cast<std::int32_t>(x)); break;
      case onnx::TensorProto::BOOL: t.add_int32_data(x != 0 ? 1 : 0); break;
      case onnx::TensorProto::FLOAT: t.add_float_data(static_cast<float>(x)); break;
      default: t.add_double_data(x); break;
    }
  }
  return t;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t intAttribute(const onnx::NodeProto& n, const std::string& name, std::int64_t fallback) {
  const auto* a = attribute(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

Value vector1d(std::vector<double> data, int type = onnx::TensorProto::INT64) {
  Value v;
  v.type = type;
  v.dims = {static_cast<std::int64_t>(data.size())};
  v.data = std::move(data);
  return v;
}

// Python-style slice of a 1-D sequence of length n: the indices it selects.
std::vector<std::size_t> sliceIndices(std::int64_t n, std::int64_t start, std::int64_t end, std::int64_t step) {
  std::vector<std::size_t> out;
  if (step == 0) return out;
  auto clamp = [n, step](std::int64_t x) {
    if (x < 0) x += n;
    return step > 0 ? std::clamp<std::int64_t>(x, 0, n) : std::clamp<std::int64_t>(x, -1, n - 1);
  };
  const std::int64_t s = clamp(start);
  const std::int64_t e = clamp(end);
  for (std::int64_t i = s; step > 0 ? i < e : i > e; i += step) {
    out.push_back(static_cast<std::size_t>(i));
    if (out.size() > kMaxFoldedElements) break;
  }
  return out;
}

// The operand whose shape an elementwise result takes (the operands are the same size or one has a
// single element): more elements, or as many and a higher rank, so a scalar with a [1] gives a [1], as
// ONNX's broadcasting does.
const Value& wider(const Value& a, const Value& b) {
  if (a.data.size() != b.data.size()) return a.data.size() > b.data.size() ? a : b;
  return b.dims.size() > a.dims.size() ? b : a;
}

// The elements of `a` at the cartesian product of `kept` (per axis, the indices kept, in order), row-major.
std::vector<double> gather(const Value& a, const std::vector<std::vector<std::size_t>>& kept) {
  const std::size_t rank = a.dims.size();
  std::vector<std::size_t> stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<std::size_t>(a.dims[d]);
  std::vector<double> out;
  for (const auto& k : kept)
    if (k.empty()) return out;
  std::vector<std::size_t> at(rank, 0);  // a position in each axis's list
  while (true) {
    std::size_t from = 0;
    for (std::size_t d = 0; d < rank; ++d) from += kept[d][at[d]] * stride[d];
    out.push_back(a.data[from]);
    std::size_t d = rank;
    while (d-- > 0) {
      if (++at[d] < kept[d].size()) break;
      at[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return out;
  }
}

class Folder {
 public:
  Folder(onnx::GraphProto& graph, const ShapeLookup& shapeOf) : m_graph(graph), m_shapeOf(shapeOf) {}

  std::size_t run() {
    for (const auto& t : m_graph.initializer())
      if (auto v = fromTensor(t)) m_known.emplace(t.name(), *v);
    std::vector<int> folded;
    for (int k = 0; k < m_graph.node_size(); ++k) {
      const auto& n = m_graph.node(k);
      if (n.output_size() != 1 || n.output(0).empty() || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
      std::optional<Value> v;
      try {
        v = evaluate(n);
      } catch (const std::exception&) {
        v.reset();  // a malformed node is left to the reader's own checks
      }
      if (v && n.op_type() == "Constant" && count(v->dims) == v->data.size() && !representable(*v)) {
        m_wide[n.output(0)] = *v;  // left in place; a Slice's bounds may still use it
        continue;
      }
      if (!v || count(v->dims) != v->data.size() || v->data.size() > kMaxFoldedElements || !representable(*v)) continue;
      m_known[n.output(0)] = *v;
      folded.push_back(k);
    }
    if (folded.empty()) return 0;
    // Replace the folded nodes by initializers, keeping the others in their order.
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    std::size_t next = 0;
    for (int k = 0; k < m_graph.node_size(); ++k) {
      if (next < folded.size() && folded[next] == k) {
        *m_graph.add_initializer() = toTensor(m_known[m_graph.node(k).output(0)], m_graph.node(k).output(0));
        ++next;
        continue;
      }
      *kept.Add() = m_graph.node(k);
    }
    m_graph.mutable_node()->Swap(&kept);
    return folded.size();
  }

 private:
  const Value* input(const onnx::NodeProto& n, int k) const {
    if (k >= n.input_size() || n.input(k).empty()) return nullptr;
    auto it = m_known.find(n.input(k));
    if (it != m_known.end()) return &it->second;
    // A Slice's starts and ends (operands 1 and 2) may be integers beyond 2^53, as exporters write
    // "to the end" (INT64_MAX, or INT64_MIN with a negative step): any value past a dimension clamps to
    // it, so their nearest doubles serve. Nothing else reads them: arithmetic on them would be inexact.
    if (n.op_type() == "Slice" && (k == 1 || k == 2))
      if (auto w = m_wide.find(n.input(k)); w != m_wide.end()) return &w->second;
    return nullptr;
  }

  bool allInputsKnown(const onnx::NodeProto& n) const {
    for (int k = 0; k < n.input_size(); ++k)
      if (!n.input(k).empty() && !input(n, k)) return false;
    return true;
  }

  std::optional<Value> evaluate(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") {
      const auto* a = attribute(n, "value");
      if (a && a->has_t()) return fromTensor(a->t());
      if ((a = attribute(n, "value_ints"))) return vector1d({a->ints().begin(), a->ints().end()});
      if ((a = attribute(n, "value_int"))) return Value{onnx::TensorProto::INT64, {}, {double(a->i())}};
      return std::nullopt;
    }
    if (op == "Shape" || op == "Size") {
      if (n.input_size() < 1) return std::nullopt;
      auto dims = m_shapeOf(n.input(0));
      if (!dims || std::any_of(dims->begin(), dims->end(), [](std::int64_t d) { return d < 0; })) return std::nullopt;
      if (op == "Size") {
        double total = 1;
        for (std::int64_t d : *dims) total *= double(d);
        return Value{onnx::TensorProto::INT64, {}, {total}};
      }
      const auto rank = static_cast<std::int64_t>(dims->size());
      std::vector<double> all;
      for (std::size_t i : sliceIndices(rank, intAttribute(n, "start", 0), intAttribute(n, "end", rank), 1))
        all.push_back(double((*dims)[i]));
      return vector1d(std::move(all));
    }
    if (!allInputsKnown(n) || n.input_size() == 0) return std::nullopt;
    const Value* a = input(n, 0);
    if (op == "Identity") return *a;
    if (op == "Cast") {
      const auto to = static_cast<int>(intAttribute(n, "to", 0));
      if (!supportedType(to)) return std::nullopt;
      Value v = *a;
      v.type = to;
      if (v.isInteger())
        for (double& x : v.data) x = std::trunc(x);
      return v;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
      // Rank 0 <-> rank 1 only: what shape arithmetic does.
      Value v = *a;
      if (op == "Unsqueeze" && v.dims.empty())
        v.dims = {1};
      else if (op == "Squeeze" && v.dims == std::vector<std::int64_t>{1})
        v.dims.clear();
      else
        return std::nullopt;
      return v;
    }
    if (op == "Concat") {
      Value v;
      v.type = a->type;
      for (int k = 0; k < n.input_size(); ++k) {
        const Value* part = input(n, k);
        if (!part || part->dims.size() != 1 || part->type != a->type) return std::nullopt;
        v.data.insert(v.data.end(), part->data.begin(), part->data.end());
        if (v.data.size() > kMaxFoldedElements) return std::nullopt;
      }
      v.dims = {static_cast<std::int64_t>(v.data.size())};
      return v;
    }
    if (op == "Gather") {
      const Value* idx = input(n, 1);
      if (!idx || a->dims.size() != 1 || intAttribute(n, "axis", 0) != 0 || idx->dims.size() > 1) return std::nullopt;
      Value v;
      v.type = a->type;
      v.dims = idx->dims;
      const auto len = static_cast<std::int64_t>(a->data.size());
      for (double x : idx->data) {
        auto i = toInt(x);
        if (i < 0) i += len;
        if (i < 0 || i >= len) return std::nullopt;
        v.data.push_back(a->data[static_cast<std::size_t>(i)]);
      }
      return v;
    }
    if (op == "Slice") {
      // Along any of its axes: F.pad's export reverses its pads as rows of a [n, 2] value (step -1).
      const Value* starts = input(n, 1);
      const Value* ends = input(n, 2);
      const Value* axes = input(n, 3);
      const Value* steps = input(n, 4);
      const auto rank = static_cast<std::int64_t>(a->dims.size());
      if (!starts || !ends || rank == 0 || starts->data.size() != ends->data.size() ||
          (axes && axes->data.size() != starts->data.size()) || (steps && steps->data.size() != starts->data.size()))
        return std::nullopt;
      auto clampToInt = [](double x) {
        return std::isfinite(x) ? static_cast<std::int64_t>(std::clamp(x, -9e15, 9e15)) : 0;
      };
      std::vector<std::vector<std::size_t>> kept(a->dims.size());  // per axis, the indices kept, in order
      for (std::size_t d = 0; d < a->dims.size(); ++d)
        for (std::int64_t i = 0; i < a->dims[d]; ++i) kept[d].push_back(static_cast<std::size_t>(i));
      std::vector<bool> sliced(a->dims.size(), false);
      for (std::size_t k = 0; k < starts->data.size(); ++k) {
        std::int64_t axis = axes ? toInt(axes->data[k]) : static_cast<std::int64_t>(k);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank || sliced[std::size_t(axis)]) return std::nullopt;
        sliced[std::size_t(axis)] = true;
        const std::int64_t step = steps ? clampToInt(steps->data[k]) : 1;
        if (step == 0) return std::nullopt;
        kept[std::size_t(axis)] =
            sliceIndices(a->dims[std::size_t(axis)], clampToInt(starts->data[k]), clampToInt(ends->data[k]), step);
      }
      Value v;
      v.type = a->type;
      for (const auto& k : kept) v.dims.push_back(static_cast<std::int64_t>(k.size()));
      if (count(v.dims) > kMaxFoldedElements) return std::nullopt;
      v.data = gather(*a, kept);
      return v;
    }
    if (op == "Transpose") {
      const auto rank = a->dims.size();
      std::vector<std::size_t> perm(rank);
      for (std::size_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;  // the default: dimensions reversed
      if (const auto* p = attribute(n, "perm")) {
        if (static_cast<std::size_t>(p->ints_size()) != rank) return std::nullopt;
        std::vector<bool> seen(rank, false);
        for (std::size_t d = 0; d < rank; ++d) {
          const std::int64_t from = p->ints(static_cast<int>(d));
          if (from < 0 || from >= static_cast<std::int64_t>(rank) || seen[std::size_t(from)]) return std::nullopt;
          seen[std::size_t(from)] = true;
          perm[d] = static_cast<std::size_t>(from);
        }
      }
      Value v;
      v.type = a->type;
      std::vector<std::size_t> stride(rank, 1);  // of the input, row-major
      for (std::size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<std::size_t>(a->dims[d]);
      for (std::size_t d = 0; d < rank; ++d) v.dims.push_back(a->dims[perm[d]]);
      std::vector<std::size_t> at(rank, 0);  // the output's index, counted row-major
      for (std::size_t i = 0; i < a->data.size(); ++i) {
        std::size_t from = 0;
        for (std::size_t d = 0; d < rank; ++d) from += at[d] * stride[perm[d]];
        v.data.push_back(a->data[from]);
        for (std::size_t d = rank; d-- > 0;) {
          if (++at[d] < static_cast<std::size_t>(v.dims[d])) break;
          at[d] = 0;
        }
      }
      return v;
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod") {
      const Value* b = input(n, 1);
      if (!b || a->type != b->type) return std::nullopt;
      // Integer Mod takes the divisor's sign (fmod = 0, Python's %); fmod = 1 is C's fmod, the dividend's.
      const bool cStyle = op == "Mod" && intAttribute(n, "fmod", 0) != 0;
      if (op == "Mod" && !cStyle && !a->isInteger()) return std::nullopt;  // ONNX: fmod = 1 for reals
      const bool aScalar = a->data.size() == 1;
      const bool bScalar = b->data.size() == 1;
      if (!aScalar && !bScalar && a->data.size() != b->data.size()) return std::nullopt;
      Value v = wider(*a, *b);
      for (std::size_t i = 0; i < v.data.size(); ++i) {
        const double x = a->data[aScalar ? 0 : i];
        const double y = b->data[bScalar ? 0 : i];
        if ((op == "Div" || op == "Mod") && y == 0) return std::nullopt;
        double r = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
        if (v.isInteger() && op == "Div") r = std::trunc(r);  // ONNX's integer division truncates
        if (op == "Mod") r = cStyle ? std::fmod(x, y) : x - std::floor(x / y) * y;
        v.data[i] = r;
      }
      return v;
    }
    if (op == "ConstantOfShape") {
      Value v;
      v.type = onnx::TensorProto::FLOAT;
      double fill = 0;
      if (const auto* value = attribute(n, "value"); value && value->has_t()) {
        auto t = fromTensor(value->t());
        if (!t || t->data.size() != 1) return std::nullopt;
        v.type = t->type;
        fill = t->data[0];
      }
      if (a->dims.size() != 1) return std::nullopt;
      for (double d : a->data) v.dims.push_back(toInt(d));
      const std::size_t elements = count(v.dims);
      if (elements > kMaxFoldedElements) return std::nullopt;
      v.data.assign(elements, fill);
      return v;
    }
    if (op == "Reshape") {
      // A small value to a new shape: 0 keeps the old dimension (allowzero = 0), -1 takes the rest.
      const Value* shape = input(n, 1);
      if (!shape || shape->dims.size() != 1 || intAttribute(n, "allowzero", 0) != 0) return std::nullopt;
      Value v = *a;
      v.dims.clear();
      std::optional<std::size_t> rest;
      std::size_t known = 1;
      for (std::size_t k = 0; k < shape->data.size(); ++k) {
        auto d = toInt(shape->data[k]);
        if (d == 0 && k < a->dims.size()) d = a->dims[k];
        if (d == -1) {
          if (rest) return std::nullopt;
          rest = k;
          v.dims.push_back(1);
          continue;
        }
        if (d < 0) return std::nullopt;
        v.dims.push_back(d);
        known *= static_cast<std::size_t>(std::max<std::int64_t>(d, 1));
        if (d == 0 || known > kMaxFoldedElements) return std::nullopt;
      }
      if (rest) {
        if (a->data.size() % known != 0) return std::nullopt;
        v.dims[*rest] = static_cast<std::int64_t>(a->data.size() / known);
      }
      if (count(v.dims) != a->data.size()) return std::nullopt;
      return v;
    }
    if (op == "Equal" || op == "Where") {
      // Elementwise with scalar broadcasting: Equal(a, b); Where(condition, x, y).
      std::vector<const Value*> in;
      in.reserve(static_cast<std::size_t>(n.input_size()));
      for (int k = 0; k < n.input_size(); ++k) in.push_back(input(n, k));
      if (in.size() != (op == "Equal" ? 2u : 3u)) return std::nullopt;
      const Value* widest = in[0];
      for (const Value* x : in) {
        if (x->data.size() != 1 && widest->data.size() != 1 && x->data.size() != widest->data.size())
          return std::nullopt;
        widest = &wider(*widest, *x);
      }
      Value v = *widest;
      v.type = op == "Equal" ? onnx::TensorProto::BOOL : in[1]->type;
      for (std::size_t i = 0; i < v.data.size(); ++i) {
        auto at = [i](const Value* x) { return x->data[x->data.size() == 1 ? 0 : i]; };
        v.data[i] = op == "Equal" ? (at(in[0]) == at(in[1]) ? 1.0 : 0.0) : (at(in[0]) != 0 ? at(in[1]) : at(in[2]));
      }
      return v;
    }
    if (op == "Floor" || op == "Ceil") {
      Value v = *a;
      for (double& x : v.data) x = op == "Floor" ? std::floor(x) : std::ceil(x);
      return v;
    }
    return std::nullopt;
  }

  onnx::GraphProto& m_graph;
  const ShapeLookup& m_shapeOf;
  std::unordered_map<std::string, Value> m_known;
  std::unordered_map<std::string, Value> m_wide;  ///< Constant nodes with integers beyond 2^53
};

}  // namespace

std::optional<std::vector<double>> smallTensorValues(const onnx::TensorProto& t) {
  auto v = fromTensor(t);
  if (!v) return std::nullopt;
  return std::move(v->data);
}

std::size_t foldShapeComputations(onnx::GraphProto& graph, const ShapeLookup& shapeOf) {
  return Folder(graph, shapeOf).run();
}

}  // namespace remat::io::detail
