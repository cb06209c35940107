#pragma once

// Small graphs for tests, built through the real GraphBuilder.

#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/graph/NodeSet.hpp"

namespace remat::test {

struct OpSketch {
  std::string name;
  std::vector<std::string> inputs;
  std::int64_t bytes = 1;
  std::int64_t time = 1;
  std::vector<std::uint32_t> savedInputs;
  bool savesOutput = false;
  std::string op = "Op";
};

/// Builds a graph with one input "x" of `inputBytes` and one parameter "w" of `paramBytes` (used by no
/// one unless named), plus the given operations. Throws on an invalid sketch (a test bug).
inline graph::ComputeGraph makeGraph(const std::vector<OpSketch>& ops, std::int64_t inputBytes = 0,
                                     std::int64_t paramBytes = 0) {
  graph::GraphBuilder b;
  b.setName("test");
  b.add({.name = "x", .kind = graph::NodeKind::Input, .bytes = inputBytes});
  b.add({.name = "w", .kind = graph::NodeKind::Param, .bytes = paramBytes});
  for (const auto& o : ops) {
    graph::NodeSpec s;
    s.name = o.name;
    s.op = o.op;
    s.inputs = o.inputs;
    s.bytes = o.bytes;
    s.fwdTime = o.time;
    s.bwdTime = o.time;
    s.saves.inputs = o.savedInputs;
    s.saves.output = o.savesOutput;
    b.add(std::move(s));
  }
  auto r = b.build();
  if (!r) throw std::runtime_error("bad test graph: " + r.errorText());
  return std::move(r).value();
}

/// A chain x -> a0 -> a1 -> ... of n ops, each saving its input (like a convolution).
inline graph::ComputeGraph makeChain(int n, std::int64_t bytes = 10) {
  std::vector<OpSketch> ops;
  for (int i = 0; i < n; ++i)
    ops.push_back({"a" + std::to_string(i), {i == 0 ? "x" : "a" + std::to_string(i - 1)}, bytes, 1, {0}, false});
  return makeGraph(ops, bytes);
}

/// A random DAG of n ops: each op takes 1 to 3 earlier ops (or the input) as inputs, random sizes,
/// times and saves. Deterministic in the seed; `timeScale` multiplies every time (the same graph
/// otherwise).
inline graph::ComputeGraph makeRandomDag(int n, std::uint32_t seed, double edgeProbability = 0.3,
                                         std::int64_t timeScale = 1) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> size(1, 100);
  std::uniform_int_distribution<std::int64_t> time(1, 10);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<OpSketch> ops;
  for (int i = 0; i < n; ++i) {
    OpSketch o;
    o.name = "n" + std::to_string(i);
    if (i == 0)
      o.inputs.push_back("x");
    else {
      // Always connect to the previous op so that the graph is connected; add random earlier ones.
      o.inputs.push_back("n" + std::to_string(i - 1));
      for (int j = 0; j < i - 1 && o.inputs.size() < 3; ++j)
        if (coin(rng) < edgeProbability / (1 + (i - 1 - j) / 4.0)) o.inputs.push_back("n" + std::to_string(j));
      if (coin(rng) < 0.2) o.inputs.push_back("w");
    }
    o.bytes = size(rng);
    o.time = time(rng) * timeScale;
    for (std::uint32_t k = 0; k < o.inputs.size(); ++k)
      if (coin(rng) < 0.5) o.savedInputs.push_back(k);
    o.savesOutput = coin(rng) < 0.4;
    ops.push_back(std::move(o));
  }
  return makeGraph(ops, 7, 13);
}

/// A U-Net-like graph: a down path with skip connections into an up path of the same depth.
inline graph::ComputeGraph makeUNet(int depth, std::int64_t base = 64) {
  std::vector<OpSketch> ops;
  std::string prev = "x";
  for (int d = 0; d < depth; ++d) {
    const std::string c = "down" + std::to_string(d);
    ops.push_back({c, {prev, "w"}, base >> d, 10, {0, 1}, false, "Conv"});
    ops.push_back({c + "_relu", {c}, base >> d, 1, {}, true, "Relu"});
    prev = c + "_relu";
  }
  for (int d = depth - 1; d >= 0; --d) {
    const std::string u = "up" + std::to_string(d);
    ops.push_back({u, {prev, "down" + std::to_string(d) + "_relu"}, base >> d, 1, {}, false, "Concat"});
    ops.push_back({u + "_conv", {u, "w"}, base >> d, 10, {0, 1}, false, "Conv"});
    prev = u + "_conv";
  }
  ops.push_back({"loss", {prev}, 1, 1, {0}, false, "Loss"});
  return makeGraph(ops, base, 32);
}

/// A lower-set sequence cutting g into at most `parts` segments at evenly spaced ops: the ancestor
/// closure of each cut op joined to the previous set, so that the sequence grows; it ends with V.
inline std::vector<graph::NodeSet> evenLowerSets(const graph::ComputeGraph& g, std::uint32_t parts) {
  std::vector<graph::NodeSet> sets;
  graph::NodeSet current = graph::emptySet(g);
  const auto n = static_cast<std::uint32_t>(g.opCount());
  for (std::uint32_t k = 1; k < parts; ++k) {
    const graph::NodeSet next = current | graph::ancestorClosure(g, graph::OpIndex{k * n / parts});
    if (next != current && next != graph::fullSet(g)) sets.push_back(current = next);
  }
  sets.push_back(graph::fullSet(g));
  return sets;
}

/// Calls `visit` with every increasing chain ∅ ⊊ L_1 ⊊ ... ⊊ V whose sets come from `sets` (which must
/// hold V), by depth-first search; false, and no more calls, once there are more than `limit` chains.
inline bool forEachChain(const graph::ComputeGraph& g, const std::vector<graph::NodeSet>& sets, std::size_t limit,
                         const std::function<void(const std::vector<graph::NodeSet>&)>& visit) {
  std::vector<graph::NodeSet> chain;
  const graph::NodeSet all = graph::fullSet(g);
  std::size_t seen = 0;
  std::function<bool(const graph::NodeSet&)> extend = [&](const graph::NodeSet& current) {
    for (const graph::NodeSet& s : sets) {
      if (!current.subsetOf(s) || current == s) continue;
      chain.push_back(s);
      const bool more = s == all ? ++seen <= limit : extend(s);
      if (s == all && more) visit(chain);
      chain.pop_back();
      if (!more) return false;
    }
    return true;
  };
  return extend(graph::emptySet(g));
}

}  // namespace remat::test
