#include "remat/viz/Timeline.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "remat/graph/ByteSize.hpp"
#include "remat/viz/Chart.hpp"
#include "remat/viz/NodeLabel.hpp"

namespace remat::viz {

namespace {

// Narrower canvases (one column of a paper is 317 px) get legends without figures in them.
constexpr double kCompactLegendWidth = 520;

// A step as the figure shows it: "bwd conv3", the name escaped and cut (NodeLabel.hpp) so that no name
// reaches the figure raw; `label` for the drawn peak label, else the hover tip's longer form.
std::string stepText(const graph::ComputeGraph& g, const sim::Step& step, bool label) {
  if (step.node.value >= g.size()) return sim::describeStep(g, step);
  const std::string& name = g.node(step.node).name;
  return std::string(sim::stepKindName(step.kind)) + " " + (label ? nodeLabel(name) : displayName(name));
}

}  // namespace

std::int64_t TimelineSeries::total(std::size_t step) const {
  std::int64_t sum = 0;
  for (std::int64_t b : bytes[step]) sum += b;
  return sum;
}

TimelineSeries timelineSeries(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                              const sim::SimulationResult& result, std::string label) {
  TimelineSeries out;
  out.label = std::move(label);
  const auto& points = result.timeline.points();
  std::vector<std::uint32_t> forwards(g.size(), 0);
  Phase last = Phase::Forward;
  for (std::size_t s = 0; s < points.size(); ++s) {
    const sim::MemoryBreakdown& d = points[s].during;
    out.bytes.push_back({d.params.value, d.paramGrads.value, d.inputs.value, d.values.value, d.recomputed.value,
                         d.grads.value, d.workspace.value});
    out.endTime.push_back(points[s].endTime.value);
    const sim::Step& step = schedule[s];
    if (step.kind == sim::StepKind::Forward)
      last = forwards[step.node.value]++ > 0 ? Phase::Recompute : Phase::Forward;
    else if (step.kind == sim::StepKind::Backward)
      last = Phase::Backward;
    out.phase.push_back(last);
    out.what.push_back(stepText(g, step, false));
  }
  // The largest tensors alive at each step, by a sweep over the lifetimes: parameters and inputs stay
  // for the whole step and are left out.
  if (!result.lifetimes.empty()) {
    std::vector<std::vector<std::int32_t>> starts(points.size());
    std::vector<std::size_t> lastStep;  // by index into out.tensors
    for (const sim::TensorLifetime& t : result.lifetimes) {
      using Kind = sim::TensorLifetime::Kind;
      if (t.kind == Kind::Param || t.kind == Kind::Input || t.first >= points.size()) continue;
      static constexpr const char* kKinds[] = {
          "parameter", "input", "value", "recomputed value", "gradient", "parameter gradient", "workspace"};
      const std::string name = t.node.value < g.size() ? displayName(g.node(t.node).name) : std::string("?");
      starts[t.first].push_back(static_cast<std::int32_t>(out.tensors.size()));
      out.tensors.push_back({name + " (" + kKinds[static_cast<std::size_t>(t.kind)] + ")", t.bytes.value});
      lastStep.push_back(t.last);
    }
    std::set<std::pair<std::int64_t, std::int32_t>> alive;
    std::vector<std::vector<std::int32_t>> ends(points.size() + 1);
    out.largest.assign(points.size(), {-1, -1, -1});
    for (std::size_t s = 0; s < points.size(); ++s) {
      for (std::int32_t k : starts[s]) {
        alive.insert({out.tensors[static_cast<std::size_t>(k)].bytes, k});
        ends[std::min(points.size(), lastStep[static_cast<std::size_t>(k)] + 1)].push_back(k);
      }
      for (std::int32_t k : ends[s]) alive.erase({out.tensors[static_cast<std::size_t>(k)].bytes, k});
      std::size_t n = 0;
      for (auto it = alive.rbegin(); it != alive.rend() && n < 3; ++it, ++n) out.largest[s][n] = it->second;
    }
  }
  out.peak = result.peak.value;
  out.peakStep = result.peakStep;
  if (result.peakStep < schedule.size()) out.peakWhat = stepText(g, schedule[result.peakStep], true);
  return out;
}

namespace {

// A drawn column: the data range [x0, x1) and the step whose memory it shows.
struct Bar {
  double x0;
  double x1;
  std::size_t step;
};

double stepStart(const TimelineSeries& s, std::size_t k, TimelineAxis axis) {
  if (axis == TimelineAxis::Steps) return double(k);
  return k == 0 ? 0.0 : double(s.endTime[k - 1]);
}
double stepEnd(const TimelineSeries& s, std::size_t k, TimelineAxis axis) {
  return axis == TimelineAxis::Steps ? double(k + 1) : double(s.endTime[k]);
}

// Every step when there are few; otherwise one bar per pixel column of the plot, showing the step of
// highest total within it (so the envelope, and the peak, survive the thinning).
std::vector<Bar> barsOf(const TimelineSeries& s, TimelineAxis axis, const Chart& chart) {
  std::vector<Bar> bars;
  const std::size_t n = s.bytes.size();
  const auto columns = static_cast<std::size_t>(std::max(1.0, std::floor(chart.plot().w)));
  if (n <= 2 * columns) {
    for (std::size_t k = 0; k < n; ++k) bars.push_back({stepStart(s, k, axis), stepEnd(s, k, axis), k});
    return bars;
  }
  const double x0 = chart.xAxis().min;
  const double width = (chart.xAxis().max - x0) / double(columns);
  std::size_t k = 0;
  for (std::size_t c = 0; c < columns && k < n; ++c) {
    const double hi = x0 + width * double(c + 1);
    std::size_t best = k;
    const double start = stepStart(s, k, axis);
    while (k < n && (stepEnd(s, k, axis) <= hi || c + 1 == columns)) {
      if (s.total(k) > s.total(best)) best = k;
      ++k;
    }
    if (k == best) {  // a step wider than the column: it gets its own bar
      bars.push_back({start, stepEnd(s, k, axis), k});
      ++k;
      continue;
    }
    bars.push_back({start, stepEnd(s, k - 1, axis), best});
  }
  return bars;
}

// The step function through the bars at heights h(bar), as (x, y) scene points left to right.
template <class Height>
std::vector<Point> stepLine(const std::vector<Bar>& bars, const Chart& chart, Height&& h) {
  std::vector<Point> out;
  out.reserve(2 * bars.size());
  for (const Bar& b : bars) {
    const double y = chart.y(double(h(b)));
    out.push_back({chart.x(b.x0), y});
    out.push_back({chart.x(b.x1), y});
  }
  return out;
}

// The step of `s` running at data time t on a time axis; s.bytes.size() when s is over by then. A step
// that takes no time never runs at any t.
std::size_t stepAtTime(const TimelineSeries& s, double t) {
  const auto it = std::upper_bound(s.endTime.begin(), s.endTime.end(), t,
                                   [](double v, std::int64_t end) { return v < double(end); });
  return std::min(static_cast<std::size_t>(it - s.endTime.begin()), s.bytes.size());
}

// One hover column per bar of the plan that runs longest: it spans the whole x axis, which ends where
// that plan does.
void addStepHotspots(Scene& scene, const TimelineData& data, TimelineAxis axis, const Chart& chart) {
  const TimelineSeries* longest = nullptr;
  for (const TimelineSeries& s : data.series)
    if (!s.bytes.empty() &&
        (!longest || stepEnd(s, s.bytes.size() - 1, axis) > stepEnd(*longest, longest->bytes.size() - 1, axis)))
      longest = &s;
  if (!longest) return;
  const Box& plot = chart.plot();
  const bool ownSteps = axis == TimelineAxis::Time && data.series.size() > 1;
  for (const Bar& b : barsOf(*longest, axis, chart)) {
    const double x0 = chart.x(b.x0);
    const double x1 = chart.x(b.x1);
    if (!(x1 > x0)) continue;  // a step that takes no time has no column on a time axis
    std::string tip = "step " + std::to_string(b.step);
    for (const TimelineSeries& s : data.series) {
      const std::size_t k = !ownSteps || &s == longest ? b.step : stepAtTime(s, (b.x0 + b.x1) / 2);
      tip += "\n" + s.label + ": ";
      if (k >= s.bytes.size()) {
        tip += "finished";
        continue;
      }
      if (ownSteps) tip += "step " + std::to_string(k) + ", ";
      if (k < s.what.size() && !s.what[k].empty()) tip += s.what[k] + " \u00b7 ";
      tip += formatByteSize(Bytes{s.total(k)});
      // What it holds then: by category, and its largest tensors.
      std::string parts;
      for (std::size_t c = 0; c < kMemoryCategories; ++c)
        if (s.bytes[k][c] > 0)
          parts += (parts.empty() ? "" : " \u00b7 ") + std::string(categoryName(static_cast<MemoryCategory>(c))) + " " +
                   formatByteSize(Bytes{s.bytes[k][c]});
      if (!parts.empty()) tip += "\n  " + parts;
      if (k < s.largest.size() && s.largest[k][0] >= 0) {
        tip += "\n  largest:";
        for (std::int32_t t : s.largest[k])
          if (t >= 0)
            tip += (t == s.largest[k][0] ? " " : ", ") + s.tensors[static_cast<std::size_t>(t)].what + " " +
                   formatByteSize(Bytes{s.tensors[static_cast<std::size_t>(t)].bytes});
      }
    }
    scene.hotspots.push_back({Hotspot::Kind::Step, x0, plot.y, x1 - x0, plot.h, b.step, 0, std::move(tip)});
  }
}

const char* phaseName(std::size_t k) {
  static const char* const kNames[] = {"forward", "backward", "recompute"};
  return kNames[k];
}

}  // namespace

Scene timelineScene(const TimelineData& data, const FigureStyle& style, TimelineAxis axis) {
  Scene scene = makeScene(style);
  const Theme& th = style.theme;
  const bool single = data.series.size() == 1;
  double xMax = 1;
  double yMax = 1;
  for (const TimelineSeries& s : data.series) {
    if (!s.bytes.empty()) xMax = std::max(xMax, stepEnd(s, s.bytes.size() - 1, axis));
    yMax = std::max(yMax, double(s.peak));
  }
  // A budget far above every plan (a device's whole memory) would flatten them to the axis: it is named
  // in the legend as above the plot instead of drawn.
  const bool budgetDrawn = data.budget && (data.series.empty() || double(*data.budget) <= 1.5 * yMax);
  if (budgetDrawn) yMax = std::max(yMax, double(*data.budget));
  // Head room above the highest value for the peak label.
  yMax *= 1.0 + std::max(0.08, 30.0 / std::max(100.0, style.height - 140));

  const bool compactLegend = style.width < kCompactLegendWidth;
  // Legend: categories and phases (one plan) or the plans (several); then budget and peak.
  std::vector<LegendEntry> legend;
  std::array<bool, kMemoryCategories> present{};
  std::array<bool, 3> phasesPresent{};
  if (single) {
    const TimelineSeries& s = data.series.front();
    for (std::size_t k = 0; k < s.bytes.size(); ++k) {
      for (std::size_t c = 0; c < kMemoryCategories; ++c) present[c] = present[c] || s.bytes[k][c] > 0;
      phasesPresent[static_cast<std::size_t>(s.phase[k])] = true;
    }
    for (std::size_t c = 0; c < kMemoryCategories; ++c)
      if (present[c])
        legend.push_back({std::string(categoryName(static_cast<MemoryCategory>(c))),
                          LegendEntry::Kind::Swatch,
                          th.categories[c],
                          {}});
    for (std::size_t p = 0; p < 3; ++p)
      if (phasesPresent[p])
        legend.push_back({std::string(phaseName(p)) + " phase", LegendEntry::Kind::Swatch, Fill{th.phases[p]}, {}});
  } else {
    for (std::size_t k = 0; k < data.series.size(); ++k) {
      const std::size_t st = data.series[k].style.value_or(k);
      // On a narrow canvas (a paper's column) the peaks are left to the markers, so that the legend
      // holds several plans a row and leaves the plot its height.
      legend.push_back(
          {data.series[k].label + (compactLegend ? "" : " (peak " + formatBytes(double(data.series[k].peak)) + ")"),
           LegendEntry::Kind::Line,
           {},
           th.seriesStroke(st),
           th.seriesMarker(st),
           th.background});
    }
  }
  if (data.budget)
    legend.push_back({"budget " + formatBytes(double(*data.budget)) + (budgetDrawn ? "" : ", above the plot"),
                      LegendEntry::Kind::Line,
                      {},
                      Stroke{th.budget, 1.2, Dash::Dashed}});
  // One plan: its marker's colour; several: a neutral one, as each plan marks its peak in its colour.
  legend.push_back({single ? "peak" : (compactLegend ? "peaks" : "peak of each plan"), LegendEntry::Kind::Marker,
                    Fill{single ? th.peak : th.background}, Stroke{th.foreground, 0.8}});

  const Axis xAxis = axis == TimelineAxis::Steps ? Axis{0, xMax, "schedule step", AxisFormat::Integer}
                                                 : durationAxis(0, xMax, "compute time", data.timeUnit);
  Chart chart(scene, style, xAxis, Axis{0, yMax, "memory", AxisFormat::Bytes}, legend);
  const Box& plot = chart.plot();

  // Phases behind everything (one plan only: several plans have their phases at different places).
  if (single) {
    const TimelineSeries& s = data.series.front();
    std::size_t begin = 0;
    for (std::size_t k = 1; k <= s.phase.size(); ++k) {
      if (k < s.phase.size() && s.phase[k] == s.phase[begin]) continue;
      const double x0 = chart.x(stepStart(s, begin, axis));
      const double x1 = chart.x(stepEnd(s, k - 1, axis));
      const Color c = th.phases[static_cast<std::size_t>(s.phase[begin])];
      if (c != th.background) scene.add(RectItem{x0, plot.y, x1 - x0, plot.h, Fill{c}, std::nullopt});
      begin = k;
    }
  }
  chart.background();
  chart.pushClip();
  std::vector<std::pair<Point, std::size_t>> peaks;    // with the series' style
  std::vector<std::pair<Point, std::size_t>> markers;  // likewise
  for (std::size_t k = 0; k < data.series.size(); ++k) {
    const TimelineSeries& s = data.series[k];
    if (s.bytes.empty()) continue;
    const std::vector<Bar> bars = barsOf(s, axis, chart);
    if (single) {
      // Stacked areas, bottom to top in category order.
      for (std::size_t c = 0; c < kMemoryCategories; ++c) {
        if (!present[c]) continue;
        auto below = [&](const Bar& b) {
          std::int64_t sum = 0;
          for (std::size_t d = 0; d < c; ++d) sum += s.bytes[b.step][d];
          return sum;
        };
        auto above = [&](const Bar& b) { return below(b) + s.bytes[b.step][c]; };
        std::vector<Point> polygon = stepLine(bars, chart, above);
        std::vector<Point> bottom = stepLine(bars, chart, below);
        polygon.insert(polygon.end(), bottom.rbegin(), bottom.rend());
        scene.add(PolygonItem{std::move(polygon), th.categories[c], std::nullopt});
      }
      scene.add(PolylineItem{stepLine(bars, chart, [&](const Bar& b) { return s.total(b.step); }),
                             Stroke{th.foreground, 0.8}});
    } else {
      const std::size_t st = s.style.value_or(k);
      scene.add(
          PolylineItem{stepLine(bars, chart, [&](const Bar& b) { return s.total(b.step); }), th.seriesStroke(st, 1.6)});
      // Its markers along the line, each plan's at other places, so that lines that run together are
      // still told apart (and in grey print).
      constexpr std::size_t kMarkers = 6;
      const double end = stepEnd(s, s.bytes.size() - 1, axis);
      for (std::size_t m = 0; m < kMarkers; ++m) {
        const double at = end * (double(m) + double(k + 1) / double(data.series.size() + 1)) / double(kMarkers);
        std::size_t step = 0;
        if (axis == TimelineAxis::Steps)
          step = std::min(s.bytes.size() - 1, static_cast<std::size_t>(at));
        else
          step = std::min(s.bytes.size() - 1, stepAtTime(s, at));
        markers.push_back({{chart.x(at), chart.y(double(s.total(step)))}, st});
      }
    }
    peaks.push_back(
        {{chart.x((stepStart(s, s.peakStep, axis) + stepEnd(s, s.peakStep, axis)) / 2), chart.y(double(s.peak))},
         s.style.value_or(k)});
  }
  for (const auto& [at, seriesStyle] : markers)
    drawMarker(scene, at, th.seriesMarker(seriesStyle), 3.2, th.seriesColor(seriesStyle), th.background);
  if (budgetDrawn)
    scene.add(PolylineItem{{{plot.x, chart.y(double(*data.budget))}, {plot.right(), chart.y(double(*data.budget))}},
                           Stroke{th.budget, 1.2, Dash::Dashed}});
  chart.popClip();

  // Peak markers on top, unclipped so that a marker at the edge stays whole.
  for (const auto& [at, seriesStyle] : peaks) {
    const Color c = single ? th.peak : th.seriesColor(seriesStyle);
    scene.add(EllipseItem{at, 4, 4, Fill{c}, Stroke{th.foreground, 0.8}});
  }
  if (single && !peaks.empty()) {
    const TimelineSeries& s = data.series.front();
    const std::string text = "peak " + formatBytes(double(s.peak)) + (s.peakWhat.empty() ? "" : " at " + s.peakWhat);
    const double width = style.text().width(text, th.smallFontSize);
    // Beside the marker, turned towards the middle of the plot, above the data.
    const bool left = peaks[0].first.x + 8 + width > plot.right();
    scene.add(TextItem{{peaks[0].first.x + (left ? -8 : 8), peaks[0].first.y - 6},
                       text,
                       th.smallFontSize,
                       th.foreground,
                       left ? Anchor::End : Anchor::Start,
                       Baseline::Bottom});
  }
  chart.foreground();
  addStepHotspots(scene, data, axis, chart);
  return scene;
}

}  // namespace remat::viz
