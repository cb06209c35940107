#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "TestGraphs.hpp"
#include "VizTestSupport.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Chart.hpp"
#include "remat/viz/MemoryLayout.hpp"

using namespace remat;
using namespace remat::viz;
using Kind = sim::TensorLifetime::Kind;
using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

namespace {

struct Plan {
  std::string name;
  sim::Schedule schedule;
};

std::vector<Plan> plans(const graph::ComputeGraph& g) {
  std::vector<Plan> out{{"store-all", sim::storeAllSchedule(g)}};
  for (std::uint32_t parts : {2U, 3U, 5U})
    out.push_back(
        {"canonical, " + std::to_string(parts) + " cuts", sim::canonicalSchedule(g, test::evenLowerSets(g, parts))});
  return out;
}

std::vector<std::pair<std::string, graph::ComputeGraph>> layoutGraphs() {
  std::vector<std::pair<std::string, graph::ComputeGraph>> out;
  for (std::uint32_t seed = 1; seed <= 6; ++seed)
    out.emplace_back("random DAG seed " + std::to_string(seed), test::makeRandomDag(40, seed));
  out.emplace_back("U-Net depth 4", test::makeUNet(4));
  out.emplace_back("chain of 12", test::makeChain(12));
  return out;
}

// The overlap check by definition, to hold CGAL's answer against.
Pairs bruteForceOverlaps(const MemoryLayout& layout) {
  Pairs out;
  const auto& ts = layout.tensors;
  for (std::size_t i = 0; i < ts.size(); ++i)
    for (std::size_t j = i + 1; j < ts.size(); ++j) {
      const auto& a = ts[i];
      const auto& b = ts[j];
      const bool sameTime = a.tensor.first <= b.tensor.last && b.tensor.first <= a.tensor.last;
      const bool sameAddress = a.offset.value < b.offset.value + b.tensor.bytes.value &&
                               b.offset.value < a.offset.value + a.tensor.bytes.value;
      if (sameTime && sameAddress && a.tensor.bytes.value > 0 && b.tensor.bytes.value > 0) out.emplace_back(i, j);
    }
  return out;
}

bool resident(Kind k) { return k == Kind::Param || k == Kind::Input; }

}  // namespace

TEST_CASE("layouts of store-all and canonical plans keep live tensors apart") {
  for (const auto& [graphName, g] : layoutGraphs())
    for (const Plan& plan : plans(g)) {
      INFO(graphName << ", " << plan.name);
      const auto r = test::simulateWithLifetimes(g, plan.schedule);
      REQUIRE(r.valid());
      const MemoryLayout layout = planMemoryLayout(r.lifetimes, plan.schedule.size());
      REQUIRE(layout.tensors.size() == r.lifetimes.size());
      CHECK(overlappingTensors(layout).empty());
      CHECK(bruteForceOverlaps(layout).empty());
      CHECK(layout.peakLiveBytes == r.peak);
      CHECK(layout.arenaBytes >= layout.peakLiveBytes);
      CHECK(layout.fragmentation >= 0.0);
      CHECK(layout.fragmentation < 1.0);
      // Parameters and inputs fill [0, resident) and nothing else goes there.
      std::int64_t residentBytes = 0;
      for (const auto& p : layout.tensors)
        if (resident(p.tensor.kind)) residentBytes += p.tensor.bytes.value;
      for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
        const auto& p = layout.tensors[i];
        CHECK(p.tensor.kind == r.lifetimes[i].kind);
        CHECK(p.tensor.node == r.lifetimes[i].node);
        CHECK(p.offset.value >= 0);
        CHECK(p.offset.value + p.tensor.bytes.value <= layout.arenaBytes.value);
        if (resident(p.tensor.kind))
          CHECK(p.offset.value + p.tensor.bytes.value <= residentBytes);
        else if (p.tensor.bytes.value > 0)
          CHECK(p.offset.value >= residentBytes);
      }
    }
}

TEST_CASE("greedy by size lays a chain's store-all plan without fragmentation") {
  const auto g = test::makeChain(12);
  const auto schedule = sim::storeAllSchedule(g);
  const auto layout = planMemoryLayout(test::simulateWithLifetimes(g, schedule).lifetimes, schedule.size());
  CHECK(layout.arenaBytes == layout.peakLiveBytes);
  CHECK(layout.fragmentation == 0.0);
}

TEST_CASE("CGAL's overlap check agrees with the pairwise one, also on a corrupted layout") {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    const auto g = test::makeRandomDag(200, seed);
    const auto schedule = sim::canonicalSchedule(g, test::evenLowerSets(g, 4));
    const auto r = test::simulateWithLifetimes(g, schedule);
    REQUIRE(r.valid());
    MemoryLayout layout = planMemoryLayout(r.lifetimes, schedule.size());
    INFO("seed " << seed);
    CHECK(overlappingTensors(layout) == bruteForceOverlaps(layout));
    // Move one tensor onto another that is alive at a common step.
    std::size_t a = 0;
    std::size_t b = 0;
    bool found = false;
    for (std::size_t i = 0; i < layout.tensors.size() && !found; ++i)
      for (std::size_t j = i + 1; j < layout.tensors.size() && !found; ++j) {
        const auto& x = layout.tensors[i].tensor;
        const auto& y = layout.tensors[j].tensor;
        if (!resident(x.kind) && !resident(y.kind) && x.first <= y.last && y.first <= x.last && x.bytes.value > 0 &&
            y.bytes.value > 0) {
          a = i;
          b = j;
          found = true;
        }
      }
    REQUIRE(found);
    layout.tensors[b].offset = layout.tensors[a].offset;
    const Pairs cgal = overlappingTensors(layout);
    CHECK(cgal == bruteForceOverlaps(layout));
    CHECK(std::find(cgal.begin(), cgal.end(), std::make_pair(a, b)) != cgal.end());
  }
}

TEST_CASE("tensors that only touch in time or in address do not overlap") {
  MemoryLayout layout;
  layout.steps = 4;
  auto add = [&](std::size_t first, std::size_t last, std::int64_t offset, std::int64_t bytes) {
    sim::TensorLifetime t;
    t.bytes = Bytes{bytes};
    t.first = first;
    t.last = last;
    layout.tensors.push_back({t, Bytes{offset}});
  };
  add(0, 1, 0, 10);  // 0
  add(2, 3, 0, 10);  // 1: born after 0 is freed, same addresses
  add(0, 3, 10, 5);  // 2: right above 0 and 1
  add(1, 1, 14, 1);  // 3: inside 2's top byte at step 1
  add(1, 2, 3, 0);   // 4: empty, overlaps nothing
  const Pairs expected{{2, 3}};
  CHECK(overlappingTensors(layout) == expected);
  CHECK(bruteForceOverlaps(layout) == expected);
}

TEST_CASE("greedy by size takes the smallest gap that fits, else the top") {
  std::vector<sim::TensorLifetime> ts;
  auto add = [&](Kind kind, std::int64_t bytes, std::size_t first, std::size_t last) {
    sim::TensorLifetime t;
    t.kind = kind;
    t.bytes = Bytes{bytes};
    t.first = first;
    t.last = last;
    ts.push_back(t);
  };
  add(Kind::Value, 100, 0, 0);  // P
  add(Kind::Value, 90, 0, 1);   // Q, above P
  add(Kind::Value, 80, 0, 0);   // R, above Q
  add(Kind::Value, 70, 0, 1);   // S, above R
  // At step 1 Q and S leave gaps of 100 (below Q) and 80 (between them).
  add(Kind::Value, 60, 1, 1);  // N: both fit, the tighter upper one wins
  add(Kind::Value, 55, 1, 1);  // M: only the lower one fits now
  add(Kind::Grad, 50, 1, 1);   // K: none fits, on top
  add(Kind::Param, 10, 0, 1);  // resident: at 0, everything else above it
  const MemoryLayout layout = planMemoryLayout(ts, 2);
  std::vector<std::int64_t> offsets;
  for (const auto& p : layout.tensors) offsets.push_back(p.offset.value);
  CHECK(offsets == std::vector<std::int64_t>{10, 110, 200, 280, 200, 10, 350, 0});
  CHECK(layout.arenaBytes == Bytes{400});
  CHECK(layout.peakLiveBytes == Bytes{350});
  CHECK(layout.fragmentation == Approx(0.125));
  CHECK(overlappingTensors(layout).empty());
}

TEST_CASE("a lifetime outside the schedule is refused") {
  sim::TensorLifetime t;
  t.bytes = Bytes{4};
  t.first = 2;
  t.last = 5;
  CHECK_THROWS_AS(planMemoryLayout({t}, 5), InvalidLifetime);
  t.last = 1;
  CHECK_THROWS_AS(planMemoryLayout({t}, 5), InvalidLifetime);
  t.last = 4;
  CHECK(planMemoryLayout({t}, 5).arenaBytes == Bytes{4});
  CHECK(planMemoryLayout({}, 0).fragmentation == 0.0);
}

TEST_CASE("the layout figure keeps every tensor inside the plot and the numbers above it") {
  for (const auto& [graphName, g] : layoutGraphs()) {
    const auto schedule = sim::canonicalSchedule(g, test::evenLowerSets(g, 3));
    const auto r = test::simulateWithLifetimes(g, schedule);
    REQUIRE(r.valid());
    const MemoryLayout layout = planMemoryLayout(r.lifetimes, schedule.size());
    for (const Theme& theme : {Theme::screen(), Theme::paper()}) {
      INFO(graphName);
      FigureStyle style;
      style.theme = theme;
      style.title = "Memory layout";
      const Scene scene = memoryLayoutScene(layout, g, style);
      const Box canvas{0, 0, style.width, style.height};
      std::optional<Box> plot;
      std::size_t dataRects = 0;
      bool inPlot = false;
      bool annotated = false;
      for (const Item& item : scene.items) {
        if (const auto* c = std::get_if<PushClipItem>(&item)) {
          plot = Box{c->x, c->y, c->w, c->h};
          inPlot = true;
        } else if (std::holds_alternative<PopClipItem>(item)) {
          inPlot = false;
        } else if (const auto* rect = std::get_if<RectItem>(&item); rect && inPlot) {
          ++dataRects;
          CHECK(plot->contains(Box{rect->x, rect->y, rect->w, rect->h}));
        } else if (const auto* text = std::get_if<TextItem>(&item)) {
          if (text->text.find("fragmentation") != std::string::npos) {
            annotated = true;
            CHECK(text->at.y < plot->y);  // drawn after the plot, above it
          }
        }
      }
      REQUIRE(plot);
      CHECK(canvas.contains(*plot));
      CHECK(annotated);
      // One rectangle per tensor, except for one per resident kind.
      std::size_t expected = 0;
      bool params = false;
      bool inputs = false;
      for (const auto& p : layout.tensors) {
        if (p.tensor.bytes.value <= 0) continue;
        if (p.tensor.kind == Kind::Param)
          params = true;
        else if (p.tensor.kind == Kind::Input)
          inputs = true;
        else
          ++expected;
      }
      CHECK(dataRects == expected + (params ? 1 : 0) + (inputs ? 1 : 0));
    }
  }
}
