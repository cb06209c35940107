#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace remat::viz {

/// An sRGB colour with alpha.
struct Color {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  std::uint8_t a = 255;

  bool operator==(const Color&) const = default;
  /// Relative luminance (WCAG 2), in [0, 1]: what a colour becomes in black-and-white print.
  [[nodiscard]] double luminance() const;
  /// "#rrggbb" (alpha left out).
  [[nodiscard]] std::string hex() const;
};

/// The opaque colour a share `t` (0 to 1) of the way from `a` to `b`, channel by channel.
[[nodiscard]] Color mix(Color a, Color b, double t);

/// A point in scene units: CSS pixels (1/96 inch), origin at the top left, y growing downwards.
struct Point {
  double x = 0;
  double y = 0;
  bool operator==(const Point&) const = default;
};

enum class Dash : std::uint8_t { Solid, Dashed, Dotted };

struct Stroke {
  Color color;
  double width = 1.0;
  Dash dash = Dash::Solid;

  bool operator==(const Stroke&) const = default;
};

/// Cross-hatching over a fill, so that areas stay apart in black-and-white print.
enum class Hatch : std::uint8_t { None, Forward, Backward, Cross, Horizontal, Vertical };

/// A point marker's shape; with its fill (solid or hollow), what tells series apart in grey print.
enum class MarkerShape : std::uint8_t { Circle, Square, Triangle, Diamond };
struct Marker {
  MarkerShape shape = MarkerShape::Circle;
  bool filled = true;
};

struct Fill {
  Color color;
  Hatch hatch = Hatch::None;
  Color hatchColor{0, 0, 0, 110};
};

struct RectItem {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
  std::optional<Fill> fill;
  std::optional<Stroke> stroke;
  double radius = 0;  ///< rounded corners
};

struct PolylineItem {
  std::vector<Point> points;
  Stroke stroke;
};

/// A closed polygon (the last point joins the first).
struct PolygonItem {
  std::vector<Point> points;
  std::optional<Fill> fill;
  std::optional<Stroke> stroke;
};

struct EllipseItem {
  Point center;
  double rx = 0;
  double ry = 0;
  std::optional<Fill> fill;
  std::optional<Stroke> stroke;
};

/// A cubic Bézier spline: points[0], then three points per segment (two controls and the end), as
/// Graphviz gives edges; an arrowhead at the end when `arrow`.
struct SplineItem {
  std::vector<Point> points;
  Stroke stroke;
  bool arrow = false;
};

enum class Anchor : std::uint8_t { Start, Middle, End };     ///< horizontal alignment at `at`
enum class Baseline : std::uint8_t { Top, Middle, Bottom };  ///< vertical alignment at `at`

struct TextItem {
  Point at;
  std::string text;  ///< UTF-8
  double size = 10;  ///< font size in scene units
  Color color;
  Anchor anchor = Anchor::Start;
  Baseline baseline = Baseline::Middle;
  double rotation = 0;  ///< degrees, counter-clockwise, about `at`
  bool bold = false;
};

/// Everything after it, up to the matching PopClip, is clipped to the rectangle.
struct PushClipItem {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
};
struct PopClipItem {};

using Item =
    std::variant<RectItem, PolylineItem, PolygonItem, EllipseItem, SplineItem, TextItem, PushClipItem, PopClipItem>;

/// A region of a figure that stands for one thing in it, for hover and click in an interactive view.
/// Painters and exporters ignore hotspots: they are not drawn.
struct Hotspot {
  /// Step: a schedule step of the memory timeline; Node: a node box of the graph drawing; PlanPoint: a
  /// plan's point on the Pareto figure.
  enum class Kind : std::uint8_t { Step, Node, PlanPoint };
  Kind kind = Kind::Step;
  double x = 0, y = 0, w = 0, h = 0;  ///< scene units
  /// Step: the schedule step; Node: the graph's node index (NodeId value); PlanPoint: the point's index
  /// in its series.
  std::size_t index = 0;
  std::size_t series = 0;  ///< PlanPoint: the series index (ParetoData::series); otherwise 0
  std::string tip;         ///< plain text (lines separated by '\n'), shown on hover
};

/// Text smaller than this, in the units it is painted at (scene units for exports, widget pixels on
/// screen), is a smudge rather than text: builders leave out labels that small unless a view may
/// magnify them (FigureStyle::maxZoom), and the painter skips them.
inline constexpr double kMinTextSize = 5;

/// A figure as plain data: a canvas and the items painted on it, in order. Built by the figure
/// builders of this library, painted by viz/qt for the screen and for every export format alike, so
/// that what is on screen and what goes into a paper are the same picture.
struct Scene {
  double width = 0;
  double height = 0;
  Color background{255, 255, 255};
  std::string fontFamily;  ///< every text item's font family
  std::vector<Item> items;
  /// What lies where, for interactive views; in the order the figure builder added them (see hotspotAt).
  std::vector<Hotspot> hotspots;

  template <class T>
  void add(T item) {
    items.emplace_back(std::move(item));
  }

  /// The hotspot containing `p` (its rectangle, edges included, grown by `tolerance` on each side). When
  /// several rectangles contain p itself, the one added last (figures add what is drawn on top last);
  /// when only grown ones do, the one whose own rectangle is nearest to p (the last added among equally
  /// near ones). nullptr when none does.
  [[nodiscard]] const Hotspot* hotspotAt(Point p, double tolerance = 0) const;
};

}  // namespace remat::viz
