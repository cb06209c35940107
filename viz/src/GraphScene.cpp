// The graph drawing with checkpoints as a scene: fits a laid-out GraphDrawing onto the canvas.

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "remat/viz/GraphDrawing.hpp"

namespace remat::viz {

namespace {

constexpr double kPad = 12;  // outer margin, as Chart's
constexpr double kGap = 6;
constexpr double kLegendSpacing = 18;
// Below this size a label is a smudge, not text, and only slows the painter down.
constexpr double kMinLabelSize = 5;
constexpr double kLabelPadX = 6;  // matches the layout's padding inside node boxes

Color mix(Color a, Color b, double t) {
  const auto channel = [t](std::uint8_t x, std::uint8_t y) {
    return static_cast<std::uint8_t>(std::lround(x + (y - x) * t));
  };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), 255};
}

// Shortens a label to fit, keeping its head and tail (names differ at either end: "layer3.conv" vs
// "layer3.relu"), cutting only between UTF-8 code points.
std::string elide(const std::string& text, double maxWidth, double size, const TextMetrics& tm) {
  if (tm.width(text, size) <= maxWidth) return text;
  std::vector<std::size_t> starts;  // byte offset of each code point
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  const std::string ellipsis = "\u2026";
  for (std::size_t keep = starts.size(); keep-- > 0;) {
    const std::size_t head = (keep + 1) / 2;
    const std::size_t tail = keep - head;
    const std::size_t headEnd = head < starts.size() ? starts[head] : text.size();
    const std::size_t tailStart = tail == 0 ? text.size() : starts[starts.size() - tail];
    std::string candidate = text.substr(0, headEnd) + ellipsis + text.substr(tailStart);
    if (tm.width(candidate, size) <= maxWidth) return candidate;
  }
  return {};
}

Color textOn(Color fill, const Theme& theme) {
  return fill.luminance() < 0.35 ? Color{255, 255, 255} : theme.foreground;
}

}  // namespace

GraphSceneLayout graphSceneLayout(const GraphDrawing& drawing, const FigureStyle& style) {
  const TextMetrics& tm = style.text();
  const Theme& th = style.theme;
  GraphSceneLayout layout;
  double top = kPad;
  if (!style.title.empty()) {
    layout.titleY = top;
    top += tm.height(th.titleFontSize) + kGap;
  }

  std::array<bool, kNodeRoles> present{};
  for (const DrawnNode& d : drawing.nodes) present[static_cast<std::size_t>(d.role)] = true;
  // Without a plan every node is Other, and a legend saying so would only take room.
  bool planned = false;
  for (std::size_t r = 0; r < kNodeRoles; ++r) planned |= present[r] && static_cast<NodeRole>(r) != NodeRole::Other;
  if (planned) {
    const double symbol = th.fontSize;
    const double rowHeight = std::max(tm.height(th.fontSize), symbol) + 4;
    double x = kPad;
    double rowTop = top;
    for (std::size_t r = 0; r < kNodeRoles; ++r) {
      if (!present[r]) continue;
      const auto role = static_cast<NodeRole>(r);
      const double w = symbol + 5 + tm.width(roleName(role), th.fontSize);
      if (!layout.legendBoxes.empty() && x + w > style.width - kPad) {
        x = kPad;
        rowTop += rowHeight;
      }
      layout.legendRoles.push_back(role);
      layout.legendBoxes.push_back({x, rowTop, w, rowHeight - 4});
      x += w + kLegendSpacing;
    }
    top = rowTop + rowHeight + kGap;
  }

  layout.area = {kPad, top, std::max(0.0, style.width - 2 * kPad), std::max(0.0, style.height - kPad - top)};
  if (drawing.width > 0) layout.scale = std::min(layout.scale, layout.area.w / drawing.width);
  if (drawing.height > 0) layout.scale = std::min(layout.scale, layout.area.h / drawing.height);
  layout.offset = {layout.area.x + (layout.area.w - drawing.width * layout.scale) / 2,
                   layout.area.y + (layout.area.h - drawing.height * layout.scale) / 2};
  return layout;
}

Scene graphScene(const GraphDrawing& drawing, const FigureStyle& style) {
  const GraphSceneLayout layout = graphSceneLayout(drawing, style);
  const TextMetrics& tm = style.text();
  const Theme& th = style.theme;
  Scene scene = makeScene(style);
  const double scale = layout.scale;
  const double labelSize = drawing.fontSize * scale;
  const bool labels = labelSize >= kMinLabelSize;

  // Clusters first, alternating in shade so that neighbouring segments stay apart.
  const Stroke clusterStroke{mix(th.grid, th.foreground, 0.25), 0.8};
  for (const DrawnCluster& c : drawing.clusters) {
    const Box b = layout.toScene(c.box);
    const Color shade = mix(th.background, th.grid, c.segment % 2 == 0 ? 0.45 : 0.8);
    scene.add(RectItem{b.x, b.y, b.w, b.h, Fill{shade}, clusterStroke, 3 * scale});
    if (labels) {
      const double inset = 3 * scale;
      std::string text = elide(c.label, b.w - 2 * inset, labelSize, tm);
      if (!text.empty())
        scene.add(TextItem{{b.x + inset, b.y + inset / 2},
                           std::move(text),
                           labelSize,
                           mix(th.foreground, th.background, 0.3),
                           Anchor::Start,
                           Baseline::Top});
    }
  }

  const Stroke edgeStroke{mix(th.foreground, th.background, 0.4), std::clamp(scale, 0.4, 1.0)};
  // Unrouted edges may cross boxes; dashed and lighter, they read as "goes there", not as a path.
  const Stroke directStroke{mix(th.foreground, th.background, 0.6), edgeStroke.width, Dash::Dashed};
  for (const DrawnEdge& e : drawing.edges) {
    SplineItem s;
    s.points.reserve(e.spline.size());
    for (const Point& p : e.spline) s.points.push_back(layout.toScene(p));
    s.stroke = e.routed ? edgeStroke : directStroke;
    s.arrow = true;
    scene.add(std::move(s));
  }

  const Stroke nodeStroke{mix(th.foreground, th.background, 0.25), std::clamp(0.8 * scale, 0.3, 0.8)};
  for (const DrawnNode& d : drawing.nodes) {
    const Box b = layout.toScene(d.box);
    scene.add(RectItem{b.x, b.y, b.w, b.h, Fill{th.role(d.role)}, nodeStroke, 2 * scale});
  }
  if (labels) {
    const double line = tm.height(labelSize);
    for (const DrawnNode& d : drawing.nodes) {
      const Box b = layout.toScene(d.box);
      const Color color = textOn(th.role(d.role), th);
      const double cx = b.x + b.w / 2;
      const double cy = b.y + b.h / 2;
      const double room = b.w - 2 * kLabelPadX * scale;
      std::string name = elide(d.label, room, labelSize, tm);
      if (!name.empty())
        scene.add(TextItem{{cx, cy - line / 2}, std::move(name), labelSize, color, Anchor::Middle, Baseline::Middle});
      std::string size = elide(formatBytes(static_cast<double>(d.bytes.value)), room, labelSize, tm);
      if (!size.empty())
        scene.add(TextItem{{cx, cy + line / 2}, std::move(size), labelSize, color, Anchor::Middle, Baseline::Middle});
    }
  }

  if (!style.title.empty())
    scene.add(TextItem{
        {kPad, layout.titleY}, style.title, th.titleFontSize, th.foreground, Anchor::Start, Baseline::Top, 0, true});
  const double symbol = th.fontSize;
  for (std::size_t k = 0; k < layout.legendRoles.size(); ++k) {
    const Box& b = layout.legendBoxes[k];
    const NodeRole role = layout.legendRoles[k];
    const LegendEntry entry{std::string(roleName(role)), LegendEntry::Kind::Swatch, Fill{th.role(role)}, {}};
    drawLegendSymbol(scene, entry, b.x, b.y + (b.h - symbol) / 2, symbol);
    scene.add(TextItem{
        {b.x + symbol + 5, b.y + b.h / 2}, entry.label, th.fontSize, th.foreground, Anchor::Start, Baseline::Middle});
  }
  return scene;
}

}  // namespace remat::viz
