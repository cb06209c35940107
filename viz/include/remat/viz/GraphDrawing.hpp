#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeId.hpp"
#include "remat/graph/Units.hpp"
#include "remat/viz/Chart.hpp"
#include "remat/viz/Figure.hpp"
#include "remat/viz/PlanMarks.hpp"
#include "remat/viz/Scene.hpp"
#include "remat/viz/Theme.hpp"

namespace remat::viz {

/// What the graph drawing shows.
struct GraphDrawingOptions {
  /// Merge maximal chains of operations (each the only consumer of the one before and the only
  /// operation feeding the one after, same role and segment) into one box, for graphs too long to read.
  bool collapseChains = false;
  bool showInputs = true;
  bool showParams = false;  ///< off by default: a weight read by many operations adds an edge to each
  /// Font size of the node labels in drawing units; node boxes are sized to hold two lines of it.
  double fontSize = 9;
  /// How many rank crossings (ranks an edge passes without ending there, summed over the edges) dot
  /// may route. dot's time grows with this sum, which long skips make quadratic in the graph's size
  /// (a 1,000-op random DAG has about 800,000); beyond it the longest edges are left out of the layout
  /// and drawn as plain curves (DrawnEdge::routed false), so that any graph lays out in seconds.
  std::size_t routeBudget = 12000;
  /// The most boxes and edges (routed or not) the drawing holds. dot's time grows faster than the
  /// graph (a 4,000-op random DAG took 30 s), it crashes on more than 32,768 ranks (a 33,000-op
  /// chain), and every edge is a curve in the figure; within these every generated graph measured lays
  /// out in a few seconds and a few hundred MB (BENCHMARKS.md, "Size limits of the checkpoint drawing").
  /// Beyond them layoutGraph draws chains collapsed (see collapseWhenTooLarge) or throws GraphTooLarge.
  std::size_t maxNodes = 5000;
  std::size_t maxEdges = 10000;
  /// When the drawing would exceed maxNodes or maxEdges and chains are not collapsed yet, collapse them
  /// (as collapseChains) if that brings it within both, and say so in GraphDrawing::note.
  bool collapseWhenTooLarge = true;
};

/// layoutGraph's refusal of a graph whose drawing would exceed GraphDrawingOptions::maxNodes or
/// maxEdges, even with chains collapsed; what() names the counts and the limits.
class GraphTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One box of the drawing: a graph node, or a collapsed chain of operations (members in topological
/// order). Boxes and points are in drawing units (CSS pixels at scale 1, y down, origin at the top
/// left of the drawing).
/// How the user pinned a drawn node (docs/pins.md), for its outline.
enum class PinMark : std::uint8_t { None, Keep, Recompute };

/// A mark the user put on nodes, as the drawing's legend names it.
enum class NodeMark : std::uint8_t { PinnedKeep, PinnedRecompute, Found };
[[nodiscard]] std::string_view markName(NodeMark m);  ///< "pinned: keep", "pinned: recompute", "found"

struct DrawnNode {
  std::vector<graph::NodeId> members;
  std::string label;  ///< the node's name, or "first … last (k ops)" for a chain
  NodeRole role = NodeRole::Other;
  int segment = -1;  ///< the members' lower-set segment, -1 for none
  Bytes bytes{0};    ///< sum over the members
  Box box;
  PinMark pin = PinMark::None;  ///< a member is pinned (set by the caller after the layout)
  bool found = false;           ///< a member is the node the user searched for (likewise)
  /// What hovering the box tells (the scene's Hotspot::tip): name, op, output size, forward and backward
  /// time in the graph's unit and, with a plan, the node's part in it; a chain lists its members.
  std::string tip;
};

/// An edge between two drawn nodes (indices into GraphDrawing::nodes), routed by the layout.
struct DrawnEdge {
  std::size_t from = 0;
  std::size_t to = 0;
  /// A cubic Bézier as SplineItem takes it; it ends at the arrow's tip on the border of `to`.
  std::vector<Point> spline;
  /// false for an edge left out of the layout (see GraphDrawingOptions::routeBudget): its curve joins
  /// the two boxes directly and may cross others.
  bool routed = true;
};

/// The box around one lower-set segment's nodes; its top margin holds the label.
struct DrawnCluster {
  int segment = 0;    ///< 0-based, as in NodeMarks
  std::string label;  ///< "segment 1" for segment 0, as the paper numbers V_1 ... V_k
  Box box;
};

/// A laid-out graph as plain data: everything inside [0, width] x [0, height].
struct GraphDrawing {
  std::vector<DrawnNode> nodes;
  std::vector<DrawnEdge> edges;
  std::vector<DrawnCluster> clusters;
  double width = 0;
  double height = 0;
  double fontSize = 9;  ///< the node labels' size the boxes were made for (GraphDrawingOptions::fontSize)
  /// Set when the drawing is not what was asked for (chains collapsed to fit the size limits): one
  /// line, shown under the figure's title.
  std::string note;
};

/// Lays a graph out top to bottom with Graphviz's `dot`, each lower-set segment in a cluster of its
/// own when `marks` has segments. `marks` may be empty (no plan: every role Other, no clusters);
/// otherwise its vectors must have g.size() entries (std::invalid_argument if not). Thread-safe
/// (Graphviz is not: layouts run one at a time). Throws GraphTooLarge, before Graphviz sees anything,
/// for a drawing beyond the options' size limits, and std::runtime_error if Graphviz fails.
[[nodiscard]] GraphDrawing layoutGraph(const graph::ComputeGraph& g, const NodeMarks& marks,
                                       const GraphDrawingOptions& options = {});

/// Where graphScene puts the drawing: scaled by `scale` (at most 1, never enlarged) and centred in
/// `area`, the part of the canvas under the title and the legend. A drawing much taller than the area
/// is cut, in the empty gaps between rows of nodes, into horizontal bands set side by side as columns,
/// like a newspaper's, when that lets it be drawn larger: band k, the drawing's rows y in
/// [bands[k].y0, bands[k].y1), is drawn with its top at the top of the columns and column k to the
/// right of column k - 1. No node box is cut; edges crossing a cut go on at the top of the next column.
struct GraphSceneLayout {
  /// One column of the drawing.
  struct Band {
    double y0 = 0;  ///< drawing y where the band starts (0 for the first)
    double y1 = 0;  ///< drawing y where the next band starts (the drawing's height for the last)
    Point offset;   ///< scene position of the drawing's origin for this band's items
    /// The scene rectangle this band's items are clipped to: the band's part of the drawing, scaled and
    /// moved, with a few pixels more on the sides where no cut is (the drawing's own border).
    Box clip;
  };

  Box area;
  double scale = 1;
  Point offset;                       ///< scene position of the drawing's origin in the first band
  std::vector<Band> bands;            ///< one per column, left to right; their [y0, y1) partition [0, height)
  std::vector<NodeRole> legendRoles;  ///< the roles present, in NodeRole order
  /// After the roles, the marks present (with or without a plan).
  std::vector<NodeMark> legendMarks;
  std::vector<Box> legendBoxes;  ///< one per legend role, then one per mark: symbol and label
  double titleY = 0;
  double noteY = 0;  ///< the top of GraphDrawing::note's line, when there is one

  /// The band drawing y lies in: the last one whose y0 is at most y (0 for y above the drawing, the
  /// last band for y at or below its bottom).
  [[nodiscard]] std::size_t bandOf(double y) const;
  /// The band holding a box of one band, such as a node's: the one its centre lies in.
  [[nodiscard]] std::size_t bandOf(const Box& b) const { return bandOf(b.y + b.h / 2); }
  /// A drawing point moved as band `band`'s items are (`offset` when there are no bands).
  [[nodiscard]] Point toScene(std::size_t band, Point p) const {
    const Point o = band < bands.size() ? bands[band].offset : offset;
    return {o.x + p.x * scale, o.y + p.y * scale};
  }
  /// A drawing point in the band its y lies in.
  [[nodiscard]] Point toScene(Point p) const { return toScene(bandOf(p.y), p); }
  /// A box of one band (a node's box) in the scene.
  [[nodiscard]] Box toScene(const Box& b) const {
    const Point p = toScene(bandOf(b), Point{b.x, b.y});
    return {p.x, p.y, b.w * scale, b.h * scale};
  }
  /// A drawing point belonging to `node` (on or in its box: a label, an edge's end) in the scene, moved
  /// with the node's band.
  [[nodiscard]] Point toScene(const DrawnNode& node, Point p) const { return toScene(bandOf(node.box), p); }
  /// The drawing point shown at a scene position, if one is (inside a band's part of the drawing).
  [[nodiscard]] std::optional<Point> toDrawing(Point scenePoint) const;
};

/// The placement graphScene uses, for callers that map scene positions back to nodes.
[[nodiscard]] GraphSceneLayout graphSceneLayout(const GraphDrawing& drawing, const FigureStyle& style);

/// The graph drawing with checkpoints: title and a legend of the roles present on top, then the
/// drawing fitted to the rest of the canvas: segment clusters as light boxes labelled "segment i",
/// edges as arrowed splines, node boxes filled with the colour of their role, and inside each box its
/// name and size when the scaled labels would be at least kMinTextSize tall (at FigureStyle::maxZoom). A drawing
/// wrapped into columns (see GraphSceneLayout) has each column clipped to its band, a thin line between columns, and
/// "continues →" under each column that goes on, "→ continued" over the next.
///
/// A pinned node's box has a thick outline (solid: keep; dashed: recompute), the found node a ring in the
/// peak colour around it; the legend names the marks present.
///
/// Hotspots: one of kind Node per node box, its exact scene rectangle, with `index` the NodeId value of
/// the box's first member (a collapsed chain's first node) and DrawnNode::tip as its tip.
[[nodiscard]] Scene graphScene(const GraphDrawing& drawing, const FigureStyle& style);

/// Whether graphScene draws the node names at this style: their scaled size (at FigureStyle::maxZoom)
/// at least kMinTextSize. The size they would have is in `size` when given.
[[nodiscard]] bool graphLabelsShown(const GraphDrawing& drawing, const FigureStyle& style, double* size = nullptr);

/// A node's part in a plan, in the words of the drawing's tips ("checkpoint: kept until its backward",
/// "recomputed 2 times · segment 3", ...), from the plan's marks (planMarks).
[[nodiscard]] std::string nodeRoleText(const graph::ComputeGraph& g, const NodeMarks& marks, graph::NodeId v);

}  // namespace remat::viz
