#include "remat/viz/ScheduleMatrix.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

#include "remat/viz/Chart.hpp"
#include "remat/viz/NodeLabel.hpp"

namespace remat::viz {

using sim::StepKind;
using sim::TensorLifetime;

std::optional<CellState> ScheduleMatrix::state(std::size_t row, std::size_t step) const {
  const std::vector<MatrixRun>& r = runs.at(row);
  const auto it =
      std::upper_bound(r.begin(), r.end(), step, [](std::size_t s, const MatrixRun& m) { return s < m.first; });
  if (it == r.begin()) return std::nullopt;
  const MatrixRun& m = *(it - 1);
  return step <= m.last ? std::optional<CellState>(m.state) : std::nullopt;
}

namespace {

struct StepInterval {
  std::size_t first;
  std::size_t last;
};

struct Event {
  std::size_t step;
  CellState state;
};

// Appends a run, joining it to the previous one when they touch and agree, so that runs come out
// maximal.
void emit(std::vector<MatrixRun>& out, std::size_t first, std::size_t last, CellState state) {
  if (!out.empty() && out.back().state == state && out.back().last + 1 == first)
    out.back().last = last;
  else
    out.push_back({first, last, state});
}

// One row: the alive intervals (disjoint, a value is never in memory twice) cut by the row's own steps,
// which win over Alive.
std::vector<MatrixRun> rowRuns(std::vector<StepInterval>& alive, const std::vector<Event>& events) {
  std::sort(alive.begin(), alive.end(), [](const StepInterval& a, const StepInterval& b) { return a.first < b.first; });
  std::vector<MatrixRun> out;
  std::size_t e = 0;
  std::size_t next = 0;  // the first step not yet covered by `out`
  for (const StepInterval& iv : alive) {
    for (; e < events.size() && events[e].step < iv.first; ++e) {
      emit(out, events[e].step, events[e].step, events[e].state);
      next = events[e].step + 1;
    }
    std::size_t from = std::max(iv.first, next);
    for (; e < events.size() && events[e].step <= iv.last; ++e) {
      const std::size_t s = events[e].step;
      if (s > from) emit(out, from, s - 1, CellState::Alive);
      emit(out, s, s, events[e].state);
      from = s + 1;
    }
    if (from <= iv.last) emit(out, from, iv.last, CellState::Alive);
    next = std::max(next, iv.last + 1);
  }
  for (; e < events.size(); ++e) emit(out, events[e].step, events[e].step, events[e].state);
  return out;
}

}  // namespace

ScheduleMatrix buildScheduleMatrix(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                   const sim::SimulationResult& result) {
  if (!result.valid() || result.timeline.size() != schedule.size())
    throw ScheduleMatrixError("the schedule matrix needs the valid simulation of the same schedule");
  const std::size_t rows = g.opCount();
  ScheduleMatrix m;
  m.steps = schedule.size();
  m.rows.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) m.rows.push_back(g.opNode(graph::OpIndex{static_cast<std::uint32_t>(r)}));

  std::vector<std::vector<Event>> events(rows);
  std::vector<bool> computed(rows, false);
  bool needsLifetimes = false;
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    const sim::Step& step = schedule[s];
    if (!g.isOp(step.node) || step.node.value >= g.size()) continue;  // a valid result rules this out
    const std::size_t r = g.opIndex(step.node).value;
    if (step.kind == StepKind::Forward) {
      events[r].push_back({s, computed[r] ? CellState::Recomputed : CellState::Computed});
      computed[r] = true;
      needsLifetimes = needsLifetimes || g.node(step.node).bytes.value > 0;
    } else if (step.kind == StepKind::Backward) {
      events[r].push_back({s, CellState::Backward});
    }
  }
  // Every forward of a non-empty value starts a lifetime, so none at all means they were not recorded.
  if (needsLifetimes && result.lifetimes.empty())
    throw ScheduleMatrixError(
        "the schedule matrix needs the simulation's lifetimes (SimulatorOptions::recordLifetimes)");

  std::vector<std::vector<StepInterval>> alive(rows);
  for (const TensorLifetime& t : result.lifetimes) {
    if (t.kind != TensorLifetime::Kind::Value && t.kind != TensorLifetime::Kind::Recomputed) continue;
    if (!g.isOp(t.node) || t.node.value >= g.size() || t.last >= m.steps || t.first > t.last)
      throw ScheduleMatrixError("a value lifetime lies outside the graph or the schedule");
    alive[g.opIndex(t.node).value].push_back({t.first, t.last});
  }

  m.runs.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) m.runs.push_back(rowRuns(alive[r], events[r]));
  return m;
}

namespace {

constexpr std::array<CellState, 4> kStates = {CellState::Computed, CellState::Recomputed, CellState::Backward,
                                              CellState::Alive};

const char* stateName(CellState s) {
  switch (s) {
    case CellState::Computed: return "computed";
    case CellState::Recomputed: return "recomputed";
    case CellState::Backward: return "backward";
    case CellState::Alive: return "kept in memory";
  }
  return "?";
}

Fill stateFill(const Theme& th, CellState s) {
  switch (s) {
    case CellState::Computed: return Fill{th.role(NodeRole::Kept)};
    case CellState::Recomputed: return Fill{th.role(NodeRole::Recomputed)};
    case CellState::Backward: return Fill{th.seriesColor(2)};
    case CellState::Alive: return Fill{mix(th.role(NodeRole::Kept), th.background, 0.72)};
  }
  return Fill{th.foreground};
}

// Moves an item right: the chart is laid out narrower than the canvas, leaving the row labels room
// at the left. What lies wholly above the plot (title, legend) stays, aligned with the other figures.
void shiftRight(Item& item, double dx, double plotTop) {
  std::visit(
      [dx, plotTop](auto& it) {
        using T = std::decay_t<decltype(it)>;
        if constexpr (std::is_same_v<T, RectItem> || std::is_same_v<T, PushClipItem>) {
          if (it.y + it.h >= plotTop) it.x += dx;
        } else if constexpr (std::is_same_v<T, EllipseItem>) {
          if (it.center.y + it.ry >= plotTop) it.center.x += dx;
        } else if constexpr (std::is_same_v<T, TextItem>) {
          if (it.at.y >= plotTop) it.at.x += dx;
        } else if constexpr (!std::is_same_v<T, PopClipItem>) {
          const bool above =
              std::all_of(it.points.begin(), it.points.end(), [&](const Point& p) { return p.y < plotTop; });
          if (!above)
            for (Point& p : it.points) p.x += dx;
        }
      },
      item);
}

}  // namespace

Scene scheduleMatrixScene(const ScheduleMatrix& matrix, const graph::ComputeGraph& g, const FigureStyle& style,
                          const RowMarks& marks) {
  const Theme& th = style.theme;
  const TextMetrics& tm = style.text();
  constexpr double kMatrixPad = 12;  // the chart's outer margin, mirrored for the row labels
  constexpr double kTick = 3;
  constexpr double kLabelGap = 4;
  constexpr std::size_t kMaxNamedRows = 40;

  std::array<bool, kStates.size()> present{};
  for (const auto& row : matrix.runs)
    for (const MatrixRun& r : row) present[static_cast<std::size_t>(r.state)] = true;
  std::vector<LegendEntry> legend;
  for (CellState s : kStates)
    if (present[static_cast<std::size_t>(s)])
      legend.push_back({stateName(s), LegendEntry::Kind::Swatch, stateFill(th, s), {}});
  // The user's marks on rows, as the checkpoint drawing has them on boxes.
  const Stroke keepStroke{th.foreground, 1.6, Dash::Solid};
  const Stroke recomputeStroke{th.foreground, 1.6, Dash::Dashed};
  const Stroke foundStroke{th.peak, 1.8, Dash::Solid};
  auto shown = [&](const std::vector<graph::NodeId>& nodes) {
    return std::any_of(nodes.begin(), nodes.end(), [&](graph::NodeId v) {
      return std::find(matrix.rows.begin(), matrix.rows.end(), v) != matrix.rows.end();
    });
  };
  if (shown(marks.keep)) legend.push_back({"pinned: keep", LegendEntry::Kind::Line, {}, keepStroke});
  if (shown(marks.recompute)) legend.push_back({"pinned: recompute", LegendEntry::Kind::Line, {}, recomputeStroke});
  if (marks.found && shown({*marks.found})) legend.push_back({"found", LegendEntry::Kind::Line, {}, foundStroke});

  const std::size_t rows = matrix.rows.size();
  const bool named = rows <= kMaxNamedRows;
  // The chart draws no y ticks (an Integer axis over (0.25, 0.75) holds no integer): it cannot count
  // downwards, so rows are placed and labelled here, the first operation on top.
  // The x axis ends after the last cell drawn: the frees that close a schedule (a step each, with
  // nothing of the matrix in them) would otherwise leave an empty band on the right.
  std::size_t drawnSteps = 0;
  for (const auto& row : matrix.runs)
    if (!row.empty()) drawnSteps = std::max(drawnSteps, row.back().last + 1);
  const Axis x{0, static_cast<double>(std::max<std::size_t>(drawnSteps, 1)), "step", AxisFormat::Integer};
  const Axis y{0.25, 0.75, "", AxisFormat::Integer};

  // The plot's height does not depend on the canvas width: a first layout finds the row height and
  // where the chart would start the plot, which sizes the label column.
  Scene probeScene = makeScene(style);
  const Box probe = Chart(probeScene, style, x, y, legend).plot();
  const double rowHeight = rows > 0 ? probe.h / static_cast<double>(rows) : probe.h;
  // Names sit on their rows and must fit them; numbers label every few rows and take the usual size.
  const double labelSize = named ? std::clamp(rowHeight / 1.2, 5.0, th.fontSize) : th.fontSize;
  std::vector<std::pair<std::size_t, std::string>> labels;
  if (named) {
    for (std::size_t r = 0; r < rows; ++r)
      labels.emplace_back(r, elideMiddle(nodeLabel(g.node(matrix.rows[r]).name), style.width * 0.3, labelSize, tm));
  } else {
    const int target = std::max(2, static_cast<int>(probe.h / 40));
    for (double t : niceTicks(0, static_cast<double>(rows - 1), target))
      if (t == std::floor(t))  // a tall canvas may tick half rows
        labels.emplace_back(static_cast<std::size_t>(t), std::to_string(static_cast<std::size_t>(t)));
  }
  double labelWidth = 0;
  for (const auto& l : labels) labelWidth = std::max(labelWidth, tm.width(l.second, labelSize));
  const std::string yTitle = named ? "operation" : "operation (topological index)";
  const double titleHeight = tm.height(th.labelFontSize);
  const double plotLeft = kMatrixPad + titleHeight + kLabelGap + labelWidth + kTick + kLabelGap;
  const double dx = std::max(0.0, plotLeft - probe.x);

  FigureStyle narrow = style;
  narrow.width = std::max(60.0, style.width - dx);
  Scene inner = makeScene(narrow);
  Chart chart(inner, narrow, x, y, std::move(legend));
  chart.background();
  chart.pushClip();
  const Box& plot = chart.plot();
  const double rh = rows > 0 ? plot.h / static_cast<double>(rows) : plot.h;
  for (std::size_t r = 0; r < rows; ++r) {
    const double top = plot.y + static_cast<double>(r) * rh;
    for (const MatrixRun& run : matrix.runs[r]) {
      const double x0 = chart.x(static_cast<double>(run.first));
      inner.add(RectItem{x0, top, chart.x(static_cast<double>(run.last + 1)) - x0, rh, stateFill(th, run.state),
                         std::nullopt});
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const graph::NodeId v = matrix.rows[r];
    const double top = plot.y + static_cast<double>(r) * rh;
    auto outline = [&](const Stroke& stroke) { inner.add(RectItem{plot.x, top, plot.w, rh, std::nullopt, stroke}); };
    if (std::find(marks.keep.begin(), marks.keep.end(), v) != marks.keep.end()) outline(keepStroke);
    if (std::find(marks.recompute.begin(), marks.recompute.end(), v) != marks.recompute.end()) outline(recomputeStroke);
    if (marks.found == v) outline(foundStroke);
  }
  chart.popClip();
  chart.foreground();

  Scene scene = makeScene(style);
  scene.items.reserve(inner.items.size() + 2 * labels.size() + 1);
  for (Item& item : inner.items) {
    shiftRight(item, dx, plot.y);
    scene.items.push_back(std::move(item));
  }
  const double left = plot.x + dx;
  const Stroke axis{th.foreground, 1.0};
  for (const auto& [row, text] : labels) {
    const double cy = plot.y + (static_cast<double>(row) + 0.5) * rh;
    scene.add(PolylineItem{{{left - kTick, cy}, {left, cy}}, axis});
    scene.add(TextItem{{left - kTick - kLabelGap, cy}, text, labelSize, th.foreground, Anchor::End, Baseline::Middle});
  }
  scene.add(TextItem{
      {kMatrixPad, plot.y + plot.h / 2}, yTitle, th.labelFontSize, th.foreground, Anchor::Middle, Baseline::Top, 90});
  // Each row, its label included, answers the mouse as its node (a click shows its details, a right
  // click pins it in Studio).
  scene.hotspots.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r)
    scene.hotspots.push_back({Hotspot::Kind::Node, kMatrixPad, plot.y + static_cast<double>(r) * rh,
                              left + plot.w - kMatrixPad, rh, matrix.rows[r].value, 0,
                              displayName(g.node(matrix.rows[r]).name)});
  return scene;
}

}  // namespace remat::viz
