#include "remat/io/NativeJson.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <optional>
#include <utility>

#include "JsonSupport.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/io/detail/ReaderSupport.hpp"

namespace remat::io {
namespace detail {
namespace {

using graph::NodeKind;

constexpr std::string_view kFormatTag = "remat-graph";
constexpr std::int64_t kVersion = 1;
// attrs deeper than this are written as a string, so that the written file stays far below the
// reader's nesting limit.
constexpr std::size_t kMaxAttrsObjectDepth = 64;

constexpr std::array<std::string_view, 10> kTopLevelKeys = {"$schema",        "format",     "version",     "name",
                                                            "time_unit",      "cost_model", "computation", "nodes",
                                                            "backward_graph", "pins"};
constexpr std::array<std::string_view, 13> kNodeKeys = {"id",        "kind",          "op",       "inputs",   "bytes",
                                                        "shape",     "dtype",         "fwd_time", "bwd_time", "saves",
                                                        "workspace", "bwd_workspace", "attrs"};
constexpr std::array<std::string_view, 5> kBackwardKeys = {"id", "time", "bytes", "inputs", "gradient_of"};
constexpr std::array<std::string_view, 2> kSavesKeys = {"inputs", "output"};

template <std::size_t N>
void warnUnknownKeys(const Json& obj, const std::string& path, const std::array<std::string_view, N>& known,
                     Diagnostics& diag) {
  for (const auto& [key, value] : obj.items()) {
    bool isKnown = false;
    for (std::string_view k : known) isKnown = isKnown || key == k;
    if (!isKnown) diag.warningAtPath(childPath(path, key), "unknown key \"" + printable(key) + "\" ignored");
  }
}

void missing(const std::string& path, std::string_view key, Diagnostics& diag) {
  diag.errorAtPath(path, "missing required key \"" + std::string(key) + "\"");
}

std::optional<std::string> readString(const Json& v, const std::string& path, Diagnostics& diag) {
  if (!v.is_string()) {
    diag.errorAtPath(path, "expected a string, got " + describe(v));
    return std::nullopt;
  }
  return v.get<std::string>();
}

// An optional string member; `fallback` when absent, nullopt (with an error) when of the wrong type.
std::optional<std::string> optionalString(const Json& obj, const std::string& path, std::string_view key,
                                          std::string fallback, Diagnostics& diag) {
  const Json* v = member(obj, key);
  if (!v) return fallback;
  return readString(*v, childPath(path, key), diag);
}

std::int64_t optionalCount(const Json& obj, const std::string& path, std::string_view key, Diagnostics& diag) {
  const Json* v = member(obj, key);
  if (!v) return 0;
  return readInt(*v, childPath(path, key), diag, true).value_or(0);
}

std::vector<std::string> readNameList(const Json& v, const std::string& path, Diagnostics& diag) {
  std::vector<std::string> names;
  if (!v.is_array()) {
    diag.errorAtPath(path, "expected an array of node ids, got " + describe(v));
    return names;
  }
  names.reserve(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    if (auto s = readString(v[k], childPath(path, k), diag)) names.push_back(std::move(*s));
  return names;
}

std::optional<NodeKind> parseKind(const Json& v, const std::string& path, Diagnostics& diag) {
  auto s = readString(v, path, diag);
  if (!s) return std::nullopt;
  if (*s == "input") return NodeKind::Input;
  if (*s == "param") return NodeKind::Param;
  if (*s == "op") return NodeKind::Op;
  diag.errorAtPath(path, "unknown node kind \"" + printable(*s) + "\" (expected \"input\", \"param\" or \"op\")");
  return std::nullopt;
}

void readSaves(const Json& v, const std::string& path, std::size_t inputCount, graph::Saves& saves, Diagnostics& diag) {
  if (!v.is_object()) {
    diag.errorAtPath(path, "expected an object {\"inputs\": [...], \"output\": false}, got " + describe(v));
    return;
  }
  warnUnknownKeys(v, path, kSavesKeys, diag);
  if (const Json* inputs = member(v, "inputs")) {
    const std::string inputsPath = childPath(path, "inputs");
    if (!inputs->is_array()) {
      diag.errorAtPath(inputsPath, "expected an array of input positions, got " + describe(*inputs));
    } else {
      for (std::size_t k = 0; k < inputs->size(); ++k) {
        const std::string p = childPath(inputsPath, k);
        auto index = readInt((*inputs)[k], p, diag, true);
        if (!index) continue;
        if (static_cast<std::uint64_t>(*index) >= inputCount) {
          diag.errorAtPath(p, "saves input index " + std::to_string(*index) + " is out of range (the node has " +
                                  std::to_string(inputCount) + " input(s))");
          continue;
        }
        saves.inputs.push_back(static_cast<std::uint32_t>(*index));
      }
    }
  }
  if (const Json* output = member(v, "output")) {
    if (output->is_boolean())
      saves.output = output->get<bool>();
    else
      diag.errorAtPath(childPath(path, "output"), "expected true or false, got " + describe(*output));
  }
}

// A constant's recorded value (docs/formats.md): one element for a scalar, else a flat list with as many
// elements as the shape holds; each a number, a boolean, or "inf", "-inf" or "nan".
bool constantIsSound(const Json& value, const std::vector<std::int64_t>& shape, const std::string& path,
                     Diagnostics& diag) {
  auto element = [](const Json& x) {
    return x.is_number() || x.is_boolean() || (x.is_string() && (x == "inf" || x == "-inf" || x == "nan"));
  };
  double count = 1;
  for (std::int64_t d : shape) count *= double(d);
  const double given = value.is_array() ? double(value.size()) : 1.0;
  bool ok = value.is_array() ? std::all_of(value.begin(), value.end(), element) : element(value);
  if (!ok) {
    diag.errorAtPath(path, "a constant's elements are numbers, booleans, \"inf\", \"-inf\" or \"nan\"");
  } else if (given != count) {
    diag.errorAtPath(path, "the constant has " + std::to_string(static_cast<std::int64_t>(given)) +
                               " elements but its shape holds " + std::to_string(static_cast<std::int64_t>(count)));
    ok = false;
  }
  return ok;
}

void readNode(const Json& v, std::size_t index, graph::GraphBuilder& builder, Diagnostics& diag) {
  const std::string path = childPath("/nodes", index);
  if (!v.is_object()) {
    diag.errorAtPath(path, "expected a node object, got " + describe(v));
    return;
  }
  warnUnknownKeys(v, path, kNodeKeys, diag);
  graph::NodeSpec spec;
  spec.where = diag.at(0, path);
  bool ok = true;

  if (const Json* id = member(v, "id")) {
    if (auto s = readString(*id, childPath(path, "id"), diag))
      spec.name = std::move(*s);
    else
      ok = false;
  } else {
    missing(path, "id", diag);
    ok = false;
  }
  std::optional<NodeKind> kind;
  if (const Json* k = member(v, "kind"))
    kind = parseKind(*k, childPath(path, "kind"), diag);
  else
    missing(path, "kind", diag);
  if (!kind)
    ok = false;
  else
    spec.kind = *kind;

  if (const Json* bytes = member(v, "bytes")) {
    if (auto b = readInt(*bytes, childPath(path, "bytes"), diag, true))
      spec.bytes = *b;
    else
      ok = false;
  } else {
    missing(path, "bytes", diag);
    ok = false;
  }

  const bool isOp = kind == NodeKind::Op;
  if (const Json* op = member(v, "op")) {
    if (auto s = readString(*op, childPath(path, "op"), diag)) spec.op = std::move(*s);
  } else if (isOp) {
    missing(path, "op", diag);
  }
  if (const Json* inputs = member(v, "inputs"))
    spec.inputs = readNameList(*inputs, childPath(path, "inputs"), diag);
  else if (isOp)
    missing(path, "inputs", diag);

  if (const Json* shape = member(v, "shape")) {
    const std::string shapePath = childPath(path, "shape");
    if (!shape->is_array())
      diag.errorAtPath(shapePath, "expected an array of dimensions, got " + describe(*shape));
    else
      for (std::size_t k = 0; k < shape->size(); ++k)
        if (auto d = readInt((*shape)[k], childPath(shapePath, k), diag, true)) spec.shape.push_back(*d);
  }
  if (auto dtype = optionalString(v, path, "dtype", "", diag)) spec.dtype = std::move(*dtype);
  spec.fwdTime = optionalCount(v, path, "fwd_time", diag);
  spec.bwdTime = optionalCount(v, path, "bwd_time", diag);
  spec.workspace = optionalCount(v, path, "workspace", diag);
  if (member(v, "bwd_workspace")) spec.bwdWorkspace = optionalCount(v, path, "bwd_workspace", diag);
  if (const Json* saves = member(v, "saves"))
    readSaves(*saves, childPath(path, "saves"), spec.inputs.size(), spec.saves, diag);
  if (const Json* attrs = member(v, "attrs")) {
    // An object is kept as its canonical compact text; a string is raw attribute text kept verbatim
    // (what the writer emits for text that is not a canonical JSON object).
    if (attrs->is_object()) {
      spec.attrs = attrs->dump();
      if (spec.kind != NodeKind::Op && attrs->contains("value"))
        spec.constant =
            constantIsSound((*attrs)["value"], spec.shape, childPath(childPath(path, "attrs"), "value"), diag);
    } else if (attrs->is_string())
      spec.attrs = attrs->get<std::string>();
    else
      diag.errorAtPath(childPath(path, "attrs"), "expected an object, got " + describe(*attrs));
  }
  if (ok) builder.add(std::move(spec));
}

void readBackwardNode(const Json& v, std::size_t index, graph::GraphBuilder& builder, Diagnostics& diag) {
  const std::string path = childPath("/backward_graph", index);
  if (!v.is_object()) {
    diag.errorAtPath(path, "expected a backward node object, got " + describe(v));
    return;
  }
  warnUnknownKeys(v, path, kBackwardKeys, diag);
  graph::BackwardSpec spec;
  spec.where = diag.at(0, path);
  if (const Json* id = member(v, "id")) {
    if (auto s = readString(*id, childPath(path, "id"), diag)) spec.name = std::move(*s);
  } else {
    missing(path, "id", diag);
  }
  spec.time = optionalCount(v, path, "time", diag);
  spec.bytes = optionalCount(v, path, "bytes", diag);
  if (const Json* inputs = member(v, "inputs")) spec.inputs = readNameList(*inputs, childPath(path, "inputs"), diag);
  if (auto g = optionalString(v, path, "gradient_of", "", diag)) spec.gradientOf = std::move(*g);
  builder.addBackward(std::move(spec));
}

// The pins the graph carries: {"keep": [names], "recompute": [names]}, either list optional.
void readPins(const Json& v, graph::GraphBuilder& builder, Diagnostics& diag) {
  if (!v.is_object()) {
    diag.errorAtPath("/pins", "expected an object {\"keep\": [names], \"recompute\": [names]}, got " + describe(v));
    return;
  }
  static constexpr std::array<std::string_view, 2> kPinKeys{"keep", "recompute"};
  warnUnknownKeys(v, "/pins", kPinKeys, diag);
  for (const bool keep : {true, false}) {
    const char* key = keep ? "keep" : "recompute";
    const Json* list = member(v, key);
    if (!list) continue;
    const std::string path = childPath("/pins", key);
    if (!list->is_array()) {
      diag.errorAtPath(path, "expected an array of node ids, got " + describe(*list));
      continue;
    }
    for (std::size_t k = 0; k < list->size(); ++k)
      if (auto name = readString((*list)[k], childPath(path, k), diag))
        builder.addPin({std::move(*name), keep, diag.at(0, childPath(path, k))});
  }
}

}  // namespace

Result<graph::ComputeGraph> readNativeDocument(const Json& doc, Diagnostics& diag) {
  if (!doc.is_object()) {
    diag.errorAtPath("", "expected a JSON object at the top level, got " + describe(doc));
    return diag.failure();
  }
  // Format and version first: if they are wrong, nothing else can be trusted to mean what we think.
  const Json* format = member(doc, "format");
  if (!format) {
    missing("", "format", diag);
  } else if (!format->is_string() || format->get_ref<const std::string&>() != kFormatTag) {
    diag.errorAtPath("/format", "expected \"remat-graph\", got " + describe(*format));
  }
  if (const Json* version = member(doc, "version")) {
    if (auto v = readInt(*version, "/version", diag, false); v && *v != kVersion)
      diag.errorAtPath("/version", "unsupported version " + std::to_string(*v) + " (this build reads version " +
                                       std::to_string(kVersion) + ")");
  } else {
    missing("", "version", diag);
  }
  if (diag.hasErrors()) return diag.failure();
  warnUnknownKeys(doc, "", kTopLevelKeys, diag);

  graph::GraphBuilder builder;
  builder.setSource(diag.at(0, "/nodes"));
  if (auto name = optionalString(doc, "", "name", fileStem(diag.file()), diag)) builder.setName(std::move(*name));
  if (auto unit = optionalString(doc, "", "time_unit", "ticks", diag)) builder.setTimeUnit(std::move(*unit));
  if (auto model = optionalString(doc, "", "cost_model", "file", diag)) builder.setCostModel(std::move(*model));
  // "training" (a backward pass is added) or "as-given" (the file is the whole computation).
  bool asGiven = false;
  if (auto computation = optionalString(doc, "", "computation", "training", diag)) {
    if (*computation == "as-given")
      asGiven = true;
    else if (*computation != "training")
      diag.errorAtPath("/computation", "expected \"training\" or \"as-given\", got \"" + *computation + "\"");
  }
  builder.setAsGiven(asGiven);
  if (asGiven && member(doc, "backward_graph"))
    diag.errorAtPath("/backward_graph", "a graph computed as given has no backward pass: drop backward_graph");

  const Json* nodes = member(doc, "nodes");
  if (!nodes) {
    missing("", "nodes", diag);
  } else if (!nodes->is_array()) {
    diag.errorAtPath("/nodes", "expected an array of nodes, got " + describe(*nodes));
  } else if (nodes->empty()) {
    diag.errorAtPath("/nodes", "graph has no nodes");
  } else {
    for (std::size_t i = 0; i < nodes->size() && !diag.full(); ++i) readNode((*nodes)[i], i, builder, diag);
  }
  if (const Json* backward = member(doc, "backward_graph")) {
    if (!backward->is_array())
      diag.errorAtPath("/backward_graph", "expected an array, got " + describe(*backward));
    else
      for (std::size_t i = 0; i < backward->size() && !diag.full(); ++i)
        readBackwardNode((*backward)[i], i, builder, diag);
  }
  if (const Json* pins = member(doc, "pins")) readPins(*pins, builder, diag);
  return diag.build(builder);
}

}  // namespace detail

Result<graph::ComputeGraph> readNativeJson(std::string_view text, const std::string& fileName) {
  detail::Diagnostics diag(fileName);
  try {
    auto doc = detail::parseJson(detail::stripBom(text), diag);
    if (!doc) return diag.failure();
    return detail::readNativeDocument(*doc, diag);
  } catch (const std::exception& e) {
    // Last resort: no exception leaves a reader.
    return Result<graph::ComputeGraph>::failure(
        Diagnostic{SourceLocation{fileName, 0, {}}, std::string("internal error while reading: ") + e.what()});
  }
}

namespace {

using OrderedJson = nlohmann::ordered_json;

// attrs text as a JSON object when it is exactly the canonical compact dump of one (what every reader
// stores); anything else is written as a string so that reading it back restores the same text.
OrderedJson attrsValue(const std::string& text) {
  if (detail::lineWhereNestingExceeds(text, detail::kMaxAttrsObjectDepth) == 0) {
    detail::Json parsed = detail::Json::parse(text, nullptr, false);
    if (parsed.is_object() && parsed.dump() == text) return OrderedJson::parse(text, nullptr, false);
  }
  return OrderedJson(text);
}

}  // namespace

std::string writeNativeJson(const graph::ComputeGraph& g) {
  using graph::NodeKind;
  OrderedJson doc = OrderedJson::object();
  doc["format"] = detail::kFormatTag;
  doc["version"] = detail::kVersion;
  doc["name"] = g.name();
  doc["time_unit"] = g.timeUnit();
  doc["cost_model"] = g.costModel();
  if (g.asGiven()) doc["computation"] = "as-given";
  OrderedJson nodes = OrderedJson::array();
  for (const graph::Node& n : g.nodes()) {
    const bool isOp = n.kind == NodeKind::Op;
    OrderedJson j = OrderedJson::object();
    j["id"] = n.name;
    j["kind"] = graph::nodeKindName(n.kind);
    if (isOp || !n.op.empty()) j["op"] = n.op;
    if (isOp || !n.inputs.empty()) {
      OrderedJson inputs = OrderedJson::array();
      for (graph::NodeId in : n.inputs) inputs.push_back(g.node(in).name);
      j["inputs"] = std::move(inputs);
    }
    j["bytes"] = n.bytes.value;
    if (!n.shape.empty()) j["shape"] = n.shape;
    if (!n.dtype.empty()) j["dtype"] = n.dtype;
    // Times and saves belong to operations; other kinds carry them only if someone set them.
    if (isOp || n.fwdTime.value != 0) j["fwd_time"] = n.fwdTime.value;
    if (isOp || n.bwdTime.value != 0) j["bwd_time"] = n.bwdTime.value;
    if (isOp || n.saves.output || !n.saves.inputs.empty())
      j["saves"] = OrderedJson{{"inputs", n.saves.inputs}, {"output", n.saves.output}};
    if (n.workspace.value != 0) j["workspace"] = n.workspace.value;
    if (n.bwdWorkspace != n.workspace) j["bwd_workspace"] = n.bwdWorkspace.value;
    if (!n.attrs.empty()) j["attrs"] = attrsValue(n.attrs);
    nodes.push_back(std::move(j));
  }
  doc["nodes"] = std::move(nodes);
  const auto& backward = g.explicitBackward();
  if (!backward.empty()) {
    OrderedJson list = OrderedJson::array();
    for (const graph::BackwardNode& b : backward) {
      OrderedJson j = OrderedJson::object();
      j["id"] = b.name;
      j["time"] = b.time.value;
      j["bytes"] = b.bytes.value;
      OrderedJson inputs = OrderedJson::array();
      for (const graph::BackwardRef& ref : b.inputs)
        inputs.push_back(ref.side == graph::BackwardRef::Side::Forward ? g.node(graph::NodeId{ref.index}).name
                                                                       : backward[ref.index].name);
      j["inputs"] = std::move(inputs);
      if (b.gradientOf.valid()) j["gradient_of"] = g.node(b.gradientOf).name;
      list.push_back(std::move(j));
    }
    doc["backward_graph"] = std::move(list);
  }
  if (!g.pinnedKeep().empty() || !g.pinnedRecompute().empty()) {
    OrderedJson pins = OrderedJson::object();
    for (const bool keep : {true, false}) {
      const auto& ids = keep ? g.pinnedKeep() : g.pinnedRecompute();
      if (ids.empty()) continue;
      OrderedJson names = OrderedJson::array();
      for (graph::NodeId id : ids) names.push_back(g.node(id).name);
      pins[keep ? "keep" : "recompute"] = std::move(names);
    }
    doc["pins"] = std::move(pins);
  }
  // Names from the readers are valid UTF-8; replace keeps the writer total for graphs built elsewhere.
  return doc.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace remat::io
