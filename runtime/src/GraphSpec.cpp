#include "remat/runtime/GraphSpec.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <limits>
#include <queue>
#include <sstream>

#include "remat/runtime/RunnerError.hpp"

namespace remat::runtime {

using nlohmann::json;

std::int64_t NodeSpec::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::int64_t NodeSpec::denseBytes() const { return elements() * dtypeSize(dtype).value_or(0); }

bool NodeSpec::hasGradient() const {
  if (kind != NodeKind::Param || !value.empty()) return false;
  for (const char* discrete : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
    if (dtype == discrete) return false;
  return true;
}

std::optional<std::size_t> GraphSpec::find(std::string_view id) const {
  auto it = byId.find(std::string(id));
  if (it == byId.end()) return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> dtypeSize(std::string_view dtype) {
  struct Entry {
    std::string_view name;
    std::int64_t bytes;
  };
  static constexpr std::array<Entry, 13> kSizes{{{"float32", 4},
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
                                                 {"bool", 1}}};
  for (const auto& e : kSizes)
    if (e.name == dtype) return e.bytes;
  return std::nullopt;
}

std::string readTextFile(const std::string& path, std::size_t maxBytes) {
  // Regular files only, as every reader of Remat's: a FIFO with no writer would block for ever, a device
  // never ends.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw RunnerError(ExitCode::Input, path + ": cannot open the file");
  if (!std::filesystem::is_regular_file(status))
    throw RunnerError(ExitCode::Input, path + ": not a regular file (a folder, device, FIFO or socket)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunnerError(ExitCode::Input, path + ": cannot open the file");
  // Read in blocks up to the cap, not whole: /dev/zero or a FIFO has no size to check first.
  std::string text;
  std::array<char, 1 << 16> block{};
  while (in.read(block.data(), block.size()) || in.gcount() > 0) {
    text.append(block.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > maxBytes)
      throw RunnerError(ExitCode::Input, path + ": the file is larger than " + std::to_string(maxBytes) +
                                             " bytes, more than remat-runner reads");
  }
  if (in.bad()) throw RunnerError(ExitCode::Input, path + ": cannot read the file");
  return text;
}

GraphSpec readGraphSpec(const std::string& path) { return parseGraphSpec(readTextFile(path), path); }

namespace {

std::int64_t nonNegative(const json& v, const std::string& where, const std::string& file) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    throw RunnerError(ExitCode::Input, file + ": " + where + ": expected a non-negative integer");
  return v.get<std::int64_t>();
}

// A constant's elements from `attrs.value`: one value for a scalar, else a flat row-major list of as many
// as the shape holds; numbers, booleans, and the strings "inf", "-inf" and "nan" for what JSON cannot write.
std::vector<double> constantValue(const NodeSpec& s, const std::string& where, const std::string& file) {
  auto bad = [&](const std::string& why) {
    return RunnerError(ExitCode::Input, file + ": " + where + ": node '" + s.id + "': " + why);
  };
  auto one = [&](const json& x) -> double {
    if (x.is_number()) return x.get<double>();
    if (x.is_boolean()) return x.get<bool>() ? 1.0 : 0.0;
    if (x.is_string()) {
      const std::string& text = x.get_ref<const std::string&>();
      if (text == "inf") return std::numeric_limits<double>::infinity();
      if (text == "-inf") return -std::numeric_limits<double>::infinity();
      if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    throw bad("a constant's elements are numbers, booleans, \"inf\", \"-inf\" or \"nan\"");
  };
  const json& v = s.attrs["value"];
  std::vector<double> out;
  if (v.is_array())
    for (const json& x : v) out.push_back(one(x));
  else
    out.push_back(one(v));
  if (static_cast<std::int64_t>(out.size()) != s.elements())
    throw bad(std::to_string(out.size()) + " values for a tensor of " + std::to_string(s.elements()) + " elements");
  return out;
}

}  // namespace

GraphSpec parseGraphSpec(std::string_view text, const std::string& fileName) {
  auto fail = [&](const std::string& where, const std::string& why) {
    return RunnerError(ExitCode::Input, fileName + ": " + (where.empty() ? "" : where + ": ") + why);
  };
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw fail("", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw fail("", "expected a JSON object");
  if (doc.value("format", json()) != "remat-graph") throw fail("/format", "expected \"remat-graph\" (a native graph)");
  if (doc.value("version", json()) != 1) throw fail("/version", "unsupported graph version (remat-runner reads 1)");
  if (!doc.contains("nodes") || !doc["nodes"].is_array() || doc["nodes"].empty())
    throw fail("/nodes", "expected a non-empty array of nodes");

  GraphSpec g;
  g.file = fileName;
  if (doc.contains("name") && doc["name"].is_string()) {
    g.name = doc["name"].get<std::string>();
  } else {
    std::string stem = fileName.substr(fileName.find_last_of('/') + 1);
    g.name = stem.substr(0, stem.rfind('.'));
  }
  const json& nodes = doc["nodes"];
  // First pass: ids, so that inputs may name nodes later in the file.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string path = "/nodes/" + std::to_string(i);
    if (!nodes[i].is_object()) throw fail(path, "expected an object");
    if (!nodes[i].contains("id") || !nodes[i]["id"].is_string()) throw fail(path + "/id", "expected a string");
    if (!g.byId.emplace(nodes[i]["id"].get<std::string>(), i).second)
      throw fail(path + "/id", "duplicate id '" + nodes[i]["id"].get<std::string>() + "'");
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const json& n = nodes[i];
    const std::string path = "/nodes/" + std::to_string(i);
    NodeSpec s;
    s.id = n["id"].get<std::string>();
    const std::string kind = n.value("kind", "");
    if (kind == "input")
      s.kind = NodeKind::Input;
    else if (kind == "param")
      s.kind = NodeKind::Param;
    else if (kind == "op")
      s.kind = NodeKind::Op;
    else
      throw fail(path + "/kind", "expected \"input\", \"param\" or \"op\"");
    if (!n.contains("bytes")) throw fail(path + "/bytes", "missing");
    s.bytes = nonNegative(n["bytes"], path + "/bytes", fileName);
    if (n.contains("shape")) {
      if (!n["shape"].is_array()) throw fail(path + "/shape", "expected an array of integers");
      for (std::size_t k = 0; k < n["shape"].size(); ++k)
        s.shape.push_back(nonNegative(n["shape"][k], path + "/shape/" + std::to_string(k), fileName));
    }
    if (n.contains("dtype")) {
      if (!n["dtype"].is_string()) throw fail(path + "/dtype", "expected a string");
      s.dtype = n["dtype"].get<std::string>();
    }
    if (!dtypeSize(s.dtype))
      throw fail(path + "/dtype", "node '" + s.id + "': dtype '" + s.dtype + "' is not supported by remat-runner");
    if (n.contains("workspace")) s.workspace = nonNegative(n["workspace"], path + "/workspace", fileName);
    if (s.kind == NodeKind::Op) {
      if (!n.contains("op") || !n["op"].is_string()) throw fail(path + "/op", "expected the operation type");
      s.op = n["op"].get<std::string>();
      if (!n.contains("inputs") || !n["inputs"].is_array()) throw fail(path + "/inputs", "expected an array of ids");
      for (std::size_t k = 0; k < n["inputs"].size(); ++k) {
        const json& in = n["inputs"][k];
        auto it = in.is_string() ? g.byId.find(in.get<std::string>()) : g.byId.end();
        if (it == g.byId.end())
          throw fail(path + "/inputs/" + std::to_string(k), "node '" + s.id + "': unknown input " + in.dump());
        s.inputs.push_back(it->second);
      }
      if (n.contains("saves")) {
        const json& sv = n["saves"];
        if (!sv.is_object()) throw fail(path + "/saves", "expected an object");
        if (sv.contains("inputs")) {
          if (!sv["inputs"].is_array()) throw fail(path + "/saves/inputs", "expected an array");
          for (std::size_t k = 0; k < sv["inputs"].size(); ++k) {
            const std::int64_t pos =
                nonNegative(sv["inputs"][k], path + "/saves/inputs/" + std::to_string(k), fileName);
            if (pos >= static_cast<std::int64_t>(s.inputs.size()))
              throw fail(path + "/saves/inputs/" + std::to_string(k), "no such input position");
            s.savesInputs.push_back(static_cast<std::uint32_t>(pos));
          }
        }
        if (sv.contains("output")) {
          if (!sv["output"].is_boolean()) throw fail(path + "/saves/output", "expected true or false");
          s.savesOutput = sv["output"].get<bool>();
        }
      }
    }
    if (n.contains("attrs")) {
      const json& a = n["attrs"];
      if (a.is_object()) {
        s.attrs = a;
      } else if (a.is_string()) {
        // Attributes that were not canonical JSON are written as a string (docs/formats.md).
        try {
          s.attrs = json::parse(a.get<std::string>());
        } catch (const json::parse_error&) {
          throw fail(path + "/attrs", "node '" + s.id + "': attributes are not a JSON object");
        }
        if (!s.attrs.is_object()) throw fail(path + "/attrs", "node '" + s.id + "': attributes are not a JSON object");
      } else {
        throw fail(path + "/attrs", "expected an object");
      }
    }
    if (s.kind != NodeKind::Op && s.attrs.contains("value"))
      s.value = constantValue(s, path + "/attrs/value", fileName);
    // The runner creates every tensor with the graph's shape and dtype, so its size must be what the
    // graph counts; only views (zero bytes, aliasing their operand) may differ.
    if (s.bytes != s.denseBytes() && !s.isAliasView())
      throw fail(path, "node '" + s.id + "': bytes " + std::to_string(s.bytes) + " differ from shape x dtype (" +
                           std::to_string(s.denseBytes()) +
                           " bytes); remat-runner needs the exact shape of every tensor" +
                           (s.op == "Saved" || (s.attrs.is_object() && s.attrs.contains("torch"))
                                ? std::string(" (a graph captured from PyTorch runs in PyTorch instead: "
                                              "remat.torch.apply and measure, docs/python.md)")
                                : std::string()));
    g.nodes.push_back(std::move(s));
  }

  const std::size_t n = g.nodes.size();
  g.successors.assign(n, {});
  g.opPredecessors.assign(n, {});
  g.paramInputs.assign(n, {});
  std::vector<std::size_t> indegree(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    for (std::size_t u : g.nodes[v].inputs) {
      if (g.nodes[u].kind == NodeKind::Op) g.opPredecessors[v].push_back(u);
      if (g.nodes[u].kind == NodeKind::Param) g.paramInputs[v].push_back(u);
      g.successors[u].push_back(v);
    }
  }
  auto dedupe = [](std::vector<std::size_t>& list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  };
  for (std::size_t v = 0; v < n; ++v) {
    dedupe(g.successors[v]);
    dedupe(g.opPredecessors[v]);
    dedupe(g.paramInputs[v]);
    indegree[v] = g.opPredecessors[v].size();
  }
  // Kahn's algorithm, smallest file index first, so that a file in topological order keeps its order.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (g.nodes[v].kind == NodeKind::Op && indegree[v] == 0) ready.push(v);
  while (!ready.empty()) {
    const std::size_t v = ready.top();
    ready.pop();
    g.topoOps.push_back(v);
    for (std::size_t w : g.successors[v])
      if (--indegree[w] == 0) ready.push(w);
  }
  std::size_t ops = 0;
  for (const auto& s : g.nodes) ops += s.kind == NodeKind::Op ? 1 : 0;
  if (g.topoOps.size() != ops) throw fail("/nodes", "the operations form a cycle");
  return g;
}

}  // namespace remat::runtime
