#pragma once

// Helpers shared by the io tests: fixture paths, file reading, and small graph queries.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"

namespace remat::io::test {

inline std::filesystem::path fixture(const std::string& relative) {
  return std::filesystem::path(REMAT_FIXTURES_DIR) / relative;
}

inline std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Regular files of a folder, sorted by name (deterministic test order).
inline std::vector<std::filesystem::path> filesIn(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline const graph::Node& nodeNamed(const graph::ComputeGraph& g, const std::string& name) {
  auto id = g.find(name);
  if (!id) throw std::runtime_error("no node named '" + name + "'");
  return g.node(*id);
}

/// Names of a node's inputs, in order.
inline std::vector<std::string> inputNames(const graph::ComputeGraph& g, const std::string& name) {
  std::vector<std::string> out;
  for (graph::NodeId in : nodeNamed(g, name).inputs) out.push_back(g.node(in).name);
  return out;
}

inline std::size_t countKind(const graph::ComputeGraph& g, graph::NodeKind kind) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes().begin(), g.nodes().end(), [&](const graph::Node& n) { return n.kind == kind; }));
}

/// Every warning and error, one per line, for failure messages.
template <class R>
std::string allMessages(const R& r) {
  std::string out = r.errorText();
  for (const auto& w : r.warnings()) out += "\nwarning: " + w.toString();
  return out;
}

}  // namespace remat::io::test
