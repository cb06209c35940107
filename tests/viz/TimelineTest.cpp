#include <catch2/catch.hpp>

#include <algorithm>

#include "TestGraphs.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Timeline.hpp"

using namespace remat;
using namespace remat::viz;

namespace {

// The highest point of any filled area (scene y grows downwards: the least y).
double topOfAreas(const Scene& scene) {
  double top = 1e300;
  for (const Item& item : scene.items)
    if (const auto* p = std::get_if<PolygonItem>(&item))
      for (const Point& q : p->points) top = std::min(top, q.y);
  return top;
}

}  // namespace

TEST_CASE("timeline data: every step's stacked total is the simulator's, and the peak is its peak") {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const auto g = test::makeRandomDag(24, seed);
    const sim::Schedule schedule = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
    const auto r = sim::Simulator(g).run(schedule);
    REQUIRE(r.valid());
    const TimelineSeries s = timelineSeries(g, schedule, r, "plan");
    REQUIRE(s.bytes.size() == r.timeline.size());
    for (std::size_t k = 0; k < s.bytes.size(); ++k) {
      INFO("seed " << seed << " step " << k);
      CHECK(s.total(k) == r.timeline.points()[k].during.total().value);
      CHECK(s.endTime[k] == r.timeline.points()[k].endTime.value);
    }
    CHECK(s.peak == r.peak.value);
    CHECK(s.peakStep == r.peakStep);
    CHECK(s.total(s.peakStep) == s.peak);
    CHECK(s.peakWhat == sim::describeStep(g, schedule[r.peakStep]));
    // Recomputation steps are marked as such, and only those.
    bool sawRecompute = false;
    for (std::size_t k = 0; k < schedule.size(); ++k)
      if (schedule[k].kind == sim::StepKind::Forward && s.phase[k] == Phase::Recompute) sawRecompute = true;
    CHECK(sawRecompute == (r.recomputations > 0));
  }
}

TEST_CASE("timeline scene: the peak marker sits on top of the drawn data, for short and long schedules") {
  for (int n : {12, 3000}) {  // 3000 ops: more steps than pixel columns, drawn thinned
    const auto g = test::makeChain(n);
    const sim::Schedule schedule = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
    const auto r = sim::Simulator(g).run(schedule);
    REQUIRE(r.valid());
    TimelineData data;
    data.series.push_back(timelineSeries(g, schedule, r, "thirds"));
    data.budget = r.peak.value + 100;
    FigureStyle style;
    const Scene scene = timelineScene(data, style);
    const EllipseItem* marker = nullptr;
    for (const Item& item : scene.items)
      if (const auto* e = std::get_if<EllipseItem>(&item);
          e && e->rx == 4 && e->fill && e->fill->color == style.theme.peak)
        marker = e;
    REQUIRE(marker != nullptr);
    INFO(n << " ops");
    CHECK(marker->center.y == Approx(topOfAreas(scene)));
    // The label names the step.
    bool labelled = false;
    for (const Item& item : scene.items)
      if (const auto* t = std::get_if<TextItem>(&item);
          t && t->text.find(sim::describeStep(g, schedule[r.peakStep])) != std::string::npos)
        labelled = true;
    CHECK(labelled);
    // Long schedules are thinned to about one bar per pixel column.
    std::size_t polygonPoints = 0;
    for (const Item& item : scene.items)
      if (const auto* p = std::get_if<PolygonItem>(&item)) polygonPoints = std::max(polygonPoints, p->points.size());
    CHECK(polygonPoints <= 4 * std::max<std::size_t>(2 * static_cast<std::size_t>(style.width), 1));
  }
}

TEST_CASE("timeline scene overlays several plans, each with its own peak marker") {
  const auto g = test::makeUNet(3);
  const sim::Schedule all = sim::storeAllSchedule(g);
  const sim::Schedule canon = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
  const auto ra = sim::Simulator(g).run(all);
  const auto rc = sim::Simulator(g).run(canon);
  REQUIRE((ra.valid() && rc.valid()));
  TimelineData data;
  data.series.push_back(timelineSeries(g, all, ra, "store all"));
  data.series.push_back(timelineSeries(g, canon, rc, "thirds"));
  for (TimelineAxis axis : {TimelineAxis::Steps, TimelineAxis::Time}) {
    const Scene scene = timelineScene(data, FigureStyle{}, axis);
    std::vector<double> markerYs;
    for (const Item& item : scene.items)
      if (const auto* e = std::get_if<EllipseItem>(&item); e && e->rx == 4) markerYs.push_back(e->center.y);
    REQUIRE(markerYs.size() == 2);
    // Higher peak, higher on the canvas (smaller y).
    CHECK((markerYs[0] < markerYs[1]) == (ra.peak > rc.peak));
  }
}

TEST_CASE("timeline scene: a budget far above every plan is named, not drawn, compute time reads in ms") {
  const auto g = test::makeUNet(3);
  const sim::Schedule canon = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
  const auto r = sim::Simulator(g).run(canon);
  REQUIRE(r.valid());
  TimelineData data;
  data.series.push_back(timelineSeries(g, canon, r, "thirds"));
  data.timeUnit = "ns";
  auto texts = [](const Scene& scene) {
    std::vector<std::string> out;
    for (const Item& item : scene.items)
      if (const auto* t = std::get_if<TextItem>(&item)) out.push_back(t->text);
    return out;
  };
  auto has = [](const std::vector<std::string>& all, const std::string& suffix) {
    return std::any_of(all.begin(), all.end(), [&](const std::string& t) { return t.ends_with(suffix); });
  };
  // 1 TiB over a few MiB: the plan keeps the plot's height, the legend names the budget.
  data.budget = std::int64_t{1} << 40;
  const Scene far = timelineScene(data, FigureStyle{}, TimelineAxis::Time);
  CHECK(has(texts(far), "above the plot"));
  double lowest = 1e9;  // the data's highest point: the smallest y of the drawn total
  for (const Item& item : far.items)
    if (const auto* p = std::get_if<PolylineItem>(&item); p && p->points.size() > 4)
      for (const Point& q : p->points) lowest = std::min(lowest, q.y);
  CHECK(lowest < 200);  // near the top of a 540-high canvas, not flattened to the axis
  // A budget near the peak is drawn as a line across the plot.
  data.budget = r.peak.value;
  const Scene near = timelineScene(data, FigureStyle{}, TimelineAxis::Time);
  CHECK_FALSE(has(texts(near), "above the plot"));
  // Times in ns read as seconds' units on the axis, titled without the raw unit.
  data.series.front().endTime.back() = 60'000'000;  // 60 ms
  const std::vector<std::string> timed = texts(timelineScene(data, FigureStyle{}, TimelineAxis::Time));
  CHECK(has(timed, " ms"));
  CHECK(std::count(timed.begin(), timed.end(), std::string("compute time")) == 1);
}
