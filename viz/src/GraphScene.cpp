// The graph drawing with checkpoints as a scene: fits a laid-out GraphDrawing onto the canvas.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/viz/GraphDrawing.hpp"

namespace remat::viz {

namespace {

constexpr double kScenePad = 12;  // outer margin, as Chart's
constexpr double kSceneGap = 6;
constexpr double kLegendSpacing = 18;
constexpr double kLabelPadX = 6;  // matches the layout's padding inside node boxes

// Wrapping a tall drawing into columns.
constexpr double kColumnGap = 16;     // between columns, px: room for the separator line
constexpr double kClipSlack = 3;      // px of clip beyond the drawing's own borders, for strokes on them
constexpr double kCutOverhang = 4;    // px a cut cluster box runs on past the clip, so no border shows there
constexpr double kMarkerScale = 0.8;  // the "continues" markers' size, relative to the theme's font

double markerSize(const Theme& th) { return kMarkerScale * th.fontSize; }
// The strip above and below the columns that holds the "continues" markers.
double markerStrip(const FigureStyle& style) { return style.text().height(markerSize(style.theme)) + 2; }

// A vertical extent of boxes, [top, bottom] in px.
using YSpan = std::pair<double, double>;

std::vector<YSpan> merged(std::vector<YSpan> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<YSpan> out;
  for (const YSpan& i : intervals) {
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

// Where the drawing may be cut, sorted: one y in each empty gap between rows of node boxes, outside
// every cluster box where the gap has room for that (clusters are only background and may be cut, but
// a cut between them keeps each segment's label with its nodes).
std::vector<double> cutPositions(const GraphDrawing& drawing) {
  std::vector<YSpan> nodes;
  for (const DrawnNode& n : drawing.nodes) nodes.emplace_back(n.box.y, n.box.bottom());
  std::vector<YSpan> clusters;
  for (const DrawnCluster& c : drawing.clusters) clusters.emplace_back(c.box.y, c.box.bottom());
  const std::vector<YSpan> rows = merged(std::move(nodes));
  const std::vector<YSpan> covered = merged(std::move(clusters));
  std::vector<double> cuts;
  for (std::size_t k = 0; k + 1 < rows.size(); ++k) {
    const double a = rows[k].second;
    const double b = rows[k + 1].first;
    // The longest part of (a, b) outside the clusters.
    YSpan best{a, a};
    double from = a;
    for (const YSpan& c : covered) {
      if (c.second <= from || c.first >= b) continue;
      if (c.first > from && c.first - from > best.second - best.first) best = {from, c.first};
      from = std::max(from, c.second);
    }
    if (from < b && b - from > best.second - best.first) best = {from, b};
    cuts.push_back(best.second > best.first ? (best.first + best.second) / 2 : (a + b) / 2);
  }
  return cuts;
}

constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

// For each start q[i] (q[0] = 0, then the cut positions), the fewest bands that reach `height` from it
// with none taller than `tallest`; kNever if none do. Jumping to the farthest cut is optimal, as a later
// start never needs more bands.
std::vector<std::size_t> bandsNeeded(const std::vector<double>& q, double height, double tallest) {
  std::vector<std::size_t> need(q.size(), kNever);
  for (std::size_t i = q.size(); i-- > 0;) {
    if (height - q[i] <= tallest) {
      need[i] = 1;
      continue;
    }
    const auto next = static_cast<std::size_t>(std::upper_bound(q.begin(), q.end(), q[i] + tallest) - q.begin()) - 1;
    if (next > i && need[next] != kNever) need[i] = need[next] + 1;
  }
  return need;
}

// The cuts that split [0, height) into `columns` bands, the tallest as short as the cut positions allow,
// and the bands as even as they allow within that.
std::vector<double> balancedCuts(const std::vector<double>& positions, double height, std::size_t columns) {
  std::vector<double> q{0.0};
  q.insert(q.end(), positions.begin(), positions.end());
  // The least tallest band, by bisection: `columns` bands suffice for any height at or above it.
  double lo = 0;
  double hi = height;
  for (int k = 0; k < 100 && hi - lo > 1e-9 * height; ++k) {
    const double mid = (lo + hi) / 2;
    if (bandsNeeded(q, height, mid)[0] <= columns)
      hi = mid;
    else
      lo = mid;
  }
  const std::vector<std::size_t> need = bandsNeeded(q, height, hi);
  std::vector<double> cuts;
  std::size_t at = 0;
  for (std::size_t left = columns; left > 1; --left) {  // `left` bands from q[at] on, this one included
    const double target = q[at] + (height - q[at]) / static_cast<double>(left);
    std::size_t best = kNever;
    for (std::size_t j = at + 1; j < q.size() && q[j] - q[at] <= hi; ++j)
      if (need[j] <= left - 1 && (best == kNever || std::abs(q[j] - target) < std::abs(q[best] - target))) best = j;
    if (best == kNever) break;
    cuts.push_back(q[best]);
    at = best;
  }
  return cuts;
}

double tallestBand(const std::vector<double>& cuts, double height) {
  double tallest = 0;
  double from = 0;
  for (const double c : cuts) {
    tallest = std::max(tallest, c - from);
    from = c;
  }
  return std::max(tallest, height - from);
}

// Cutting edges at the bands' borders: cubic Bézier segments as Graphviz gives them.
using Bezier = std::array<Point, 4>;

Point lerp(Point a, Point b, double t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}; }

double bezierY(const Bezier& b, double t) {
  const double u = 1 - t;
  return u * u * u * b[0].y + 3 * u * u * t * b[1].y + 3 * u * t * t * b[2].y + t * t * t * b[3].y;
}

// The part of `b` for t in [t0, t1], by de Casteljau's construction.
Bezier subCurve(const Bezier& b, double t0, double t1) {
  const auto head = [](const Bezier& c, double t) {  // the part for [0, t]
    const Point p01 = lerp(c[0], c[1], t);
    const Point p12 = lerp(c[1], c[2], t);
    const Point p23 = lerp(c[2], c[3], t);
    const Point p012 = lerp(p01, p12, t);
    const Point p123 = lerp(p12, p23, t);
    return Bezier{c[0], p01, p012, lerp(p012, p123, t)};
  };
  const auto tail = [](const Bezier& c, double t) {  // the part for [t, 1]
    const Point p01 = lerp(c[0], c[1], t);
    const Point p12 = lerp(c[1], c[2], t);
    const Point p23 = lerp(c[2], c[3], t);
    const Point p123 = lerp(p12, p23, t);
    return Bezier{lerp(lerp(p01, p12, t), p123, t), p123, p23, c[3]};
  };
  const Bezier left = t1 < 1 ? head(b, t1) : b;
  return t0 > 0 ? tail(left, t0 / t1) : left;
}

// The t in (0, 1) where the curve crosses height y.
std::vector<double> crossings(const Bezier& b, double y) {
  constexpr int kSteps = 32;
  std::vector<double> out;
  double prevT = 0;
  double prev = bezierY(b, 0) - y;
  for (int k = 1; k <= kSteps; ++k) {
    const double t = static_cast<double>(k) / kSteps;
    const double cur = bezierY(b, t) - y;
    if ((prev < 0) != (cur < 0)) {
      double lo = prevT;
      double hi = t;
      for (int i = 0; i < 50; ++i) {
        const double mid = (lo + hi) / 2;
        if ((bezierY(b, mid) - y < 0) == (prev < 0))
          lo = mid;
        else
          hi = mid;
      }
      if (hi > 0 && hi < 1) out.push_back(hi);
    }
    prevT = t;
    prev = cur;
  }
  return out;
}

// The pieces of a spline within drawing rows [lo, hi]: each a spline as SplineItem takes it, with
// control points at most `slack` beyond those rows. `tip` tells whether the last piece ends where the
// spline does (and so keeps its arrowhead).
struct SplinePieces {
  std::vector<std::vector<Point>> pieces;
  bool tip = false;
};

void appendCurve(std::vector<Point>& piece, const Bezier& b, double lo, double hi, double slack, int depth) {
  double minY = b[0].y;
  double maxY = b[0].y;
  for (const Point& p : b) minY = std::min(minY, p.y), maxY = std::max(maxY, p.y);
  if (depth > 0 && (minY < lo - slack || maxY > hi + slack)) {
    // The control polygon of a part hugs the curve closer than the whole's.
    appendCurve(piece, subCurve(b, 0, 0.5), lo, hi, slack, depth - 1);
    appendCurve(piece, subCurve(b, 0.5, 1), lo, hi, slack, depth - 1);
    return;
  }
  if (piece.empty()) piece.push_back(b[0]);
  piece.insert(piece.end(), b.begin() + 1, b.end());
}

SplinePieces splineWithin(const std::vector<Point>& spline, double lo, double hi, double slack) {
  SplinePieces out;
  std::vector<Point> piece;
  const auto flush = [&out, &piece] {
    if (!piece.empty()) out.pieces.push_back(std::move(piece));
    piece.clear();
  };
  const std::size_t segments = spline.size() < 4 ? 0 : (spline.size() - 1) / 3;
  for (std::size_t k = 0; k < segments; ++k) {
    const Bezier b{spline[3 * k], spline[3 * k + 1], spline[3 * k + 2], spline[3 * k + 3]};
    double minY = b[0].y;
    double maxY = b[0].y;
    for (const Point& p : b) minY = std::min(minY, p.y), maxY = std::max(maxY, p.y);
    const bool last = k + 1 == segments;
    if (maxY < lo || minY > hi) {
      flush();
      continue;
    }
    if (minY >= lo - slack && maxY <= hi + slack) {
      appendCurve(piece, b, lo, hi, slack, 0);
      if (last) out.tip = true;
      continue;
    }
    std::vector<double> ts{0.0};
    for (const double y : {lo, hi})
      for (const double t : crossings(b, y)) ts.push_back(t);
    ts.push_back(1.0);
    std::sort(ts.begin(), ts.end());
    for (std::size_t i = 0; i + 1 < ts.size(); ++i) {
      const double t0 = ts[i];
      const double t1 = ts[i + 1];
      if (t1 - t0 < 1e-9) continue;
      const double mid = bezierY(b, (t0 + t1) / 2);
      if (mid < lo || mid > hi) {
        flush();
        continue;
      }
      if (t0 > 0) flush();  // entering the band: a new piece
      appendCurve(piece, subCurve(b, t0, t1), lo, hi, slack, 8);
      if (last && t1 >= 1) out.tip = true;
    }
  }
  flush();
  return out;
}

}  // namespace

std::size_t GraphSceneLayout::bandOf(double y) const {
  std::size_t k = 0;
  while (k + 1 < bands.size() && bands[k + 1].y0 <= y) ++k;
  return k;
}

std::optional<Point> GraphSceneLayout::toDrawing(Point scenePoint) const {
  if (scale <= 0) return std::nullopt;
  for (const Band& b : bands)
    if (b.clip.contains(Box{scenePoint.x, scenePoint.y, 0, 0}, 0))
      return Point{(scenePoint.x - b.offset.x) / scale, (scenePoint.y - b.offset.y) / scale};
  return std::nullopt;
}

GraphSceneLayout graphSceneLayout(const GraphDrawing& drawing, const FigureStyle& style) {
  const TextMetrics& tm = style.text();
  const Theme& th = style.theme;
  GraphSceneLayout layout;
  double top = kScenePad;
  if (!style.title.empty()) {
    layout.titleY = top;
    top += tm.height(th.titleFontSize) + kSceneGap;
  }
  if (!drawing.note.empty()) {
    layout.noteY = top;
    top += tm.height(th.smallFontSize) + kSceneGap;
  }

  std::array<bool, kNodeRoles> present{};
  for (const DrawnNode& d : drawing.nodes) present[static_cast<std::size_t>(d.role)] = true;
  // Without a plan every node is Other, and a legend saying so would only take room.
  bool planned = false;
  for (std::size_t r = 0; r < kNodeRoles; ++r) planned |= present[r] && static_cast<NodeRole>(r) != NodeRole::Other;
  if (planned)
    for (std::size_t r = 0; r < kNodeRoles; ++r)
      if (present[r]) layout.legendRoles.push_back(static_cast<NodeRole>(r));
  // The marks the user put on nodes: pins and the found node.
  std::array<bool, 3> marked{};
  for (const DrawnNode& d : drawing.nodes) {
    marked[static_cast<std::size_t>(NodeMark::PinnedKeep)] |= d.pin == PinMark::Keep;
    marked[static_cast<std::size_t>(NodeMark::PinnedRecompute)] |= d.pin == PinMark::Recompute;
    marked[static_cast<std::size_t>(NodeMark::Found)] |= d.found;
  }
  for (const NodeMark m : {NodeMark::PinnedKeep, NodeMark::PinnedRecompute, NodeMark::Found})
    if (marked[static_cast<std::size_t>(m)]) layout.legendMarks.push_back(m);
  // Every entry, roles then marks, in rows wrapped to the canvas width.
  std::vector<std::string_view> labels;
  for (const NodeRole r : layout.legendRoles) labels.push_back(roleName(r));
  for (const NodeMark m : layout.legendMarks) labels.push_back(markName(m));
  if (!labels.empty()) {
    const double symbol = th.fontSize;
    const double rowHeight = std::max(tm.height(th.fontSize), symbol) + 4;
    double x = kScenePad;
    double rowTop = top;
    for (const std::string_view label : labels) {
      const double w = symbol + 5 + tm.width(std::string(label), th.fontSize);
      if (!layout.legendBoxes.empty() && x + w > style.width - kScenePad) {
        x = kScenePad;
        rowTop += rowHeight;
      }
      layout.legendBoxes.push_back({x, rowTop, w, rowHeight - 4});
      x += w + kLegendSpacing;
    }
    top = rowTop + rowHeight + kSceneGap;
  }

  layout.area = {kScenePad, top, std::max(0.0, style.width - 2 * kScenePad),
                 std::max(0.0, style.height - kScenePad - top)};
  const Box& area = layout.area;
  const double width = drawing.width;
  const double height = drawing.height;
  if (width > 0) layout.scale = std::min(layout.scale, area.w / width);
  if (height > 0) layout.scale = std::min(layout.scale, area.h / height);

  // Columns, when more of them let the drawing be larger: each one more narrows the drawing's room but
  // shortens the tallest band. The room per column only shrinks, so the search ends once it is below
  // the best scale found; a tie keeps fewer columns.
  std::vector<double> cuts;
  const double strip = markerStrip(style);
  const double columnHeight = area.h - 2 * strip;
  if (layout.scale < 1 && width > 0 && height > 0 && columnHeight > 0) {
    const std::vector<double> positions = cutPositions(drawing);
    for (std::size_t c = 2; c <= positions.size() + 1; ++c) {
      const double room = area.w - static_cast<double>(c - 1) * kColumnGap;
      const double byWidth = room / (static_cast<double>(c) * width);
      if (room <= 0 || byWidth <= layout.scale * (1 + 1e-9)) break;
      std::vector<double> candidate = balancedCuts(positions, height, c);
      const double scale = std::min({1.0, byWidth, columnHeight / tallestBand(candidate, height)});
      if (scale > layout.scale * (1 + 1e-9)) {
        layout.scale = scale;
        cuts = std::move(candidate);
      }
      if (scale >= 1) break;
    }
  }

  const double s = layout.scale;
  if (cuts.empty()) {
    layout.offset = {area.x + (area.w - width * s) / 2, area.y + (area.h - height * s) / 2};
    layout.bands.push_back({0,
                            height,
                            layout.offset,
                            {layout.offset.x - kClipSlack, layout.offset.y - kClipSlack, width * s + 2 * kClipSlack,
                             height * s + 2 * kClipSlack}});
    return layout;
  }
  const std::size_t columns = cuts.size() + 1;
  const double columnWidth = width * s;
  const double tallest = tallestBand(cuts, height) * s;
  const double left =
      area.x +
      (area.w - static_cast<double>(columns) * columnWidth - static_cast<double>(columns - 1) * kColumnGap) / 2;
  const double columnTop = area.y + (area.h - tallest - 2 * strip) / 2 + strip;
  for (std::size_t k = 0; k < columns; ++k) {
    GraphSceneLayout::Band band;
    band.y0 = k == 0 ? 0 : cuts[k - 1];
    band.y1 = k + 1 == columns ? height : cuts[k];
    const double x = left + static_cast<double>(k) * (columnWidth + kColumnGap);
    band.offset = {x, columnTop - band.y0 * s};
    const double slackTop = k == 0 ? kClipSlack : 0;
    const double slackBottom = k + 1 == columns ? kClipSlack : 0;
    band.clip = {x - kClipSlack, columnTop - slackTop, columnWidth + 2 * kClipSlack,
                 (band.y1 - band.y0) * s + slackTop + slackBottom};
    layout.bands.push_back(band);
  }
  layout.offset = layout.bands.front().offset;
  return layout;
}

std::string_view markName(NodeMark m) {
  switch (m) {
    case NodeMark::PinnedKeep: return "pinned: keep";
    case NodeMark::PinnedRecompute: return "pinned: recompute";
    case NodeMark::Found: return "found";
  }
  return "?";
}

namespace {
Stroke markStroke(const Theme& th, NodeMark m) {
  if (m == NodeMark::Found) return Stroke{th.peak, 2.4, Dash::Solid};
  return Stroke{th.foreground, 2.4, m == NodeMark::PinnedRecompute ? Dash::Dashed : Dash::Solid};
}
}  // namespace

bool graphLabelsShown(const GraphDrawing& drawing, const FigureStyle& style, double* size) {
  const double labelSize = drawing.fontSize * graphSceneLayout(drawing, style).scale;
  if (size) *size = labelSize;
  return labelSize * std::max(1.0, style.maxZoom) >= kMinTextSize;
}

Scene graphScene(const GraphDrawing& drawing, const FigureStyle& style) {
  const GraphSceneLayout layout = graphSceneLayout(drawing, style);
  const TextMetrics& tm = style.text();
  const Theme& th = style.theme;
  Scene scene = makeScene(style);
  const double scale = layout.scale;
  const double labelSize = drawing.fontSize * scale;
  // Labels too small to read are left out, unless the view may zoom far enough to read them (the
  // painter then shows them from that zoom on).
  const bool labels = labelSize * std::max(1.0, style.maxZoom) >= kMinTextSize;
  const std::size_t columns = layout.bands.size();

  const Stroke clusterStroke{mix(th.grid, th.foreground, 0.25), 0.8};
  const Stroke edgeStroke{mix(th.foreground, th.background, 0.4), std::clamp(scale, 0.4, 1.0)};
  // Unrouted edges may cross boxes; dashed and lighter, they read as "goes there", not as a path.
  const Stroke directStroke{mix(th.foreground, th.background, 0.6), edgeStroke.width, Dash::Dashed};
  const Stroke nodeStroke{mix(th.foreground, th.background, 0.25), std::clamp(0.8 * scale, 0.3, 0.8)};
  std::vector<std::size_t> bandOfNode;
  bandOfNode.reserve(drawing.nodes.size());
  for (const DrawnNode& d : drawing.nodes) bandOfNode.push_back(layout.bandOf(d.box));

  // Each band on its own, clipped to its column: an item crossing a cut shows in both columns, each
  // part where it lies. Only cuts clip; the drawing's own top and bottom are open (-inf, inf).
  const bool empty = drawing.nodes.empty() && drawing.edges.empty() && drawing.clusters.empty();
  for (std::size_t k = 0; k < columns && !empty; ++k) {
    const GraphSceneLayout::Band& band = layout.bands[k];
    const double lo = k == 0 ? -std::numeric_limits<double>::infinity() : band.y0;
    const double hi = k + 1 == columns ? std::numeric_limits<double>::infinity() : band.y1;
    const double overhang = scale > 0 ? kCutOverhang / scale : 0;  // drawing units
    scene.add(PushClipItem{band.clip.x, band.clip.y, band.clip.w, band.clip.h});

    // Clusters first, alternating in shade so that neighbouring segments stay apart. A cut cluster runs
    // on past the clip, so that its open end shows it goes on.
    for (const DrawnCluster& c : drawing.clusters) {
      if (c.box.bottom() <= lo || c.box.y >= hi) continue;
      const double y0 = c.box.y < lo ? lo - overhang : c.box.y;
      const double y1 = c.box.bottom() > hi ? hi + overhang : c.box.bottom();
      const Point p = layout.toScene(k, Point{c.box.x, y0});
      const Box b{p.x, p.y, c.box.w * scale, (y1 - y0) * scale};
      const Color shade = mix(th.background, th.grid, c.segment % 2 == 0 ? 0.45 : 0.8);
      scene.add(RectItem{b.x, b.y, b.w, b.h, Fill{shade}, clusterStroke, 3 * scale});
      if (labels && c.box.y >= lo) {
        const double inset = 3 * scale;
        std::string text = elideMiddle(c.label, b.w - 2 * inset, labelSize, tm);
        if (!text.empty())
          scene.add(TextItem{{b.x + inset, b.y + inset / 2},
                             std::move(text),
                             labelSize,
                             mix(th.foreground, th.background, 0.3),
                             Anchor::Start,
                             Baseline::Top});
      }
    }

    for (const DrawnEdge& e : drawing.edges) {
      SplinePieces parts = splineWithin(e.spline, lo, hi, overhang);
      for (std::size_t i = 0; i < parts.pieces.size(); ++i) {
        SplineItem item;
        item.points.reserve(parts.pieces[i].size());
        for (const Point& p : parts.pieces[i]) item.points.push_back(layout.toScene(k, p));
        item.stroke = e.routed ? edgeStroke : directStroke;
        item.arrow = parts.tip && i + 1 == parts.pieces.size();
        scene.add(std::move(item));
      }
    }

    for (std::size_t n = 0; n < drawing.nodes.size(); ++n) {
      if (bandOfNode[n] != k) continue;
      const DrawnNode& d = drawing.nodes[n];
      const Box b = layout.toScene(d.box);
      scene.add(RectItem{b.x, b.y, b.w, b.h, Fill{th.role(d.role)}, nodeStroke, 2 * scale});
      if (d.pin != PinMark::None)
        scene.add(RectItem{b.x, b.y, b.w, b.h, std::nullopt,
                           markStroke(th, d.pin == PinMark::Keep ? NodeMark::PinnedKeep : NodeMark::PinnedRecompute),
                           2 * scale});
      if (d.found) {
        const double ring = 3;
        scene.add(RectItem{b.x - ring, b.y - ring, b.w + 2 * ring, b.h + 2 * ring, std::nullopt,
                           markStroke(th, NodeMark::Found), 2 * scale + ring});
      }
      scene.hotspots.push_back({Hotspot::Kind::Node, b.x, b.y, b.w, b.h, d.members.front().value, 0, d.tip});
    }
    if (labels) {
      const double line = tm.height(labelSize);
      for (std::size_t n = 0; n < drawing.nodes.size(); ++n) {
        if (bandOfNode[n] != k) continue;
        const DrawnNode& d = drawing.nodes[n];
        const Box b = layout.toScene(d.box);
        const Color color = textColorOn(th.role(d.role), th.foreground);
        const double cx = b.x + b.w / 2;
        const double cy = b.y + b.h / 2;
        const double room = b.w - 2 * kLabelPadX * scale;
        std::string name = elideMiddle(d.label, room, labelSize, tm);
        if (!name.empty())
          scene.add(TextItem{{cx, cy - line / 2}, std::move(name), labelSize, color, Anchor::Middle, Baseline::Middle});
        std::string size = elideMiddle(formatBytes(static_cast<double>(d.bytes.value)), room, labelSize, tm);
        if (!size.empty())
          scene.add(TextItem{{cx, cy + line / 2}, std::move(size), labelSize, color, Anchor::Middle, Baseline::Middle});
      }
    }
    scene.add(PopClipItem{});
  }

  // Between columns a thin line, and at each cut a marker under the column that stops and over the
  // one that goes on, in the strips kept free for them.
  if (columns > 1) {
    const double strip = markerStrip(style);
    const double size = markerSize(th);
    const Color muted = mix(th.foreground, th.background, 0.45);
    const Stroke separator{mix(th.grid, th.foreground, 0.15), 1.0};
    double tallest = 0;
    for (const GraphSceneLayout::Band& b : layout.bands) tallest = std::max(tallest, (b.y1 - b.y0) * scale);
    const double columnTop = layout.bands.front().offset.y;  // band 0 starts at y 0
    const double columnWidth = layout.bands.front().clip.w - 2 * kClipSlack;
    const auto marker = [&](const std::string& text, const std::string& arrow) {
      return tm.width(text, size) <= columnWidth + kColumnGap - 2 ? text : arrow;
    };
    const std::string below = marker("continues \u2192", "\u2192");
    const std::string above = marker("\u2192 continued", "\u2192");
    for (std::size_t k = 0; k < columns; ++k) {
      const GraphSceneLayout::Band& b = layout.bands[k];
      const double x = b.clip.x + kClipSlack;
      const double centre = x + columnWidth / 2;
      if (k > 0) {
        const double line = x - kColumnGap / 2;
        scene.add(PolylineItem{{{line, columnTop - strip}, {line, columnTop + tallest + strip}}, separator});
        scene.add(TextItem{{centre, columnTop - 2}, above, size, muted, Anchor::Middle, Baseline::Bottom});
      }
      if (k + 1 < columns)
        scene.add(TextItem{
            {centre, columnTop + (b.y1 - b.y0) * scale + 2}, below, size, muted, Anchor::Middle, Baseline::Top});
    }
  }

  if (!style.title.empty())
    scene.add(TextItem{{kScenePad, layout.titleY},
                       style.title,
                       th.titleFontSize,
                       th.foreground,
                       Anchor::Start,
                       Baseline::Top,
                       0,
                       true});
  if (!drawing.note.empty())
    scene.add(TextItem{{kScenePad, layout.noteY},
                       elideMiddle(drawing.note, style.width - 2 * kScenePad, th.smallFontSize, style.text()),
                       th.smallFontSize,
                       th.foreground,
                       Anchor::Start,
                       Baseline::Top});
  const double symbol = th.fontSize;
  for (std::size_t k = 0; k < layout.legendRoles.size(); ++k) {
    const Box& b = layout.legendBoxes[k];
    const NodeRole role = layout.legendRoles[k];
    const LegendEntry entry{std::string(roleName(role)), LegendEntry::Kind::Swatch, Fill{th.role(role)}, {}};
    drawLegendSymbol(scene, entry, b.x, b.y + (b.h - symbol) / 2, symbol);
    scene.add(TextItem{
        {b.x + symbol + 5, b.y + b.h / 2}, entry.label, th.fontSize, th.foreground, Anchor::Start, Baseline::Middle});
  }
  for (std::size_t m = 0; m < layout.legendMarks.size(); ++m) {
    const Box& b = layout.legendBoxes[layout.legendRoles.size() + m];
    const NodeMark mark = layout.legendMarks[m];
    scene.add(RectItem{b.x + 1, b.y + (b.h - symbol) / 2 + 1, symbol - 2, symbol - 2, Fill{th.background},
                       markStroke(th, mark)});
    scene.add(TextItem{{b.x + symbol + 5, b.y + b.h / 2},
                       std::string(markName(mark)),
                       th.fontSize,
                       th.foreground,
                       Anchor::Start,
                       Baseline::Middle});
  }
  return scene;
}

}  // namespace remat::viz
