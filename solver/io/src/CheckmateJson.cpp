#include "remat/io/CheckmateJson.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "JsonSupport.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/io/detail/ReaderSupport.hpp"

// networkx node-link JSON as Checkmate (Jain et al., MLSys 2020) and Moccasin export it. Two variants:
//  - Checkmate graphs: nodes {id, name, cost_cpu, cost_ram, backward}, links {source, target};
//  - Moccasin's random layered graphs: nodes {name (the id), duration, out_cost, param_cost},
//    links {"0": source, "1": target}.
// The mapping onto Remat's graph model is documented in docs/formats.md.

namespace remat::io {
namespace detail {
namespace {

constexpr std::string_view kBackwardSuffix = "_backward";

enum class Variant { Checkmate, Layered };

/// Orders node ids as "by source id": integers ascending (negatives first), then strings.
struct IdOrder {
  int rank = 0;  ///< 0 negative integer, 1 non-negative integer, 2 string
  std::int64_t negative = 0;
  std::uint64_t nonNegative = 0;
  std::string text;
  std::size_t index = 0;  ///< position in the file, to break ties

  bool operator<(const IdOrder& o) const {
    return std::tie(rank, negative, nonNegative, text, index) <
           std::tie(o.rank, o.negative, o.nonNegative, o.text, o.index);
  }
};

struct CmNode {
  std::string key;     ///< the id's JSON text, to match links (1 and "1" are different ids)
  std::string idText;  ///< the id as a name: the number or the string
  std::string rawName;
  std::string name;  ///< unique node name used in the graph
  IdOrder order;
  bool backward = false;
  std::int64_t time = 0;
  std::int64_t bytes = 0;
  std::int64_t paramBytes = 0;
  std::vector<std::size_t> preds;  ///< indices of all predecessors (forward and backward)
};

// Operation type from a Keras-style layer name: the last word that names a layer type decides
// ("conv2_block1_1_bn" is a batch norm, "block1_conv2" a convolution, "conv1_pad" a padding).
std::string guessOpType(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!word.empty())
      words.push_back(std::move(word)), word.clear();
  }
  if (!word.empty()) words.push_back(std::move(word));
  struct Rule {
    std::string_view word;
    std::string_view op;
  };
  static constexpr Rule kRules[] = {
      {"conv", "Conv"},
      {"convolution", "Conv"},
      {"dw", "Conv"},
      {"pw", "Conv"},
      {"transpose", "ConvTranspose"},
      {"deconv", "ConvTranspose"},
      {"pool", "Pool"},
      {"pooling", "Pool"},
      {"fc", "Gemm"},
      {"dense", "Gemm"},
      {"predictions", "Gemm"},
      {"flatten", "Flatten"},
      {"reshape", "Reshape"},
      {"bn", "BatchNorm"},
      {"normalization", "BatchNorm"},
      {"relu", "Relu"},
      {"activation", "Activation"},
      {"softmax", "Softmax"},
      {"probs", "Softmax"},
      {"add", "Add"},
      {"concatenate", "Concat"},
      {"concat", "Concat"},
      {"dropout", "Dropout"},
      {"pad", "Pad"},
      {"padding", "Pad"},
      {"sampling", "Upsample"},
      {"upsampling", "Upsample"},
      {"cropping", "Crop"},
  };
  for (std::size_t k = words.size(); k-- > 0;) {
    std::string_view w = words[k];
    // Strip trailing digits and a dimension suffix: "conv2d" -> "conv", "fc1000" -> "fc".
    while (!w.empty() && std::isdigit(static_cast<unsigned char>(w.back()))) w.remove_suffix(1);
    if (w.ends_with("1d") || w.ends_with("2d") || w.ends_with("3d")) w.remove_suffix(2);
    if (w.empty()) continue;  // a bare number such as the "1" of "conv_dw_1"
    for (const Rule& r : kRules)
      if (w == r.word) return std::string(r.op);
    return "Op";  // the last word is not a layer type we know
  }
  return "Op";
}

class CheckmateReader {
 public:
  CheckmateReader(const Json& doc, Diagnostics& diag, bool asGiven) : m_doc(doc), m_diag(diag), m_asGiven(asGiven) {}
  Result<graph::ComputeGraph> run();

 private:
  bool readNodes(const Json& nodes);
  bool readLinks(const Json& links);
  std::optional<std::vector<std::size_t>> readOrder();
  std::optional<std::int64_t> requiredCount(const Json& node, const std::string& path, std::string_view key);
  bool readId(const Json& id, const std::string& path, CmNode& node);
  void assignNames();

  const Json& m_doc;
  Diagnostics& m_diag;
  bool m_asGiven = false;  ///< every node an operation, no backward pass added
  Variant m_variant = Variant::Checkmate;
  std::vector<CmNode> m_nodes;
  std::unordered_map<std::string, std::size_t> m_byKey;
};

std::optional<std::int64_t> CheckmateReader::requiredCount(const Json& node, const std::string& path,
                                                           std::string_view key) {
  const Json* v = member(node, key);
  if (!v) {
    m_diag.errorAtPath(path, "missing required key \"" + std::string(key) + "\"");
    return std::nullopt;
  }
  return readInt(*v, childPath(path, key), m_diag, true, FloatPolicy::AcceptWhole);
}

bool CheckmateReader::readId(const Json& id, const std::string& path, CmNode& node) {
  if (id.is_number_unsigned()) {
    node.order.rank = 1;
    node.order.nonNegative = id.get<std::uint64_t>();
    node.idText = id.dump();
  } else if (id.is_number_integer()) {
    node.order.rank = 0;
    node.order.negative = id.get<std::int64_t>();
    node.idText = id.dump();
  } else if (id.is_string()) {
    node.order.rank = 2;
    node.order.text = id.get<std::string>();
    node.idText = node.order.text;
  } else {
    m_diag.errorAtPath(path, "expected an integer or a string as node id, got " + describe(id));
    return false;
  }
  node.key = id.dump();
  return true;
}

bool CheckmateReader::readNodes(const Json& nodes) {
  const Json& first = nodes.front();
  if (first.is_object() && !member(first, "cost_ram") && (member(first, "out_cost") || member(first, "duration")))
    m_variant = Variant::Layered;
  for (std::size_t i = 0; i < nodes.size() && !m_diag.full(); ++i) {
    const Json& v = nodes[i];
    const std::string path = childPath("/nodes", i);
    if (!v.is_object()) {
      m_diag.errorAtPath(path, "expected a node object, got " + describe(v));
      continue;
    }
    CmNode node;
    node.order.index = i;
    bool ok = true;
    const std::string_view idKey = m_variant == Variant::Checkmate ? "id" : "name";
    if (const Json* id = member(v, idKey))
      ok = readId(*id, childPath(path, idKey), node);
    else {
      m_diag.errorAtPath(path, "missing required key \"" + std::string(idKey) + "\"");
      ok = false;
    }
    if (m_variant == Variant::Checkmate) {
      node.rawName = node.idText;
      if (const Json* name = member(v, "name")) {
        if (name->is_string())
          node.rawName = name->get<std::string>();
        else if (name->is_number_integer())
          node.rawName = name->dump();
        else {
          m_diag.errorAtPath(childPath(path, "name"), "expected a string, got " + describe(*name));
          ok = false;
        }
      }
      auto time = requiredCount(v, path, "cost_cpu");
      auto bytes = requiredCount(v, path, "cost_ram");
      ok = ok && time && bytes;
      node.time = time.value_or(0);
      node.bytes = bytes.value_or(0);
      if (const Json* backward = member(v, "backward")) {
        if (backward->is_boolean())
          node.backward = backward->get<bool>();
        else {
          m_diag.errorAtPath(childPath(path, "backward"), "expected true or false, got " + describe(*backward));
          ok = false;
        }
      }
    } else {
      node.rawName = node.idText;
      auto time = requiredCount(v, path, "duration");
      auto bytes = requiredCount(v, path, "out_cost");
      std::optional<std::int64_t> param = 0;
      if (const Json* p = member(v, "param_cost"))
        param = readInt(*p, childPath(path, "param_cost"), m_diag, true, FloatPolicy::AcceptWhole);
      ok = ok && time && bytes && param;
      node.time = time.value_or(0);
      node.bytes = bytes.value_or(0);
      node.paramBytes = param.value_or(0);
    }
    if (!ok) continue;
    if (auto [it, fresh] = m_byKey.emplace(node.key, m_nodes.size()); !fresh) {
      m_diag.errorAtPath(childPath(path, idKey), "duplicate node id " + printable(node.key) + " (first at /nodes/" +
                                                     std::to_string(m_nodes[it->second].order.index) + ")");
      continue;
    }
    m_nodes.push_back(std::move(node));
  }
  return !m_diag.hasErrors();
}

bool CheckmateReader::readLinks(const Json& links) {
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t i = 0; i < links.size() && !m_diag.full(); ++i) {
    const Json& v = links[i];
    const std::string path = childPath("/links", i);
    if (!v.is_object()) {
      m_diag.errorAtPath(path, "expected a link object, got " + describe(v));
      continue;
    }
    std::string_view sourceKey = "source";
    std::string_view targetKey = "target";
    if (!member(v, "source") && member(v, "0")) {
      sourceKey = "0";
      targetKey = "1";
    }
    std::optional<std::size_t> ends[2];
    const std::string_view keys[2] = {sourceKey, targetKey};
    for (int e = 0; e < 2; ++e) {
      const Json* end = member(v, keys[e]);
      if (!end) {
        m_diag.errorAtPath(path, "missing key \"" + std::string(keys[e]) +
                                     "\" (a link is {\"source\": id, \"target\": id} or {\"0\": id, \"1\": id})");
        continue;
      }
      auto it = m_byKey.find(end->dump());
      if (it == m_byKey.end()) {
        m_diag.errorAtPath(childPath(path, keys[e]), "unknown node id " + describe(*end));
        continue;
      }
      ends[e] = it->second;
    }
    if (!ends[0] || !ends[1]) continue;
    const std::size_t source = *ends[0];
    const std::size_t target = *ends[1];
    if (m_nodes[source].backward && !m_nodes[target].backward) {
      m_diag.errorAtPath(path, "a backward node ('" + printable(m_nodes[source].rawName) +
                                   "') cannot feed a forward node ('" + printable(m_nodes[target].rawName) + "')");
      continue;
    }
    if (seen.emplace(source, target).second) m_nodes[target].preds.push_back(source);  // duplicates ignored
  }
  return !m_diag.hasErrors();
}

// `graph.order` (Moccasin's random layered graphs carry one): the order in which the file's plain run
// computes the nodes, from which Moccasin takes the initial peak that its budgets are fractions of. Every
// node once, each after its predecessors. Returns the node indices in that order; without the key, file
// order.
std::optional<std::vector<std::size_t>> CheckmateReader::readOrder() {
  std::vector<std::size_t> seq;
  const Json* g = member(m_doc, "graph");
  const Json* order = g && g->is_object() ? member(*g, "order") : nullptr;
  if (!order) {
    for (std::size_t i = 0; i < m_nodes.size(); ++i) seq.push_back(i);
    return seq;
  }
  if (!order->is_array()) {
    m_diag.errorAtPath("/graph/order", "expected an array of node ids, got " + describe(*order));
    return std::nullopt;
  }
  constexpr std::size_t kUnlisted = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> position(m_nodes.size(), kUnlisted);
  for (std::size_t k = 0; k < order->size() && !m_diag.full(); ++k) {
    const std::string path = childPath("/graph/order", k);
    auto it = m_byKey.find((*order)[k].dump());
    if (it == m_byKey.end()) {
      m_diag.errorAtPath(path, "unknown node id " + describe((*order)[k]));
      continue;
    }
    if (position[it->second] != kUnlisted) {
      m_diag.errorAtPath(path, "node id " + printable(it->first) + " listed twice (first at /graph/order/" +
                                   std::to_string(position[it->second]) + ")");
      continue;
    }
    position[it->second] = k;
    seq.push_back(it->second);
  }
  if (m_diag.hasErrors()) return std::nullopt;
  if (seq.size() != m_nodes.size()) {
    std::size_t missing = 0;
    while (position[missing] != kUnlisted) ++missing;
    m_diag.errorAtPath("/graph/order", "lists " + std::to_string(seq.size()) + " of the " +
                                           std::to_string(m_nodes.size()) + " nodes; node id " +
                                           printable(m_nodes[missing].key) + " (/nodes/" +
                                           std::to_string(m_nodes[missing].order.index) + ") is not listed");
    return std::nullopt;
  }
  for (std::size_t k = 0; k < seq.size() && !m_diag.full(); ++k)
    for (std::size_t p : m_nodes[seq[k]].preds)
      if (position[p] > k)
        m_diag.errorAtPath(childPath("/graph/order", k),
                           "node id " + printable(m_nodes[seq[k]].key) + " comes before its predecessor " +
                               printable(m_nodes[p].key) + " (at /graph/order/" + std::to_string(position[p]) + ")");
  if (m_diag.hasErrors()) return std::nullopt;
  return seq;
}

void CheckmateReader::assignNames() {
  std::unordered_map<std::string, std::size_t> uses;
  for (const CmNode& n : m_nodes) ++uses[n.rawName];
  for (CmNode& n : m_nodes) n.name = uses[n.rawName] > 1 ? n.rawName + "#" + n.idText : n.rawName;
}

Result<graph::ComputeGraph> CheckmateReader::run() {
  if (!m_doc.is_object()) {
    m_diag.errorAtPath("", "expected a JSON object at the top level, got " + describe(m_doc));
    return m_diag.failure();
  }
  const Json* nodes = member(m_doc, "nodes");
  const Json* links = member(m_doc, "links");
  if (!nodes)
    m_diag.errorAtPath("", "missing required key \"nodes\"");
  else if (!nodes->is_array())
    m_diag.errorAtPath("/nodes", "expected an array of nodes, got " + describe(*nodes));
  else if (nodes->empty())
    m_diag.errorAtPath("/nodes", "graph has no nodes");
  if (!links)
    m_diag.errorAtPath("", "missing required key \"links\"");
  else if (!links->is_array())
    m_diag.errorAtPath("/links", "expected an array of links, got " + describe(*links));
  if (m_diag.hasErrors()) return m_diag.failure();
  if (!readNodes(*nodes) || !readLinks(*links)) return m_diag.failure();
  const std::optional<std::vector<std::size_t>> sequence = readOrder();
  if (!sequence) return m_diag.failure();
  assignNames();
  if (std::all_of(m_nodes.begin(), m_nodes.end(), [](const CmNode& n) { return n.backward; })) {
    m_diag.errorAtPath("/nodes", "graph has no forward nodes (every node is marked \"backward\")");
    return m_diag.failure();
  }

  for (CmNode& n : m_nodes)
    std::sort(n.preds.begin(), n.preds.end(),
              [&](std::size_t a, std::size_t b) { return m_nodes[a].order < m_nodes[b].order; });

  // Forward nodes by their file name, to find X for a backward node named "X_backward".
  std::unordered_map<std::string, std::size_t> forwardByRawName;
  std::unordered_map<std::string, std::size_t> forwardNameUses;
  bool training = false;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    if (m_nodes[i].backward)
      training = true;
    else {
      forwardByRawName.emplace(m_nodes[i].rawName, i);
      ++forwardNameUses[m_nodes[i].rawName];
    }
  }

  // Computed as given (a random layered graph, or asked): every node, backward nodes included, is an
  // operation of the whole computation, and no backward pass is added.
  const bool asGiven = m_asGiven || m_variant == Variant::Layered;
  if (asGiven) {
    for (CmNode& n : m_nodes) n.backward = false;
    training = false;
  }

  // Forward op specs, indexed like m_nodes (backward nodes leave an empty slot).
  std::vector<graph::NodeSpec> specs(m_nodes.size());
  std::vector<graph::NodeSpec> params;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    const CmNode& n = m_nodes[i];
    if (n.backward) continue;
    graph::NodeSpec& s = specs[i];
    s.name = n.name;
    s.kind = graph::NodeKind::Op;
    s.op = m_variant == Variant::Checkmate ? guessOpType(n.rawName) : "Op";
    for (std::size_t p : n.preds) s.inputs.push_back(m_nodes[p].name);  // links never lead backward -> forward
    s.bytes = n.bytes;
    s.fwdTime = n.time;
    s.bwdTime = asGiven ? 0 : n.time;
    s.where = m_diag.at(0, childPath("/nodes", n.order.index));
    if (n.paramBytes > 0) {
      graph::NodeSpec param;
      param.name = n.idText + "/param";
      param.kind = graph::NodeKind::Param;
      param.bytes = n.paramBytes;
      param.where = s.where;
      s.inputs.push_back(param.name);
      params.push_back(std::move(param));
    }
    if (!training && !asGiven) {
      // A forward-only graph says nothing about what backward needs: assume everything is kept.
      for (std::size_t k = 0; k < s.inputs.size(); ++k) s.saves.inputs.push_back(static_cast<std::uint32_t>(k));
      s.saves.output = true;
    }
  }

  auto positionsOf = [&](const graph::NodeSpec& consumer, const std::string& name) {
    std::vector<std::uint32_t> out;
    for (std::size_t k = 0; k < consumer.inputs.size(); ++k)
      if (consumer.inputs[k] == name) out.push_back(static_cast<std::uint32_t>(k));
    return out;
  };

  std::vector<graph::BackwardSpec> backward;
  std::vector<bool> hasBackwardTime(m_nodes.size(), false);
  for (std::size_t i : *sequence) {
    const CmNode& b = m_nodes[i];
    if (!b.backward) continue;
    graph::BackwardSpec spec;
    spec.name = b.name;
    spec.time = b.time;
    spec.bytes = b.bytes;
    spec.where = m_diag.at(0, childPath("/nodes", b.order.index));
    for (std::size_t p : b.preds) spec.inputs.push_back(m_nodes[p].name);
    std::optional<std::size_t> x;
    if (std::string_view raw = b.rawName; raw.ends_with(kBackwardSuffix)) {
      const std::string forwardName(raw.substr(0, raw.size() - kBackwardSuffix.size()));
      if (auto it = forwardByRawName.find(forwardName); it != forwardByRawName.end()) {
        if (forwardNameUses[forwardName] == 1)
          x = it->second;
        else
          m_diag.warning(spec.where, "several forward nodes are named '" + printable(forwardName) + "'; '" +
                                         printable(b.rawName) + "' is not tied to any of them");
      }
    }
    if (x) {
      spec.gradientOf = m_nodes[*x].name;
      graph::NodeSpec& xs = specs[*x];
      if (hasBackwardTime[*x])
        m_diag.warning(spec.where,
                       "'" + printable(xs.name) + "' has more than one backward node; the first one's time is used");
      else {
        xs.bwdTime = b.time;
        hasBackwardTime[*x] = true;
      }
      // Forward values feeding X's backward are what must be kept for it.
      for (std::size_t u : b.preds) {
        if (m_nodes[u].backward) continue;
        if (u == *x) {
          xs.saves.output = true;
        } else if (auto pos = positionsOf(xs, m_nodes[u].name); !pos.empty()) {
          xs.saves.inputs.insert(xs.saves.inputs.end(), pos.begin(), pos.end());
        } else if (auto back = positionsOf(specs[u], xs.name); !back.empty()) {
          graph::NodeSpec& us = specs[u];
          us.saves.inputs.insert(us.saves.inputs.end(), back.begin(), back.end());
        } else {
          m_diag.warning(spec.where, "forward node '" + printable(m_nodes[u].name) + "' feeds '" + printable(b.name) +
                                         "' but is neither '" + printable(xs.name) +
                                         "', one of its inputs, nor one of its consumers; ignored for saves");
        }
      }
    }
    backward.push_back(std::move(spec));
  }

  graph::GraphBuilder builder;
  std::string name = fileStem(m_diag.file());
  if (const Json* g = member(m_doc, "graph"))
    if (const Json* n = member(*g, "name"); n && n->is_string()) name = n->get<std::string>();
  builder.setName(std::move(name));
  builder.setTimeUnit("ticks");
  builder.setCostModel("file");
  builder.setAsGiven(asGiven);
  builder.setSource(m_diag.at(0, "/nodes"));
  for (graph::NodeSpec& p : params) builder.add(std::move(p));
  // The graph builder keeps the order nodes are added in wherever the links allow it.
  for (std::size_t i : *sequence)
    if (!m_nodes[i].backward) builder.add(std::move(specs[i]));
  for (graph::BackwardSpec& b : backward) builder.addBackward(std::move(b));
  return m_diag.build(builder);
}

}  // namespace

Result<graph::ComputeGraph> readCheckmateDocument(const Json& doc, Diagnostics& diag, bool asGiven) {
  CheckmateReader reader(doc, diag, asGiven);
  return reader.run();
}

}  // namespace detail

Result<graph::ComputeGraph> readCheckmateJson(std::string_view text, const std::string& fileName, bool asGiven) {
  detail::Diagnostics diag(fileName);
  try {
    auto doc = detail::parseJson(detail::stripBom(text), diag);
    if (!doc) return diag.failure();
    return detail::readCheckmateDocument(*doc, diag, asGiven);
  } catch (const std::exception& e) {
    return Result<graph::ComputeGraph>::failure(
        Diagnostic{SourceLocation{fileName, 0, {}}, std::string("internal error while reading: ") + e.what()});
  }
}

}  // namespace remat::io
