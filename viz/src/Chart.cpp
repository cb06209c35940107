#include "remat/viz/Chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace remat::viz {

namespace {

constexpr double kPad = 12;  // outer margin
constexpr double kTickLength = 4;
constexpr double kGap = 6;  // between a label and what it labels

double niceStep(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / power;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * power;
}

double byteUnit(double extent) {
  double unit = 1;
  for (int k = 0; k < 4 && extent >= unit * 1024; ++k) unit *= 1024;
  return unit;
}

const char* byteSuffix(double unit) {
  if (unit >= 1024.0 * 1024 * 1024 * 1024) return "TiB";
  if (unit >= 1024.0 * 1024 * 1024) return "GiB";
  if (unit >= 1024.0 * 1024) return "MiB";
  if (unit >= 1024.0) return "KiB";
  return "B";
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s == "-0" || s.rfind("-0.", 0) == 0) {  // no "-0.0" at zero
    bool zero = std::all_of(s.begin() + 1, s.end(), [](char c) { return c == '0' || c == '.'; });
    if (zero) s.erase(0, 1);
  }
  return s;
}

int decimalsFor(double step) {
  if (step <= 0) return 0;
  return std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 6);
}

// The display unit of a duration axis (seconds per display unit, and its symbol) by its extent in
// seconds: the largest of s, ms, µs, ns that the extent reaches.
std::pair<double, const char*> durationUnit(double extentSeconds) {
  if (extentSeconds >= 1) return {1, "s"};
  if (extentSeconds >= 1e-3) return {1e-3, "ms"};
  if (extentSeconds >= 1e-6) return {1e-6, "\u00b5s"};
  return {1e-9, "ns"};
}

}  // namespace

std::optional<double> secondsPerTimeUnit(std::string_view unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return std::nullopt;
}

Axis durationAxis(double min, double max, const std::string& what, const std::string& timeUnit) {
  if (const auto seconds = secondsPerTimeUnit(timeUnit)) return Axis{min, max, what, AxisFormat::Seconds, *seconds, {}};
  return Axis{min, max, what + " (" + (timeUnit.empty() ? std::string("ticks") : timeUnit) + ")", AxisFormat::Number,
              1,   {}};
}

void drawMarker(Scene& scene, Point at, const Marker& marker, double r, Color color, Color background) {
  const Fill fill{marker.filled ? color : background};
  const Stroke stroke{color, 1.1};
  switch (marker.shape) {
    case MarkerShape::Circle: scene.add(EllipseItem{at, r, r, fill, stroke}); break;
    case MarkerShape::Square:
      scene.add(RectItem{at.x - r * 0.9, at.y - r * 0.9, 1.8 * r, 1.8 * r, fill, stroke});
      break;
    case MarkerShape::Triangle:
      scene.add(
          PolygonItem{{{at.x, at.y - 1.15 * r}, {at.x + 1.1 * r, at.y + 0.85 * r}, {at.x - 1.1 * r, at.y + 0.85 * r}},
                      fill,
                      stroke});
      break;
    case MarkerShape::Diamond:
      scene.add(PolygonItem{
          {{at.x, at.y - 1.25 * r}, {at.x + r, at.y}, {at.x, at.y + 1.25 * r}, {at.x - r, at.y}}, fill, stroke});
      break;
  }
}

std::vector<double> niceTicks(double min, double max, int target) {
  std::vector<double> out;
  if (!(max > min) || !std::isfinite(min) || !std::isfinite(max)) {
    if (std::isfinite(min)) out.push_back(min);
    return out;
  }
  const double step = niceStep((max - min) / std::max(1, target));
  const double eps = step * 1e-9;
  for (double k = std::ceil((min - eps) / step);; k += 1) {
    const double v = k * step;
    if (v > max + eps) break;
    out.push_back(std::abs(v) < eps ? 0.0 : v);
  }
  return out;
}

std::vector<double> axisTicks(const Axis& axis, int target) {
  if (axis.format == AxisFormat::Seconds && axis.secondsPerUnit > 0) {
    // Round values in the unit the labels use: 5 ms steps, not 4.77 ms ones.
    const double extent = std::max(std::abs(axis.min), std::abs(axis.max)) * axis.secondsPerUnit;
    const double unit = durationUnit(extent).first / axis.secondsPerUnit;  // data units per display unit
    std::vector<double> ticks = niceTicks(axis.min / unit, axis.max / unit, target);
    for (double& t : ticks) t *= unit;
    return ticks;
  }
  if (axis.format == AxisFormat::Bytes) {
    const double unit = byteUnit(std::max(std::abs(axis.min), std::abs(axis.max)));
    std::vector<double> ticks = niceTicks(axis.min / unit, axis.max / unit, target);
    for (double& t : ticks) t *= unit;
    return ticks;
  }
  if (axis.format == AxisFormat::Integer && axis.max - axis.min < target) {
    std::vector<double> ticks;
    for (double v = std::ceil(axis.min); v <= axis.max; v += 1) ticks.push_back(v);
    return ticks;
  }
  return niceTicks(axis.min, axis.max, target);
}

std::vector<std::string> tickLabels(const std::vector<double>& ticks, AxisFormat format) {
  std::vector<std::string> out;
  if (ticks.empty()) return out;
  double extent = 0;
  for (double t : ticks) extent = std::max(extent, std::abs(t));
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (extent > 0 ? extent : 1);
  switch (format) {
    case AxisFormat::Bytes: {
      const double unit = byteUnit(extent);
      const int decimals = decimalsFor(step / unit);
      for (double t : ticks) out.push_back(fixed(t / unit, decimals) + " " + byteSuffix(unit));
      return out;
    }
    case AxisFormat::Percent: {
      const int decimals = decimalsFor(step * 100);
      for (double t : ticks) out.push_back(fixed(t * 100, decimals) + "%");
      return out;
    }
    case AxisFormat::Seconds:
    case AxisFormat::Number:
    case AxisFormat::Integer: {
      double unit = 1;
      const char* suffix = "";
      if (extent >= 1e10)
        unit = 1e9, suffix = "G";
      else if (extent >= 1e7)
        unit = 1e6, suffix = "M";
      else if (extent >= 1e4)
        unit = 1e3, suffix = "k";
      const int decimals = decimalsFor(step / unit);
      // Zero reads "0", not "0k".
      for (double t : ticks) out.push_back(t == 0 ? std::string("0") : fixed(t / unit, decimals) + suffix);
      return out;
    }
  }
  return out;
}

std::vector<std::string> tickLabels(const std::vector<double>& ticks, const Axis& axis) {
  if (axis.format != AxisFormat::Seconds || !(axis.secondsPerUnit > 0) || ticks.empty())
    return tickLabels(ticks, axis.format);
  double extent = 0;
  for (double t : ticks) extent = std::max(extent, std::abs(t));
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (extent > 0 ? extent : 1);
  const auto [unitSeconds, symbol] = durationUnit(extent * axis.secondsPerUnit);
  const double unit = unitSeconds / axis.secondsPerUnit;
  const int decimals = decimalsFor(step / unit);
  std::vector<std::string> out;
  out.reserve(ticks.size());
  for (double t : ticks) out.push_back(t == 0 ? std::string("0") : fixed(t / unit, decimals) + " " + symbol);
  return out;
}

std::string formatBytes(double bytes) {
  const double unit = byteUnit(std::abs(bytes));
  const double v = bytes / unit;
  const int decimals = unit == 1 ? 0 : std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
  return fixed(v, decimals) + " " + byteSuffix(unit);
}

Scene makeScene(const FigureStyle& style) {
  Scene s;
  s.width = style.width;
  s.height = style.height;
  s.background = style.theme.background;
  s.fontFamily = style.theme.fontFamily;
  return s;
}

void drawLegendSymbol(Scene& scene, const LegendEntry& e, double x, double y, double size) {
  switch (e.kind) {
    case LegendEntry::Kind::Swatch:
      scene.add(RectItem{x, y, size, size, e.fill, Stroke{{0x55, 0x55, 0x55}, 0.6}});
      break;
    case LegendEntry::Kind::Line: {
      Stroke s = e.stroke;
      scene.add(PolylineItem{{{x, y + size / 2}, {x + 2 * size, y + size / 2}}, s});
      if (e.marker) drawMarker(scene, {x + size, y + size / 2}, *e.marker, size * 0.3, s.color, e.markerBackground);
      break;
    }
    case LegendEntry::Kind::Marker:
      scene.add(EllipseItem{{x + size / 2, y + size / 2}, size * 0.35, size * 0.35, e.fill, e.stroke});
      break;
  }
}

namespace {
double symbolWidth(const LegendEntry& e, double size) { return e.kind == LegendEntry::Kind::Line ? 2 * size : size; }
}  // namespace

Chart::Chart(Scene& scene, const FigureStyle& style, Axis x, Axis y, std::vector<LegendEntry> legend)
    : m_scene(scene), m_style(style), m_x(std::move(x)), m_y(std::move(y)), m_legend(std::move(legend)) {
  const TextMetrics& tm = style.text();
  const Theme& th = style.theme;
  double top = kPad;
  if (!style.title.empty()) {
    m_titleY = top;
    top += tm.height(th.titleFontSize) + kGap;
  }
  // The legend in rows under the title, wrapped to the canvas width.
  const double symbol = th.fontSize;
  const double rowHeight = std::max(tm.height(th.fontSize), symbol) + 4;
  double cx = kPad;
  double rowTop = top;
  bool any = false;
  for (const LegendEntry& e : m_legend) {
    const double w = symbolWidth(e, symbol) + 5 + tm.width(e.label, th.fontSize);
    if (any && cx + w > style.width - kPad) {
      cx = kPad;
      rowTop += rowHeight;
    }
    m_legendBoxes.push_back({cx, rowTop, w, rowHeight - 4});
    cx += w + 18;
    any = true;
  }
  if (any) top = rowTop + rowHeight + kGap;

  // Bottom: x tick labels and the x title; left: y title (turned) and y tick labels.
  const double tickLabelHeight = tm.height(th.fontSize);
  double bottom = style.height - kPad - tickLabelHeight - kTickLength - 2;
  if (!m_x.title.empty()) bottom -= tm.height(th.labelFontSize) + 2;
  const double plotHeight = std::max(20.0, bottom - top);
  m_yTicks = axisTicks(m_y, std::max(2, static_cast<int>(plotHeight / 55)));
  double yLabelWidth = 0;
  for (const std::string& l : tickLabels(m_yTicks, m_y)) yLabelWidth = std::max(yLabelWidth, tm.width(l, th.fontSize));
  double left = kPad + yLabelWidth + kTickLength + 3;
  if (!m_y.title.empty()) left += tm.height(th.labelFontSize) + 2;
  double right = style.width - kPad;
  // As many x ticks as fit without their labels touching, and room for half of the last label.
  const double plotWidthGuess = std::max(20.0, right - left);
  const double xSpan = std::max(1e-300, m_x.max - m_x.min);
  for (int target = std::max(2, static_cast<int>(plotWidthGuess / 70)); target >= 1; --target) {
    m_xTicks = axisTicks(m_x, target);
    if (m_xTicks.size() < 2) break;
    double widest = 0;
    for (const std::string& l : tickLabels(m_xTicks, m_x)) widest = std::max(widest, tm.width(l, th.fontSize));
    const double spacing = plotWidthGuess * (m_xTicks[1] - m_xTicks[0]) / xSpan;
    if (spacing >= widest + 12) break;
  }
  if (!m_xTicks.empty()) {
    const auto labels = tickLabels(m_xTicks, m_x);
    const double lastHalf = tm.width(labels.back(), th.fontSize) / 2;
    // The last label is centred on its tick; keep it on the canvas.
    const double lastPos = (m_xTicks.back() - m_x.min) / xSpan;
    const double overflow = lastHalf - (1 - lastPos) * plotWidthGuess;
    if (overflow > 0) right -= overflow;
    const double firstHalf = tm.width(labels.front(), th.fontSize) / 2;
    const double firstPos = (m_xTicks.front() - m_x.min) / xSpan;
    const double under = firstHalf - (left - kPad) - firstPos * plotWidthGuess;
    if (under > 0) left += under;
  }
  m_plot = {left, top, std::max(20.0, right - left), plotHeight};
  // A turned y title longer than the plot would run over the legend: the short one, when there is one.
  if (!m_y.shortTitle.empty() && tm.width(m_y.title, th.labelFontSize) > plotHeight) m_y.title = m_y.shortTitle;
}

double Chart::x(double v) const {
  const double span = m_x.max - m_x.min;
  return m_plot.x + (span > 0 ? (v - m_x.min) / span : 0.5) * m_plot.w;
}

double Chart::y(double v) const {
  const double span = m_y.max - m_y.min;
  return m_plot.bottom() - (span > 0 ? (v - m_y.min) / span : 0.5) * m_plot.h;
}

void Chart::background() {
  const Stroke grid{m_style.theme.grid, 0.8};
  for (double t : m_yTicks) m_scene.add(PolylineItem{{{m_plot.x, y(t)}, {m_plot.right(), y(t)}}, grid});
  for (double t : m_xTicks) m_scene.add(PolylineItem{{{x(t), m_plot.y}, {x(t), m_plot.bottom()}}, grid});
}

void Chart::pushClip() { m_scene.add(PushClipItem{m_plot.x, m_plot.y, m_plot.w, m_plot.h}); }
void Chart::popClip() { m_scene.add(PopClipItem{}); }

void Chart::foreground() {
  const Theme& th = m_style.theme;
  const TextMetrics& tm = m_style.text();
  const Stroke axis{th.foreground, 1.0};
  m_scene.add(
      PolylineItem{{{m_plot.x, m_plot.y}, {m_plot.x, m_plot.bottom()}, {m_plot.right(), m_plot.bottom()}}, axis});
  const auto yLabels = tickLabels(m_yTicks, m_y);
  double yLabelWidth = 0;
  for (std::size_t k = 0; k < m_yTicks.size(); ++k) {
    const double py = y(m_yTicks[k]);
    m_scene.add(PolylineItem{{{m_plot.x - kTickLength, py}, {m_plot.x, py}}, axis});
    m_scene.add(TextItem{
        {m_plot.x - kTickLength - 3, py}, yLabels[k], th.fontSize, th.foreground, Anchor::End, Baseline::Middle});
    yLabelWidth = std::max(yLabelWidth, tm.width(yLabels[k], th.fontSize));
  }
  const auto xLabels = tickLabels(m_xTicks, m_x);
  for (std::size_t k = 0; k < m_xTicks.size(); ++k) {
    const double px = x(m_xTicks[k]);
    m_scene.add(PolylineItem{{{px, m_plot.bottom()}, {px, m_plot.bottom() + kTickLength}}, axis});
    m_scene.add(TextItem{{px, m_plot.bottom() + kTickLength + 2},
                         xLabels[k],
                         th.fontSize,
                         th.foreground,
                         Anchor::Middle,
                         Baseline::Top});
  }
  if (!m_x.title.empty())
    m_scene.add(TextItem{{m_plot.x + m_plot.w / 2, m_style.height - kPad},
                         m_x.title,
                         th.labelFontSize,
                         th.foreground,
                         Anchor::Middle,
                         Baseline::Bottom});
  if (!m_y.title.empty())
    m_scene.add(TextItem{{kPad, m_plot.y + m_plot.h / 2},
                         m_y.title,
                         th.labelFontSize,
                         th.foreground,
                         Anchor::Middle,
                         Baseline::Top,
                         90});
  if (!m_style.title.empty())
    m_scene.add(TextItem{
        {kPad, m_titleY}, m_style.title, th.titleFontSize, th.foreground, Anchor::Start, Baseline::Top, 0, true});
  const double symbol = th.fontSize;
  for (std::size_t k = 0; k < m_legend.size(); ++k) {
    const Box& b = m_legendBoxes[k];
    const LegendEntry& e = m_legend[k];
    drawLegendSymbol(m_scene, e, b.x, b.y + (b.h - symbol) / 2, symbol);
    m_scene.add(TextItem{{b.x + symbolWidth(e, symbol) + 5, b.y + b.h / 2},
                         e.label,
                         th.fontSize,
                         th.foreground,
                         Anchor::Start,
                         Baseline::Middle});
  }
}

}  // namespace remat::viz
