#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "TestGraphs.hpp"
#include "VizTestSupport.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/Chart.hpp"
#include "remat/viz/ScheduleMatrix.hpp"

using namespace remat;
using namespace remat::viz;
using sim::StepKind;

namespace {

std::vector<std::pair<std::string, graph::ComputeGraph>> matrixGraphs() {
  std::vector<std::pair<std::string, graph::ComputeGraph>> out;
  for (std::uint32_t seed = 1; seed <= 6; ++seed)
    out.emplace_back("random DAG seed " + std::to_string(seed), test::makeRandomDag(30, seed));
  out.emplace_back("U-Net depth 4", test::makeUNet(4));
  out.emplace_back("chain of 10", test::makeChain(10));
  return out;
}

bool computing(std::optional<CellState> s) { return s == CellState::Computed || s == CellState::Recomputed; }
bool holdsValue(std::optional<CellState> s) { return computing(s) || s == CellState::Alive; }

}  // namespace

TEST_CASE("the schedule matrix shows each step once and the kept values byte for byte") {
  for (const auto& [graphName, g] : matrixGraphs())
    for (std::uint32_t parts : {1U, 2U, 4U}) {
      const sim::Schedule schedule =
          parts == 1 ? sim::storeAllSchedule(g) : sim::canonicalSchedule(g, test::evenLowerSets(g, parts));
      const auto r = test::simulateWithLifetimes(g, schedule);
      REQUIRE(r.valid());
      const ScheduleMatrix m = buildScheduleMatrix(g, schedule, r);
      INFO(graphName << ", " << parts << " segments");
      REQUIRE(m.steps == schedule.size());
      REQUIRE(m.rows.size() == g.opCount());
      REQUIRE(m.runs.size() == g.opCount());
      for (std::size_t row = 0; row < m.rows.size(); ++row) {
        CHECK(m.rows[row] == g.opNode(graph::OpIndex{static_cast<std::uint32_t>(row)}));
        const auto& runs = m.runs[row];
        for (std::size_t k = 0; k < runs.size(); ++k) {
          CHECK(runs[k].first <= runs[k].last);
          CHECK(runs[k].last < m.steps);
          if (k > 0) {
            CHECK(runs[k - 1].last < runs[k].first);  // sorted and disjoint
            // Maximal: touching runs differ.
            if (runs[k - 1].last + 1 == runs[k].first) CHECK(runs[k - 1].state != runs[k].state);
          }
        }
      }
      std::size_t recomputedCells = 0;
      std::vector<bool> seen(g.size(), false);
      for (std::size_t s = 0; s < schedule.size(); ++s) {
        INFO("step " << s << ": " << sim::describeStep(g, schedule[s]));
        const graph::NodeId v = schedule[s].node;
        std::size_t computeCells = 0;
        std::size_t backwardCells = 0;
        std::int64_t valueBytes = 0;
        for (std::size_t row = 0; row < m.rows.size(); ++row) {
          const auto state = m.state(row, s);
          const bool own = m.rows[row] == v;
          if (computing(state)) {
            ++computeCells;
            CHECK(own);
            CHECK(schedule[s].kind == StepKind::Forward);
            CHECK((state == CellState::Recomputed) == seen[v.value]);
            if (state == CellState::Recomputed) ++recomputedCells;
          }
          if (state == CellState::Backward) {
            ++backwardCells;
            CHECK(own);
          }
          if (holdsValue(state)) valueBytes += g.node(m.rows[row]).bytes.value;
        }
        CHECK(computeCells == (schedule[s].kind == StepKind::Forward ? 1U : 0U));
        CHECK(backwardCells == (schedule[s].kind == StepKind::Backward ? 1U : 0U));
        if (schedule[s].kind == StepKind::Forward) seen[v.value] = true;
        // A backward's own cell hides whether its value is in memory; the lifetimes tell.
        if (schedule[s].kind == StepKind::Backward)
          for (const auto& t : r.lifetimes)
            if (t.node == v && t.first <= s && s <= t.last &&
                (t.kind == sim::TensorLifetime::Kind::Value || t.kind == sim::TensorLifetime::Kind::Recomputed))
              valueBytes += t.bytes.value;
        const auto& during = r.timeline.points()[s].during;
        CHECK(valueBytes == (during.values + during.recomputed).value);
      }
      CHECK(recomputedCells == r.recomputations);
      if (parts == 1) CHECK(recomputedCells == 0);
    }
}

TEST_CASE("a chain's store-all matrix, cell by cell") {
  const auto g = test::makeChain(3);
  const auto schedule = sim::storeAllSchedule(g);  // fwd a0 a1 a2, bwd a2 a1 a0
  const ScheduleMatrix m = buildScheduleMatrix(g, schedule, test::simulateWithLifetimes(g, schedule));
  using S = CellState;
  // Each value is kept until the backward of its consumer, which saves it; a2's own output is needed by
  // no backward and goes at once.
  CHECK(m.runs[0] == std::vector<MatrixRun>{{0, 0, S::Computed}, {1, 4, S::Alive}, {5, 5, S::Backward}});
  CHECK(m.runs[1] == std::vector<MatrixRun>{{1, 1, S::Computed}, {2, 3, S::Alive}, {4, 4, S::Backward}});
  CHECK(m.runs[2] == std::vector<MatrixRun>{{2, 2, S::Computed}, {3, 3, S::Backward}});
  CHECK(m.state(0, 3) == S::Alive);
  CHECK(m.state(2, 5) == std::nullopt);
}

TEST_CASE("the schedule matrix refuses a simulation without lifetimes or of another schedule") {
  const auto g = test::makeChain(4);
  const auto schedule = sim::storeAllSchedule(g);
  CHECK_THROWS_AS(buildScheduleMatrix(g, schedule, test::simulateWithLifetimes(g, schedule, false)),
                  ScheduleMatrixError);
  sim::Schedule shorter(schedule.begin(), schedule.end() - 1);
  CHECK_THROWS_AS(buildScheduleMatrix(g, shorter, test::simulateWithLifetimes(g, schedule)), ScheduleMatrixError);
}

TEST_CASE("the matrix figure keeps runs in the plot and row labels on the canvas") {
  struct Case {
    graph::ComputeGraph g;
    bool named;
  };
  std::vector<Case> cases;
  cases.push_back({test::makeUNet(4), true});
  cases.push_back({test::makeRandomDag(40, 3), true});
  cases.push_back({test::makeRandomDag(150, 2), false});
  for (const Case& c : cases) {
    const auto schedule = sim::canonicalSchedule(c.g, test::evenLowerSets(c.g, 3));
    const ScheduleMatrix m = buildScheduleMatrix(c.g, schedule, test::simulateWithLifetimes(c.g, schedule));
    FigureStyle style;
    style.title = "Schedule";
    const Scene scene = scheduleMatrixScene(m, c.g, style);
    const TextMetrics& tm = style.text();
    std::optional<Box> plot;
    bool inPlot = false;
    std::size_t rects = 0;
    std::size_t runs = 0;
    for (const auto& row : m.runs) runs += row.size();
    std::vector<std::string> rowLabels;
    for (const Item& item : scene.items) {
      if (const auto* clip = std::get_if<PushClipItem>(&item)) {
        plot = Box{clip->x, clip->y, clip->w, clip->h};
        inPlot = true;
      } else if (std::holds_alternative<PopClipItem>(item)) {
        inPlot = false;
      } else if (const auto* r = std::get_if<RectItem>(&item); r && inPlot) {
        ++rects;
        CHECK(plot->contains(Box{r->x, r->y, r->w, r->h}));
      } else if (const auto* t = std::get_if<TextItem>(&item)) {
        REQUIRE(plot);
        double left = t->at.x;
        double right = t->at.x;
        const double w = tm.width(t->text, t->size);
        if (t->rotation == 0) {
          const double before = t->anchor == Anchor::End ? w : t->anchor == Anchor::Middle ? w / 2 : 0;
          left -= before;
          right += w - before;
        }
        CHECK(left >= 0);
        CHECK(right <= style.width);
        if (t->rotation == 0 && t->anchor == Anchor::End && t->at.x < plot->x && t->at.y >= plot->y &&
            t->at.y <= plot->bottom())
          rowLabels.push_back(t->text);
      }
    }
    REQUIRE(plot);
    CHECK(Box{0, 0, style.width, style.height}.contains(*plot));
    CHECK(rects == runs);
    if (c.named) {
      std::vector<std::string> names;
      for (graph::NodeId v : m.rows) names.push_back(c.g.node(v).name);
      CHECK(rowLabels == names);
    } else {
      REQUIRE(rowLabels.size() >= 2);
      CHECK(rowLabels.front() == "0");
      CHECK(rowLabels.size() < m.rows.size());
    }
  }
}
