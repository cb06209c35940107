#pragma once

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
};

/// Cross-hatching over a fill, so that areas stay apart in black-and-white print.
enum class Hatch : std::uint8_t { None, Forward, Backward, Cross, Horizontal, Vertical };

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

enum class Anchor : std::uint8_t { Start, Middle, End };       ///< horizontal alignment at `at`
enum class Baseline : std::uint8_t { Top, Middle, Bottom };    ///< vertical alignment at `at`

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

using Item = std::variant<RectItem, PolylineItem, PolygonItem, EllipseItem, SplineItem, TextItem, PushClipItem,
                          PopClipItem>;

/// A figure as plain data: a canvas and the items painted on it, in order. Built by the figure
/// builders of this library, painted by viz/qt for the screen and for every export format alike, so
/// that what is on screen and what goes into a paper are the same picture.
struct Scene {
  double width = 0;
  double height = 0;
  Color background{255, 255, 255};
  std::string fontFamily;  ///< every text item's font family
  std::vector<Item> items;

  template <class T>
  void add(T item) {
    items.emplace_back(std::move(item));
  }
};

}  // namespace remat::viz
