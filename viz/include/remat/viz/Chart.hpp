#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/viz/Figure.hpp"
#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// How tick labels of an axis read. Seconds: a duration whose data unit is Axis::secondsPerUnit
/// seconds, labelled in ns, µs, ms or s by the axis's extent ("12 ms", never "12M ns").
enum class AxisFormat : std::uint8_t { Number, Integer, Bytes, Percent, Seconds };

struct Axis {
  double min = 0;
  double max = 1;
  std::string title;
  AxisFormat format = AxisFormat::Number;
  double secondsPerUnit = 1;  ///< Seconds only: what one data unit lasts
  std::string shortTitle;     ///< the y title drawn when `title` is longer than the plot is high
};

/// Seconds per unit of a graph's time unit ("ns", "us", "µs", "ms", "s"); none for "ticks" or any
/// other unit that is not a duration.
[[nodiscard]] std::optional<double> secondsPerTimeUnit(std::string_view unit);

/// An axis over a duration in the graph's time unit: Seconds when the unit is one of time (titled
/// "what"), else Number titled "what (unit)".
[[nodiscard]] Axis durationAxis(double min, double max, const std::string& what, const std::string& timeUnit);

/// Draws a marker of "radius" r centred at `at`: filled in `color` or hollow (the background inside).
void drawMarker(Scene& scene, Point at, const Marker& marker, double r, Color color, Color background);

/// One legend entry: a filled swatch (areas), a line (series, with the series' marker on it when it
/// has one) or a marker (points).
struct LegendEntry {
  enum class Kind : std::uint8_t { Swatch, Line, Marker };
  std::string label;
  Kind kind = Kind::Swatch;
  Fill fill;
  Stroke stroke;
  std::optional<Marker> marker;  ///< Line only: drawn in the stroke's colour at the line's middle
  Color markerBackground{255, 255, 255};
};

/// A rectangle in scene units.
struct Box {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
  [[nodiscard]] double right() const { return x + w; }
  [[nodiscard]] double bottom() const { return y + h; }
  [[nodiscard]] bool contains(const Box& o, double slack = 1e-6) const {
    return o.x >= x - slack && o.y >= y - slack && o.right() <= right() + slack && o.bottom() <= bottom() + slack;
  }
};

/// Round values in [min, max], about `target` of them: steps of 1, 2 or 5 times a power of ten.
[[nodiscard]] std::vector<double> niceTicks(double min, double max, int target);
/// An axis's ticks: niceTicks, for bytes in the unit (B, KiB, MiB, GiB, TiB) of the axis's extent, so
/// that "0.5 GiB" steps come out rather than 0.466 GiB ones; integers only on Integer axes.
[[nodiscard]] std::vector<double> axisTicks(const Axis& axis, int target);
/// The labels of an axis's ticks: one unit for all of them (bytes: by the largest tick; numbers of ten
/// thousand and more: k, M, G) and as many decimals as the step needs.
[[nodiscard]] std::vector<std::string> tickLabels(const std::vector<double>& ticks, AxisFormat format);
/// tickLabels for an axis: Seconds axes in the time unit of their extent.
[[nodiscard]] std::vector<std::string> tickLabels(const std::vector<double>& ticks, const Axis& axis);
/// "1.50 GiB", "512 MiB", "12 B": three significant digits.
[[nodiscard]] std::string formatBytes(double bytes);

/// A two-axis chart inside a scene: the title on top, the legend in rows below it (outside the data,
/// so it never covers any), the y axis title and tick labels at the left, the x ones below. The
/// constructor measures every label with the style's metrics and sizes the plot box to what is left.
/// Draw in order: background() (grid), the data (clipped to plot() between pushClip/popClip), then
/// foreground() (axes, ticks, labels, title, legend).
class Chart {
 public:
  Chart(Scene& scene, const FigureStyle& style, Axis x, Axis y, std::vector<LegendEntry> legend = {});

  [[nodiscard]] const Box& plot() const { return m_plot; }
  [[nodiscard]] double x(double v) const;  ///< data to scene
  [[nodiscard]] double y(double v) const;
  [[nodiscard]] const Axis& xAxis() const { return m_x; }
  [[nodiscard]] const Axis& yAxis() const { return m_y; }
  /// Where the legend's entries were placed (label included), for tests.
  [[nodiscard]] const std::vector<Box>& legendBoxes() const { return m_legendBoxes; }

  void background();
  void foreground();
  void pushClip();
  void popClip();

 private:
  Scene& m_scene;
  const FigureStyle& m_style;
  Axis m_x;
  Axis m_y;
  std::vector<LegendEntry> m_legend;
  std::vector<double> m_xTicks;
  std::vector<double> m_yTicks;
  Box m_plot;
  double m_titleY = 0;
  std::vector<Box> m_legendBoxes;
};

/// An empty scene of the style's size, background and font.
[[nodiscard]] Scene makeScene(const FigureStyle& style);

/// Draws a legend entry's symbol in a box of the given size at (x, y) (top left).
void drawLegendSymbol(Scene& scene, const LegendEntry& e, double x, double y, double size);

}  // namespace remat::viz
