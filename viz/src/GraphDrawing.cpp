// The graph drawing's layout: the only translation unit that sees Graphviz. Graphviz lays the graph out
// with `dot`; we read its coordinates back into plain data and never use its renderers.

#include "remat/viz/GraphDrawing.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "remat/graph/ByteSize.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/TextMetrics.hpp"

namespace remat::viz {

namespace {

using graph::ComputeGraph;
using graph::NodeId;
using graph::NodeKind;

constexpr double kPxPerPoint = 96.0 / 72.0;
constexpr double kPxPerInch = 96.0;
constexpr double kPadX = 6;  // between a node's label and its border, px
constexpr double kPadY = 3;
constexpr double kMinNodeWidth = 40;
// Longer labels are elided when drawn; without a cap one long ONNX name would widen its whole rank.
constexpr double kMaxNodeWidth = 220;

constexpr std::size_t kHidden = std::numeric_limits<std::size_t>::max();
// Network simplex iterations times the size of its graph that dot's positioning may spend (see nslimit).
constexpr double kSimplexWork = 1e6;
// Above this many nodes, edges and virtual nodes, dot's crossing minimisation makes fewer passes (mclimit).
constexpr double kFullMincrossSize = 20000;

// The drawn nodes before layout: which graph nodes each box stands for.
struct Grouping {
  std::vector<DrawnNode> nodes;
  std::vector<std::size_t> groupOf;  // per NodeId value; kHidden when not drawn
};

Grouping groupNodes(const ComputeGraph& g, const NodeMarks& marks, const GraphDrawingOptions& options) {
  const auto roleOf = [&](NodeId id) { return marks.role.empty() ? NodeRole::Other : marks.role[id.value]; };
  const auto segmentOf = [&](NodeId id) { return marks.segment.empty() ? -1 : marks.segment[id.value]; };
  Grouping out;
  out.groupOf.assign(g.size(), kHidden);
  for (std::uint32_t v = 0; v < g.size(); ++v) {
    const NodeId id{v};
    const graph::Node& node = g.node(id);
    if ((node.kind == NodeKind::Input && !options.showInputs) || (node.kind == NodeKind::Param && !options.showParams))
      continue;
    if (options.collapseChains && g.isOp(id)) {
      // Joining v to its producer's box keeps chains maximal, as nodes come in topological order.
      const auto preds = g.opPredecessors(id);
      if (preds.size() == 1) {
        const NodeId u = preds[0];
        if (g.successors(u).size() == 1 && roleOf(u) == roleOf(id) && segmentOf(u) == segmentOf(id)) {
          const std::size_t k = out.groupOf[u.value];
          out.groupOf[v] = k;
          out.nodes[k].members.push_back(id);
          out.nodes[k].bytes += node.bytes;
          continue;
        }
      }
    }
    out.groupOf[v] = out.nodes.size();
    DrawnNode d;
    d.members.push_back(id);
    d.role = roleOf(id);
    d.segment = segmentOf(id);
    d.bytes = node.bytes;
    out.nodes.push_back(std::move(d));
  }
  for (DrawnNode& d : out.nodes) {
    if (d.members.size() == 1) {
      d.label = nodeLabel(g.node(d.members.front()).name);
    } else {
      d.label = nodeLabel(g.node(d.members.front()).name) + " \u2026 " + nodeLabel(g.node(d.members.back()).name) +
                " (" + std::to_string(d.members.size()) + " ops)";
    }
  }
  return out;
}

constexpr const char* kDot = " \u00b7 ";
constexpr std::size_t kTipMembers = 12;  // a chain's tip names this many members, then counts the rest

std::string times(const ComputeGraph& g, Ticks fwd, Ticks bwd) {
  return "forward " + std::to_string(fwd.value) + " " + g.timeUnit() + kDot + "backward " + std::to_string(bwd.value) +
         " " + g.timeUnit();
}

std::string timesText(std::uint32_t n) { return n == 1 ? "1 time" : std::to_string(n) + " times"; }

// The box's part in the plan, from its marks (all members share role and segment).
std::string planRole(const ComputeGraph& g, const NodeMarks& marks, const DrawnNode& d) {
  const NodeId first = d.members.front();
  std::string out;
  switch (d.role) {
    case NodeRole::Kept:
      out = d.segment >= 0 ? "checkpoint: kept until its backward (segment boundary)"
                           : "checkpoint: kept until its backward";
      break;
    case NodeRole::Recomputed:
      out = "recomputed";
      if (marks.computations.size() == g.size()) {
        std::uint32_t lo = std::numeric_limits<std::uint32_t>::max();
        std::uint32_t hi = 0;
        for (const NodeId v : d.members) {
          const std::uint32_t again = marks.computations[v.value] > 0 ? marks.computations[v.value] - 1 : 0;
          lo = std::min(lo, again);
          hi = std::max(hi, again);
        }
        out += " " + (lo == hi ? timesText(hi) : std::to_string(lo) + "\u2013" + timesText(hi));
      }
      break;
    case NodeRole::NeverFreed: out = "kept, never freed before its backward"; break;
    case NodeRole::Other: {
      const NodeKind kind = g.node(first).kind;
      if (kind == NodeKind::Input)
        out = "input, resident";
      else if (kind == NodeKind::Param)
        out = "parameter, resident";
      else if (marks.computations.size() == g.size() && marks.computations[first.value] == 0)
        out = "not computed";
      else
        out = "computed once, not kept";
      break;
    }
  }
  if (d.segment >= 0) out += std::string(kDot) + "segment " + std::to_string(d.segment + 1);
  return out;
}

std::string nodeTip(const ComputeGraph& g, const NodeMarks& marks, const DrawnNode& d) {
  std::string tip;
  if (d.members.size() == 1) {
    const graph::Node& node = g.node(d.members.front());
    tip = displayName(node.name) + "\n" + (node.op.empty() ? std::string(graph::nodeKindName(node.kind)) : node.op) +
          kDot + "output " + formatByteSize(node.bytes);
    if (node.kind == NodeKind::Op) tip += "\n" + times(g, node.fwdTime, node.bwdTime);
  } else {
    Ticks fwd{0};
    Ticks bwd{0};
    tip = "chain of " + std::to_string(d.members.size()) + " ops:";
    for (std::size_t k = 0; k < d.members.size(); ++k) {
      const graph::Node& node = g.node(d.members[k]);
      fwd += node.fwdTime;
      bwd += node.bwdTime;
      if (k < kTipMembers) tip += "\n  " + displayName(node.name) + (node.op.empty() ? "" : " (" + node.op + ")");
    }
    if (d.members.size() > kTipMembers)
      tip += "\n  \u2026 and " + std::to_string(d.members.size() - kTipMembers) + " more";
    tip += "\noutput " + formatByteSize(d.bytes) + " in all\n" + times(g, fwd, bwd) + " in all";
  }
  if (!marks.role.empty()) tip += "\n" + planRole(g, marks, d);
  return tip;
}

std::vector<std::pair<std::size_t, std::size_t>> groupEdges(const ComputeGraph& g, const Grouping& grouping) {
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  for (std::uint32_t v = 0; v < g.size(); ++v) {
    const std::size_t to = grouping.groupOf[v];
    if (to == kHidden) continue;
    for (const NodeId u : g.node(NodeId{v}).inputs) {
      const std::size_t from = grouping.groupOf[u.value];
      if (from != kHidden && from != to) edges.emplace_back(from, to);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

// Which edges dot routes. dot gives an edge spanning k ranks k - 1 virtual nodes, and its crossing
// minimisation, positioning and routing all work on those; so when the edges' rank crossings exceed the
// budget, the longest edges are left to plain curves until the rest fit. Ranks are longest-path ranks,
// an estimate of dot's own (which minimise the total span, so cross no more). Edges go from a lower
// to a higher drawn-node index: nodes are numbered in topological order.
std::vector<bool> routedEdges(std::size_t nodeCount, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                              std::size_t budget, std::size_t& routedCrossings) {
  std::vector<std::size_t> rank(nodeCount, 0);
  std::vector<std::size_t> byHead(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) byHead[k] = k;
  std::stable_sort(byHead.begin(), byHead.end(),
                   [&](std::size_t a, std::size_t b) { return edges[a].second < edges[b].second; });
  for (const std::size_t k : byHead) {
    assert(edges[k].first < edges[k].second);
    rank[edges[k].second] = std::max(rank[edges[k].second], rank[edges[k].first] + 1);
  }
  std::vector<std::size_t> crossings(edges.size());
  std::size_t total = 0;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    crossings[k] = rank[edges[k].second] - rank[edges[k].first] - 1;
    total += crossings[k];
  }
  std::vector<bool> routed(edges.size(), true);
  routedCrossings = total;
  if (total <= budget) return routed;
  std::vector<std::size_t> longest(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) longest[k] = k;
  std::stable_sort(longest.begin(), longest.end(),
                   [&](std::size_t a, std::size_t b) { return crossings[a] > crossings[b]; });
  for (const std::size_t k : longest) {
    if (total <= budget) break;
    routed[k] = false;
    total -= crossings[k];
  }
  routedCrossings = total;
  return routed;
}

// Graphviz 2.42 takes `char*` for strings it only reads (it copies them into its own pool).
char* cstr(std::string& s) { return s.data(); }
char* cstr(const char* s) { return const_cast<char*>(s); }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// "1 box", "60,000 boxes".
std::string countText(std::size_t n, const char* one, const char* many) {
  std::string digits = std::to_string(n);
  for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits + " " + (n == 1 ? one : many);
}

// Sizes in whole even points, so that dot's half widths stay whole and boxes read back exactly.
double evenPoints(double px) { return 2 * std::ceil(px / kPxPerPoint / 2); }

// Graphviz's object IDs, given in the order the objects are made. Its own discipline takes a named
// object's ID from the address of its interned name, and dot visits nodes and clusters in ID order: the
// layout then depends on the heap, so that the same graph laid out twice in one process (Studio's view,
// then its export) came out in different places. Named objects get even IDs, anonymous ones odd ones, as
// in Graphviz's own discipline.
namespace orderedids {

struct State {
  std::map<std::string, IDTYPE, std::less<>> ids;
  std::map<IDTYPE, std::string> names;
  IDTYPE nextNamed = 2;
  IDTYPE nextAnonymous = 1;
};

void* open(Agraph_t*, Agdisc_t*) { return new State; }

long map(void* state, int, char* str, IDTYPE* id, int createflag) {
  auto* s = static_cast<State*>(state);
  if (!str) {
    *id = s->nextAnonymous;
    s->nextAnonymous += 2;
    return 1;
  }
  if (const auto it = s->ids.find(std::string_view(str)); it != s->ids.end()) {
    *id = it->second;
    return 1;
  }
  if (!createflag) return 0;
  *id = s->nextNamed;
  s->nextNamed += 2;
  s->ids.emplace(str, *id);
  s->names.emplace(*id, str);
  return 1;
}

long alloc(void* state, int, IDTYPE id) {
  // An explicit ID (agidnode) is taken when it is an anonymous one not given yet.
  auto* s = static_cast<State*>(state);
  if (id % 2 == 0 || id < s->nextAnonymous) return 0;
  s->nextAnonymous = id + 2;
  return 1;
}

void release(void*, int, IDTYPE) {}  // names live as long as the graph: dot looks nodes up again

char* print(void* state, int, IDTYPE id) {
  auto* s = static_cast<State*>(state);
  const auto it = s->names.find(id);
  return it == s->names.end() ? nullptr : it->second.data();
}

void close(void* state) { delete static_cast<State*>(state); }

void idregister(void*, int, void*) {}

Agiddisc_t discipline{open, map, alloc, release, print, close, idregister};

}  // namespace orderedids

// Owns one Graphviz layout; the destructor frees it on every path, errors and exceptions included.
class GraphvizSession {
 public:
  GraphvizSession() : m_gvc(gvContext()) {
    if (!m_gvc) throw std::runtime_error("Graphviz: cannot create a context");
    m_oldErrorLevel = agseterr(AGERR);  // dot's warnings are not ours to print
    m_graph = agopen(cstr("remat"), Agdirected, &m_disc);
    if (!m_graph) {
      release();
      throw std::runtime_error("Graphviz: cannot create a graph");
    }
  }
  GraphvizSession(const GraphvizSession&) = delete;
  GraphvizSession& operator=(const GraphvizSession&) = delete;
  ~GraphvizSession() { release(); }

  [[nodiscard]] Agraph_t* graph() const { return m_graph; }

  void layout() {
    if (gvLayout(m_gvc, m_graph, "dot") != 0) throw std::runtime_error("Graphviz: the dot layout failed");
    m_laidOut = true;
  }

 private:
  void release() {
    if (m_graph) {
      if (m_laidOut) gvFreeLayout(m_gvc, m_graph);
      agclose(m_graph);
      m_graph = nullptr;
    }
    if (m_gvc) {
      gvFreeContext(m_gvc);
      m_gvc = nullptr;
    }
    agseterr(m_oldErrorLevel);
  }

  Agdisc_t m_disc{&AgMemDisc, &orderedids::discipline, &AgIoDisc};
  GVC_t* m_gvc = nullptr;
  Agraph_t* m_graph = nullptr;
  agerrlevel_t m_oldErrorLevel = AGWARN;
  bool m_laidOut = false;
};

// Graphviz points (1/72 in, y up) to drawing units (CSS px, y down) relative to the bounding box.
struct ToDrawing {
  boxf bb;
  [[nodiscard]] Point operator()(pointf p) const {
    return {(p.x - bb.LL.x) * kPxPerPoint, (bb.UR.y - p.y) * kPxPerPoint};
  }
  [[nodiscard]] Box operator()(boxf b) const {
    const Point topLeft = (*this)(pointf{b.LL.x, b.UR.y});
    return {topLeft.x, topLeft.y, (b.UR.x - b.LL.x) * kPxPerPoint, (b.UR.y - b.LL.y) * kPxPerPoint};
  }
};

void appendLine(std::vector<Point>& spline, Point to) {
  const Point from = spline.back();
  spline.push_back({from.x + (to.x - from.x) / 3, from.y + (to.y - from.y) / 3});
  spline.push_back({from.x + 2 * (to.x - from.x) / 3, from.y + 2 * (to.y - from.y) / 3});
  spline.push_back(to);
}

// An edge dot did not route: a curve leaving one box and entering the other, bowed to the right in
// proportion to its length, as in an arc diagram, so that it does not run down the column of boxes
// between its ends. Sideways when the two boxes share a rank.
std::vector<Point> directCurve(const Box& from, const Box& to) {
  constexpr double kBow = 0.25;
  constexpr double kMaxBow = 300;
  if (to.y >= from.bottom() || from.y >= to.bottom()) {
    const bool down = to.y >= from.bottom();
    const Point p0{from.x + from.w / 2, down ? from.bottom() : from.y};
    const Point p3{to.x + to.w / 2, down ? to.y : to.bottom()};
    const double dy = p3.y - p0.y;
    const double bow = std::min(std::abs(dy) * kBow, kMaxBow);
    return {p0, {p0.x + bow, p0.y + dy / 3}, {p3.x + bow, p3.y - dy / 3}, p3};
  }
  const bool right = to.x >= from.right();
  const Point p0{right ? from.right() : from.x, from.y + from.h / 2};
  const Point p3{right ? to.x : to.right(), to.y + to.h / 2};
  const double dx = p3.x - p0.x;
  return {p0, {p0.x + dx / 3, p0.y}, {p3.x - dx / 3, p3.y}, p3};
}

// The edge's route as one cubic Bézier ending at the arrow's tip; a direct curve if dot gave none.
std::vector<Point> readSpline(Agedge_t* e, const ToDrawing& toDrawing, const Box& from, const Box& to) {
  std::vector<Point> out;
  const splines* spl = ED_spl(e);
  if (spl) {
    for (int i = 0; i < spl->size; ++i) {
      const bezier& bz = spl->list[i];
      if (bz.size < 4 || (bz.size - 1) % 3 != 0) continue;
      for (int k = 0; k < bz.size; ++k) {
        const Point p = toDrawing(bz.list[k]);
        if (k == 0 && !out.empty()) {
          if (!(p == out.back())) appendLine(out, p);
        } else {
          out.push_back(p);
        }
      }
      // dot stops the curve where the arrowhead begins; the tip is `ep`.
      if (bz.eflag) appendLine(out, toDrawing(bz.ep));
    }
  }
  if (out.empty()) out = directCurve(from, to);
  return out;
}

}  // namespace

GraphDrawing layoutGraph(const ComputeGraph& g, const NodeMarks& marks, const GraphDrawingOptions& options) {
  if ((!marks.role.empty() && marks.role.size() != g.size()) ||
      (!marks.segment.empty() && marks.segment.size() != g.size()))
    throw std::invalid_argument("layoutGraph: the plan marks are not for this graph");
  if (!(options.fontSize > 0)) throw std::invalid_argument("layoutGraph: the font size must be positive");

  // The size guard comes before anything that costs more than the graph's size: tips, Graphviz.
  Grouping grouping = groupNodes(g, marks, options);
  auto edges = groupEdges(g, grouping);
  const auto fits = [&] { return grouping.nodes.size() <= options.maxNodes && edges.size() <= options.maxEdges; };
  std::string note;
  if (!fits()) {
    const std::string asked =
        countText(grouping.nodes.size(), "box", "boxes") + " and " + countText(edges.size(), "edge", "edges");
    const std::string limits = "at most " + countText(options.maxNodes, "box", "boxes") + " and " +
                               countText(options.maxEdges, "edge", "edges");
    std::string collapsed;
    if (!options.collapseChains && options.collapseWhenTooLarge) {
      const std::size_t boxesBefore = grouping.nodes.size();
      GraphDrawingOptions collapsing = options;
      collapsing.collapseChains = true;
      grouping = groupNodes(g, marks, collapsing);
      edges = groupEdges(g, grouping);
      if (fits())
        note = "chains of operations drawn as one box each: the graph drawing holds " + limits + ", not " + asked;
      else if (grouping.nodes.size() < boxesBefore)
        collapsed = " (" + countText(grouping.nodes.size(), "box", "boxes") + " and " +
                    countText(edges.size(), "edge", "edges") + " with chains collapsed)";
    }
    if (note.empty())
      throw GraphTooLarge("the graph drawing holds " + limits + "; this graph needs " + asked + collapsed +
                          ": Graphviz's layout would take minutes or fail at this size. The timeline, schedule "
                          "and layout figures have no such limit");
  }
  for (DrawnNode& d : grouping.nodes) d.tip = nodeTip(g, marks, d);
  std::size_t routedCrossings = 0;
  const std::vector<bool> routed = routedEdges(grouping.nodes.size(), edges, options.routeBudget, routedCrossings);

  GraphDrawing drawing;
  drawing.fontSize = options.fontSize;
  drawing.note = std::move(note);
  if (grouping.nodes.empty()) return drawing;

  const TextMetrics& tm = approxTextMetrics();
  const double fs = options.fontSize;
  const double lineHeight = tm.height(fs);
  const double nodeHeight = evenPoints(2 * lineHeight + 2 * kPadY);
  // The cluster's top margin holds its label; dot's cluster margin is one value for all four sides.
  std::string clusterMargin = std::to_string(static_cast<int>(std::ceil((lineHeight + 4) / kPxPerPoint)));

  static std::mutex graphvizMutex;  // Graphviz keeps global state: one layout at a time
  const std::lock_guard lock(graphvizMutex);

  GraphvizSession session;
  Agraph_t* root = session.graph();
  agattr(root, AGRAPH, cstr("rankdir"), cstr("TB"));
  agattr(root, AGRAPH, cstr("nodesep"), cstr("0.18"));
  agattr(root, AGRAPH, cstr("ranksep"), cstr("0.3"));
  agattr(root, AGRAPH, cstr("splines"), cstr("spline"));
  // Positioning by network simplex may take nslimit times as many iterations as there are nodes, each
  // costing time in the size of its auxiliary graph (nodes, edges, virtual nodes): its work grows with
  // the square of the graph (35 s for a 200-op random DAG before the route budget; 30 s for a 4,000-op
  // one within it). Every iteration keeps a valid layout, so a cap on iterations times size only leaves
  // a large graph less straightened: ResNet-152 keeps nearly all of its iterations, DenseNet-161 and
  // GPT-2 about a tenth (75 of 578 and 740), which draws them no worse.
  std::size_t routedEdgeCount = 0;
  for (const bool r : routed) routedEdgeCount += r ? 1 : 0;
  const double simplexSize = static_cast<double>(grouping.nodes.size() + routedEdgeCount + routedCrossings);
  const double nslimitValue = std::min(1.0, kSimplexWork / (static_cast<double>(grouping.nodes.size()) * simplexSize));
  char nslimit[32];
  std::snprintf(nslimit, sizeof nslimit, "%.4g", nslimitValue);
  agattr(root, AGRAPH, cstr("nslimit"), nslimit);
  // Crossing minimisation then dominates on large graphs with long edges (4.4 s of 6 s for a 5,000-op
  // random DAG whose ops read up to 200 ops back); a quarter of its passes leave 4% more crossings and
  // take a third of the time. The datasets' networks, about 13,500 in this size, keep every pass.
  if (simplexSize > kFullMincrossSize) agattr(root, AGRAPH, cstr("mclimit"), cstr("0.25"));
  agattr(root, AGRAPH, cstr("newrank"), cstr("true"));
  agattr(root, AGNODE, cstr("shape"), cstr("box"));
  agattr(root, AGNODE, cstr("fixedsize"), cstr("true"));
  agattr(root, AGNODE, cstr("label"), cstr(""));  // no text: Graphviz never measures a font
  Agsym_t* widthSym = agattr(root, AGNODE, cstr("width"), cstr("0.75"));
  Agsym_t* heightSym = agattr(root, AGNODE, cstr("height"), cstr("0.5"));
  std::string height = number(nodeHeight / 72.0);

  std::vector<Agraph_t*> clusterOf;  // by segment
  std::vector<Agnode_t*> gvNodes;
  gvNodes.reserve(grouping.nodes.size());
  for (std::size_t k = 0; k < grouping.nodes.size(); ++k) {
    DrawnNode& d = grouping.nodes[k];
    std::string name = "n";  // appended, not `"n" + to_string`: GCC 12 -O3 misreads that (-Wrestrict)
    name += std::to_string(k);
    Agnode_t* n = agnode(root, cstr(name), 1);
    const double textWidth =
        std::max(tm.width(d.label, fs), tm.width(formatBytes(static_cast<double>(d.bytes.value)), fs));
    std::string width = number(evenPoints(std::clamp(textWidth + 2 * kPadX, kMinNodeWidth, kMaxNodeWidth)) / 72.0);
    agxset(n, widthSym, cstr(width));
    agxset(n, heightSym, cstr(height));
    if (d.segment >= 0) {
      const auto s = static_cast<std::size_t>(d.segment);
      if (clusterOf.size() <= s) clusterOf.resize(s + 1, nullptr);
      if (!clusterOf[s]) {
        std::string clusterName = "cluster_";
        clusterName += std::to_string(s);
        clusterOf[s] = agsubg(root, cstr(clusterName), 1);
        agsafeset(clusterOf[s], cstr("margin"), cstr(clusterMargin), cstr(""));
      }
      agsubnode(clusterOf[s], n, 1);
    }
    gvNodes.push_back(n);
  }
  std::vector<Agedge_t*> gvEdges(edges.size(), nullptr);
  for (std::size_t k = 0; k < edges.size(); ++k)
    if (routed[k]) gvEdges[k] = agedge(root, gvNodes[edges[k].first], gvNodes[edges[k].second], nullptr, 1);

  session.layout();

  const ToDrawing toDrawing{GD_bb(root)};
  for (std::size_t k = 0; k < grouping.nodes.size(); ++k) {
    Agnode_t* n = gvNodes[k];
    const Point c = toDrawing(ND_coord(n));
    const double w = ND_width(n) * kPxPerInch;
    const double h = ND_height(n) * kPxPerInch;
    grouping.nodes[k].box = {c.x - w / 2, c.y - h / 2, w, h};
  }
  drawing.nodes = std::move(grouping.nodes);
  drawing.edges.reserve(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const std::size_t from = edges[k].first;
    const std::size_t to = edges[k].second;
    const Box& a = drawing.nodes[from].box;
    const Box& b = drawing.nodes[to].box;
    drawing.edges.push_back(
        {from, to, routed[k] ? readSpline(gvEdges[k], toDrawing, a, b) : directCurve(a, b), routed[k]});
  }
  for (std::size_t s = 0; s < clusterOf.size(); ++s) {
    if (!clusterOf[s]) continue;
    std::string label = "segment ";
    label += std::to_string(s + 1);
    drawing.clusters.push_back({static_cast<int>(s), std::move(label), toDrawing(GD_bb(clusterOf[s]))});
  }

  // Graphviz's bounding box should hold everything; measure anyway, so nothing is ever off the canvas.
  double minX = 0, minY = 0;
  double maxX = (GD_bb(root).UR.x - GD_bb(root).LL.x) * kPxPerPoint;
  double maxY = (GD_bb(root).UR.y - GD_bb(root).LL.y) * kPxPerPoint;
  const auto grow = [&](const Box& b) {
    minX = std::min(minX, b.x);
    minY = std::min(minY, b.y);
    maxX = std::max(maxX, b.right());
    maxY = std::max(maxY, b.bottom());
  };
  for (const DrawnNode& d : drawing.nodes) grow(d.box);
  for (const DrawnCluster& c : drawing.clusters) grow(c.box);
  for (const DrawnEdge& e : drawing.edges)
    for (const Point& p : e.spline) grow({p.x, p.y, 0, 0});
  if (minX < 0 || minY < 0) {
    for (DrawnNode& d : drawing.nodes) d.box.x -= minX, d.box.y -= minY;
    for (DrawnCluster& c : drawing.clusters) c.box.x -= minX, c.box.y -= minY;
    for (DrawnEdge& e : drawing.edges)
      for (Point& p : e.spline) p.x -= minX, p.y -= minY;
  }
  drawing.width = maxX - minX;
  drawing.height = maxY - minY;
  return drawing;
}

std::string nodeRoleText(const ComputeGraph& g, const NodeMarks& marks, NodeId v) {
  DrawnNode d;
  d.members = {v};
  d.role = v.value < marks.role.size() ? marks.role[v.value] : NodeRole::Other;
  d.segment = v.value < marks.segment.size() ? marks.segment[v.value] : -1;
  return planRole(g, marks, d);
}

}  // namespace remat::viz
