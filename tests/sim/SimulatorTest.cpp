#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/sim/Simulator.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::sim;

namespace {

//   x(5) -> a(10) -> b(20) -> c(30)
//   a keeps its input x, b keeps its input a, c keeps its own output.
ComputeGraph chain3() {
  return test::makeGraph(
      {{"a", {"x"}, 10, 1, {0}, false}, {"b", {"a"}, 20, 2, {0}, false}, {"c", {"b"}, 30, 3, {}, true}}, 5);
}

Schedule steps(const ComputeGraph& g, std::initializer_list<std::pair<StepKind, const char*>> list) {
  Schedule s;
  for (auto [k, n] : list) s.push_back({k, *g.find(n)});
  return s;
}

constexpr auto F = StepKind::Forward;
constexpr auto B = StepKind::Backward;
constexpr auto Fr = StepKind::Free;
constexpr auto FG = StepKind::FreeGrad;

}  // namespace

TEST_CASE("store-all on a chain with liveness: every step's memory by hand") {
  auto g = chain3();
  auto r = Simulator(g, {.liveness = true}).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  const auto& p = r.timeline.points();
  REQUIRE(p.size() == 6);
  // fwd a, fwd b, fwd c (b dies after its last use here), bwd c (seeds grad c, makes grad b),
  // bwd b (needs a, makes grad a), bwd a.
  CHECK(p[0].during.total() == Bytes{15});
  CHECK(p[1].during.total() == Bytes{35});
  CHECK(p[2].during.total() == Bytes{65});
  CHECK(p[2].after == Bytes{45});
  CHECK(p[3].during.total() == Bytes{95});
  CHECK(p[3].during.grads == Bytes{50});
  CHECK(p[3].after == Bytes{35});
  CHECK(p[4].during.total() == Bytes{45});
  CHECK(p[4].after == Bytes{15});
  CHECK(p[5].during.total() == Bytes{15});
  CHECK(p[5].after == Bytes{5});
  CHECK(r.peak == Bytes{95});
  CHECK(r.peakStep == 3);
  CHECK(r.totalTime == Ticks{12});
  CHECK(r.overhead == Ticks{0});
  CHECK(r.recomputations == 0);
}

TEST_CASE("without liveness nothing is freed unless the schedule says so") {
  auto g = chain3();
  auto r = Simulator(g, {.liveness = false}).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  CHECK(r.peak == Bytes{125});
  CHECK(r.timeline.points().back().after == Bytes{125});

  auto explicitFrees = steps(g, {{F, "a"},
                                 {F, "b"},
                                 {F, "c"},
                                 {Fr, "b"},
                                 {B, "c"},
                                 {Fr, "c"},
                                 {FG, "c"},
                                 {B, "b"},
                                 {FG, "b"},
                                 {Fr, "a"},
                                 {B, "a"},
                                 {FG, "a"}});
  auto r2 = Simulator(g, {.liveness = false}).run(explicitFrees);
  REQUIRE(r2.valid());
  CHECK(r2.peak == Bytes{95});
  CHECK(r2.timeline.points().back().after == Bytes{5});
}

TEST_CASE("recomputation is counted as overhead and split out in the timeline") {
  auto g = chain3();
  auto s = steps(g, {{F, "a"}, {F, "b"}, {Fr, "a"}, {F, "c"}, {B, "c"}, {F, "a"}, {B, "b"}, {B, "a"}});
  auto r = Simulator(g).run(s);
  REQUIRE(r.valid());
  CHECK(r.overhead == Ticks{1});
  CHECK(r.recomputations == 1);
  CHECK(r.recomputedNodes == 1);
  CHECK(r.totalTime == Ticks{13});
  CHECK(r.timeline.points()[5].during.recomputed == Bytes{10});
  // bwd c: x + c + grad c + grad b, with a dropped and b dead after fwd c.
  CHECK(r.timeline.points()[4].during.total() == Bytes{5 + 30 + 30 + 20});
}

TEST_CASE("a schedule whose time passes 2^63 - 1 is refused at that step, never counted wrapped") {
  // One op of 2^58 ticks each way (the graph's total, 2^59, is within the readers' cap), computed 33
  // times: 33 * 2^58 passes 2^63 - 1 at the 32nd forward.
  const ComputeGraph g = test::makeGraph({{"a", {"x"}, 10, std::int64_t{1} << 58, {}, true}}, 5);
  Schedule s;
  for (int k = 0; k < 33; ++k) {
    if (k > 0) s.push_back({Fr, *g.find("a")});
    s.push_back({F, *g.find("a")});
  }
  s.push_back({B, *g.find("a")});
  const auto r = Simulator(g, {.liveness = false}).run(s);
  REQUIRE_FALSE(r.valid());
  CHECK(r.error->timeOverflow);
  CHECK(r.error->step == std::size_t{62});  // 31 forwards and their frees
  CHECK_THAT(r.error->message, Catch::Contains("total time passes 2^63 - 1 ticks"));
  // Three forwards fewer: 30 forwards and the backward, 31 * 2^58, are counted exactly.
  const Schedule shorter(s.begin() + 6, s.end());
  const auto ok = Simulator(g, {.liveness = false}).run(shorter);
  REQUIRE(ok.valid());
  CHECK(ok.overhead == Ticks{(std::int64_t{1} << 58) * 29});
  CHECK(ok.totalTime == Ticks{(std::int64_t{1} << 58) * 31});
  // One more forward and the backward takes the clock to 2^63: refused at the backward.
  const Schedule over(s.begin() + 4, s.end());
  const auto late = Simulator(g, {.liveness = false}).run(over);
  REQUIRE_FALSE(late.valid());
  CHECK(late.error->timeOverflow);
  CHECK(late.error->step == over.size() - 1);
}

TEST_CASE("illegal schedules are rejected with the step and the reason") {
  auto g = chain3();
  auto check = [&](const Schedule& s, std::size_t step, const std::string& text, bool liveness = true) {
    auto r = Simulator(g, {.liveness = liveness}).run(s);
    REQUIRE_FALSE(r.valid());
    CHECK(r.error->step == step);
    CHECK_THAT(r.error->message, Catch::Contains(text));
  };
  check(steps(g, {{F, "b"}}), 0, "step 0 (fwd b): input 'a' is not in memory");
  // With liveness the first value of a is dead at once, so a second forward is a legal recomputation.
  check(steps(g, {{F, "a"}, {F, "a"}}), 1, "already in memory", false);
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {B, "b"}}), 3,
        "the gradient of 'b' is incomplete: the backward of its consumer 'c' has not run");
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {B, "c"}, {Fr, "a"}, {B, "b"}}), 5,
        "the value of its input 'a', which its backward keeps, is not in memory");
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {Fr, "c"}, {B, "c"}}), 4, "its own output");
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {B, "c"}, {B, "c"}}), 4, "already ran");
  check(steps(g, {{F, "a"}, {B, "a"}}), 1, "incomplete");
  // Frees of what does not exist yet are errors with liveness too (it only forgives frees of what it freed).
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {FG, "b"}}), 3, "the gradient of 'b' is freed before it exists", false);
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {FG, "b"}}), 3, "the gradient of 'b' is freed before it exists");
  check(steps(g, {{F, "a"}, {Fr, "b"}}), 1, "the value of 'b' is freed before it is ever computed");
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {B, "c"}, {FG, "b"}}), 4, "freed before its backward ran");
  check(Schedule{{F, *g.find("x")}}, 0, "is an input or parameter");
  check(Schedule{{F, NodeId{99}}}, 0, "node index 99 is not in the graph");
  check(steps(g, {{F, "a"}, {F, "b"}, {F, "c"}, {B, "c"}}), 4, "ends before the backward of 'b'");
}

TEST_CASE("without liveness, freeing what is not there is an error") {
  auto g = chain3();
  auto r = Simulator(g, {.liveness = false}).run(steps(g, {{F, "a"}, {Fr, "a"}, {Fr, "a"}}));
  REQUIRE_FALSE(r.valid());
  CHECK_THAT(r.error->message, Catch::Contains("step 2 (free a): the value of 'a' is not in memory"));
}

//   x -> a -> b -> loss1
//         \-> c -> loss2        (two outputs, each seeded by its own backward)
TEST_CASE("graphs with several outputs simulate, params get gradients once") {
  auto g = test::makeGraph({{"a", {"x", "w"}, 10, 1, {0, 1}, false},
                            {"b", {"a"}, 10, 1, {0}, false},
                            {"c", {"a", "w"}, 10, 1, {0, 1}, false},
                            {"loss1", {"b"}, 1, 1, {0}, false},
                            {"loss2", {"c"}, 1, 1, {0}, false}},
                           4, 100);
  auto r = Simulator(g).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  const auto& last = r.timeline.points().back();
  CHECK(last.during.paramGrads == Bytes{100});
  CHECK(last.after == Bytes{4 + 100 + 100});
}

TEST_CASE("workspace counts only while its step runs") {
  graph::GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 1});
  b.add({.name = "a", .op = "Conv", .inputs = {"x"}, .bytes = 10, .fwdTime = 1, .workspace = 1000});
  auto g = b.build().value();
  auto r = Simulator(g).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  CHECK(r.timeline.points()[0].during.workspace == Bytes{1000});
  CHECK(r.peak == Bytes{1011});
  CHECK(r.timeline.points()[0].after == Bytes{1});  // the output is never used again
}

TEST_CASE("backward workspace is its own, and defaults to the forward's") {
  graph::GraphBuilder b;
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 1});
  b.add({.name = "a", .op = "Conv", .inputs = {"x"}, .bytes = 10, .fwdTime = 1, .workspace = 1000, .bwdWorkspace = 50});
  b.add({.name = "c", .op = "Conv", .inputs = {"a"}, .bytes = 10, .fwdTime = 1, .workspace = 7});
  auto g = b.build().value();
  CHECK(g.node(g.opNode(graph::OpIndex{1})).bwdWorkspace == Bytes{7});  // absent: the forward's
  auto r = Simulator(g).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  const auto& points = r.timeline.points();
  REQUIRE(points.size() == 4);  // forward a, c; backward c, a
  CHECK(points[0].during.workspace == Bytes{1000});
  CHECK(points[1].during.workspace == Bytes{7});
  CHECK(points[2].during.workspace == Bytes{7});
  CHECK(points[3].during.workspace == Bytes{50});
  CHECK(r.peak == Bytes{1011});
}

// The lifetimes are the timeline split by tensor: at every step, the bytes of the tensors alive during
// it add up to the timeline's `during` total, kind by kind, with and without liveness and with
// recomputation; no tensor is alive before it is made or after the schedule ends.
TEST_CASE("recorded lifetimes add up to the timeline at every step") {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    auto g = test::makeRandomDag(10, seed);
    // A plan with recomputation: the first op's closure as one segment, then the rest.
    std::vector<graph::NodeSet> sets;
    graph::NodeSet first(g.opCount());
    first.insert(OpIndex{0});
    sets.push_back(first);
    graph::NodeSet all(g.opCount());
    for (std::uint32_t k = 0; k < g.opCount(); ++k) all.insert(OpIndex{k});
    sets.push_back(all);
    for (const Schedule& schedule : {storeAllSchedule(g), canonicalSchedule(g, sets)})
      for (bool liveness : {true, false}) {
        SimulatorOptions options;
        options.liveness = liveness;
        options.recordLifetimes = true;
        const auto r = Simulator(g, options).run(schedule);
        REQUIRE(r.valid());
        const auto& points = r.timeline.points();
        std::vector<std::int64_t> total(points.size(), 0);
        std::vector<std::int64_t> recomputed(points.size(), 0);
        for (const TensorLifetime& t : r.lifetimes) {
          REQUIRE(t.first <= t.last);
          REQUIRE(t.last < points.size());
          for (std::size_t s = t.first; s <= t.last; ++s) {
            total[s] += t.bytes.value;
            if (t.kind == TensorLifetime::Kind::Recomputed) recomputed[s] += t.bytes.value;
          }
        }
        for (std::size_t s = 0; s < points.size(); ++s) {
          INFO("seed " << seed << " liveness " << liveness << " step " << s);
          CHECK(total[s] == points[s].during.total().value);
          CHECK(recomputed[s] == points[s].during.recomputed.value);
        }
      }
  }
}

namespace {

// x -> a (100 bytes) -> v (a Reshape: 0 bytes, shares a's storage) -> b (10, keeps v) -> c (1)
ComputeGraph viewGraph() {
  return test::makeGraph({{.name = "a", .inputs = {"x"}, .bytes = 100, .savedInputs = {0}},
                          {.name = "v", .inputs = {"a"}, .bytes = 0, .op = "Reshape"},
                          {.name = "b", .inputs = {"v"}, .bytes = 10, .savedInputs = {0}},
                          {.name = "c", .inputs = {"b"}, .bytes = 1}},
                         4);
}

std::vector<std::int64_t> lifetimeTotals(const SimulationResult& r) {
  std::vector<std::int64_t> total(r.timeline.points().size(), 0);
  for (const TensorLifetime& t : r.lifetimes)
    for (std::size_t s = t.first; s <= t.last; ++s) total[s] += t.bytes.value;
  return total;
}

}  // namespace

// As PyTorch keeps them: a view keeps its base's storage after the base is freed, and a view's gradient
// is a full-size tensor. remat-runner measures exactly this (tests/runtime).
TEST_CASE("a view keeps its base's storage alive, and its gradient has the full size") {
  const ComputeGraph g = viewGraph();
  const ViewInfo views = viewInfo(g);
  const NodeId v = *g.find("v");
  CHECK(views.isView[v.value]);
  CHECK_FALSE(views.isView[g.find("a")->value]);
  CHECK(views.gradBytes[v.value] == Bytes{100});
  CHECK(views.gradBytes[g.find("b")->value] == Bytes{10});

  const auto r = Simulator(g, {.liveness = true, .recordLifetimes = true}).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  const auto& p = r.timeline.points();
  REQUIRE(p.size() == 8);  // fwd a, v, b, c; bwd c, b, v, a
  const std::int64_t resident = 4;
  // After v's forward, a is dead (its last use) but v holds the 100 bytes.
  CHECK(p[1].after.value == resident + 100);
  CHECK(p[2].during.values.value == 110);
  // b's backward keeps v and makes v's full-size gradient: 100 (v's storage) + 10 (grad b) + 100 (grad v).
  CHECK(p[5].during.values.value == 100);
  CHECK(p[5].during.grads.value == 110);
  CHECK(r.peak.value == resident + 210);
  CHECK(r.peakStep == 5);
  CHECK(p[5].after.value == resident + 100);  // v freed: its storage goes; grad b freed
  CHECK(p[6].during.grads.value == 200);      // grad v and grad a
  const auto totals = lifetimeTotals(r);
  for (std::size_t s = 0; s < p.size(); ++s) CHECK(totals[s] == p[s].during.total().value);
}

TEST_CASE("a recomputed base gets a new storage while a view holds the old one") {
  const ComputeGraph g = viewGraph();
  const NodeId a = *g.find("a");
  const NodeId v = *g.find("v");
  const Schedule schedule{{StepKind::Forward, a}, {StepKind::Forward, v}, {StepKind::Free, a}, {StepKind::Forward, a}};
  const auto r = Simulator(g, {.liveness = false, .requireComplete = false, .recordLifetimes = true}).run(schedule);
  REQUIRE(r.valid());
  const auto& p = r.timeline.points();
  CHECK(p[2].after.value == 4 + 100);          // freeing a keeps v's (shared) storage
  CHECK(p[3].during.values.value == 100);      // the old storage, now v's
  CHECK(p[3].during.recomputed.value == 100);  // and a new one for the recomputed a
  const auto totals = lifetimeTotals(r);
  for (std::size_t s = 0; s < p.size(); ++s) CHECK(totals[s] == p[s].during.total().value);
}

// remat.torch.capture's graphs: the three slices of a split (views of a third of their base each, their
// shapes given) and a max-pool whose int64 indices are a `Saved` node its backward keeps.
TEST_CASE("a slice's gradient has the slice's size, a Saved node is held to its backward and has no gradient") {
  GraphBuilder b;
  b.setName("captured");
  b.add({.name = "x", .kind = NodeKind::Input, .bytes = 8});
  b.add({.name = "qkv", .op = "Gemm", .inputs = {"x"}, .bytes = 120, .shape = {2, 15}, .dtype = "float32"});
  b.add({.name = "q", .op = "Reshape", .inputs = {"qkv"}, .bytes = 0, .shape = {2, 5}, .dtype = "float32"});
  b.add({.name = "k", .op = "Transpose", .inputs = {"qkv"}, .bytes = 0, .shape = {5, 2}, .dtype = "float32"});
  b.add({.name = "idx", .op = "Saved", .inputs = {"q", "k"}, .bytes = 64});
  b.add({.name = "s", .op = "MatMul", .inputs = {"q", "k", "idx"}, .bytes = 16, .saves = {.inputs = {0, 1, 2}}});
  auto built = b.build();
  REQUIRE(built.ok());
  const ComputeGraph& g = built.value();
  const ViewInfo views = viewInfo(g);
  CHECK(views.isView[g.find("q")->value]);
  CHECK(views.gradBytes[g.find("q")->value] == Bytes{40});  // 2 x 5 floats, not the base's 120
  CHECK(views.gradBytes[g.find("k")->value] == Bytes{40});
  CHECK(views.gradBytes[g.find("idx")->value] == Bytes{0});

  const auto r = Simulator(g, {.liveness = true}).run(storeAllSchedule(g));
  REQUIRE(r.valid());
  const auto& p = r.timeline.points();
  REQUIRE(p.size() == 10);  // fwd qkv, q, k, idx, s; bwd s, idx, k, q, qkv
  // s's backward: qkv's storage (held by q and k) and idx kept (s itself went after its forward, which
  // nothing reads), the seed gradient of s, q's and k's gradients (40 each) and none for idx.
  CHECK(p[5].during.values.value == 120 + 64);
  CHECK(p[5].during.grads.value == 16 + 40 + 40);
  CHECK(p[5].after.value == 8 + 40 + 40);  // what s's backward kept goes with it; q's and k's gradients stay
  CHECK(memoryLowerBound(g).value <= r.peak.value);
}
