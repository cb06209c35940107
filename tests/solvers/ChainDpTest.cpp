#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <queue>
#include <random>
#include <set>

#include "TestGraphs.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/solvers/ChainDp.hpp"
#include "remat/solvers/ChainDpTable.hpp"
#include "remat/solvers/ChainModel.hpp"
#include "remat/solvers/GraphChain.hpp"
#include "remat/solvers/Revolve.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::graph;
using namespace remat::solvers;

namespace {

// A random heterogeneous chain in slot units; the last stage has no output (as a graph's last stage).
ChainModel randomChain(std::size_t length, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  ChainModel m;
  for (std::size_t i = 1; i <= length; ++i) {
    ChainStage s;
    s.forwardTime = draw(1, 10);
    s.backwardTime = draw(1, 10);
    const bool last = i == length;
    s.output = last ? 0 : draw(1, 5);
    s.outputGrad = last ? 0 : draw(1, 5);
    s.tape = s.output + draw(0, 6);
    s.forwardPeak = s.output + draw(0, 3);
    s.forwardAllPeak = std::max(s.tape, s.forwardPeak) + draw(0, 2);
    m.stages.push_back(s);
  }
  for (std::size_t i = 1; i <= length; ++i) {
    ChainStage& s = m.stages[i - 1];
    const std::int64_t inputGrad = i > 1 ? m.stage(i - 1).outputGrad : 0;
    s.backwardPeak = draw(1, s.tape + s.outputGrad + inputGrad + 3);
  }
  return m;
}

// The least time of any operation sequence within `limit`, by Dijkstra over the chain model's states:
// what is held of each activation (nothing, a^i, or the tape ā^i), which are pinned (kept by a forward
// until the backward that needs them), the next backward, and the memory they take. Written from the
// model's rules (ChainModel.hpp), independently of the DP and of runChainOps.
std::optional<std::int64_t> exhaustiveLeastTime(const ChainModel& m, std::int64_t limit) {
  const std::size_t length = m.length();
  struct State {
    std::vector<std::uint8_t> held;  // by stage 1..length (index 0 unused): 0 none, 1 a^i, 2 ā^i
    std::vector<bool> pinned;
    std::size_t next;
    auto operator<=>(const State&) const = default;
  };
  auto memoryOf = [&](const State& s) {
    std::int64_t mem = s.next >= 1 ? m.stage(s.next).outputGrad : 0;
    for (std::size_t i = 1; i <= length; ++i)
      mem += s.held[i] == 1 ? m.stage(i).output : s.held[i] == 2 ? m.stage(i).tape : 0;
    return mem;
  };
  using Entry = std::pair<std::int64_t, State>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  std::map<State, std::int64_t> best;
  State start{std::vector<std::uint8_t>(length + 1, 0), std::vector<bool>(length + 1, false), length};
  queue.push({0, start});
  best[start] = 0;
  while (!queue.empty()) {
    auto [time, s] = queue.top();
    queue.pop();
    if (best[s] < time) continue;
    if (s.next == 0) return time;
    const std::int64_t mem = memoryOf(s);
    auto relax = [&](State n, std::int64_t t) {
      auto it = best.find(n);
      if (it == best.end() || t < it->second) {
        best[n] = t;
        queue.push({t, std::move(n)});
      }
    };
    for (std::size_t i = 1; i <= length; ++i) {
      const ChainStage& st = m.stage(i);
      const bool inputThere = i == 1 || s.held[i - 1] != 0;
      if (i <= s.next && inputThere && s.held[i] == 0) {
        // F_ck and F_all keep (pin) the input; F_∅ drops it when it is a lone, unpinned activation.
        if (mem + st.forwardPeak <= limit) {
          State n = s;
          n.held[i] = 1;
          n.pinned[i - 1] = true;
          relax(n, time + st.forwardTime);
          if (i > 1 && s.held[i - 1] == 1 && !s.pinned[i - 1]) {
            State d = s;
            d.held[i] = 1;
            d.held[i - 1] = 0;
            relax(d, time + st.forwardTime);
          }
        }
        if (mem + st.forwardAllPeak <= limit) {
          State n = s;
          n.held[i] = 2;
          n.pinned[i - 1] = true;
          relax(n, time + st.forwardTime);
        }
      }
      if (i == s.next && s.held[i] == 2 && inputThere && mem - st.tape - st.outputGrad + st.backwardPeak <= limit) {
        State n = s;
        n.held[i] = 0;
        n.pinned[i] = false;
        n.next = i - 1;
        relax(n, time + st.backwardTime);
      }
      if (s.held[i] != 0 && (!s.pinned[i] || s.next <= i)) {
        State n = s;
        n.held[i] = 0;
        n.pinned[i] = false;
        relax(n, time);
      }
    }
  }
  return std::nullopt;
}

// t(l, c) by Griewank's recursion, without the closed form: t(1, c) = 0, t(l, 1) = l(l-1)/2,
// t(l, c) = min over 0 < m < l of m + t(l - m, c - 1) + t(m, c).
std::uint64_t recursiveForwardSteps(std::uint32_t l, std::uint32_t c) {
  static std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> memo;
  if (l == 1) return 0;
  if (c == 1) return std::uint64_t(l) * (l - 1) / 2;
  if (auto it = memo.find({l, c}); it != memo.end()) return it->second;
  std::uint64_t best = UINT64_MAX;
  for (std::uint32_t m = 1; m < l; ++m)
    best = std::min(best, m + recursiveForwardSteps(l - m, c - 1) + recursiveForwardSteps(m, c));
  return memo[{l, c}] = best;
}

// A uniform chain in which keeping a tape past its own backward never fits (x̄ = 1000 against a few
// activations of 1): rotor's model then has only revolve's moves, and c snapshots (x_0's included) are
// a memory of 1000 + c: the tape of the running reversal, c - 1 stored states and the current one.
constexpr std::int64_t kRevolveTape = 1000;
ChainModel revolveLikeChain(std::size_t length) {
  ChainModel m;
  for (std::size_t i = 1; i <= length; ++i)
    m.stages.push_back({.forwardTime = 1,
                        .backwardTime = 1,
                        .output = i == length ? 0 : 1,
                        .tape = kRevolveTape,
                        .outputGrad = 0,
                        .forwardPeak = 1,
                        .forwardAllPeak = kRevolveTape,
                        .backwardPeak = kRevolveTape});
  return m;
}

std::size_t countForwards(const std::vector<ChainOp>& ops) {
  return std::size_t(std::count_if(ops.begin(), ops.end(), [](const ChainOp& o) {
    return o.kind != ChainOpKind::Backward && o.kind != ChainOpKind::Discard;
  }));
}

// A chain graph of random sizes, times and saves (each op saves its input, its output, or both).
ComputeGraph randomChainGraph(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<test::OpSketch> ops;
  for (int i = 0; i < n; ++i) {
    test::OpSketch o{"a" + std::to_string(i), {i == 0 ? "x" : "a" + std::to_string(i - 1)}, draw(1, 100), draw(1, 10)};
    const auto kind = draw(0, 2);
    if (kind != 1) o.savedInputs = {0};
    o.savesOutput = kind != 0;
    ops.push_back(std::move(o));
  }
  return test::makeGraph(ops, 5, 0);
}

}  // namespace

TEST_CASE("chain DP equals an exhaustive search over the chain model's schedules") {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const std::size_t length = 3 + seed % 4;  // 3..6 stages
    const ChainModel model = randomChain(length, seed);
    const std::int64_t top = storeAllMemory(model);
    const ChainDpTable table(model, top + 2);
    REQUIRE(table.complete());
    for (std::int64_t limit = 0; limit <= top + 2; ++limit) {
      INFO("random chain seed " << seed << ", " << length << " stages, memory " << limit);
      const std::optional<std::int64_t> expected = exhaustiveLeastTime(model, limit);
      const std::optional<std::int64_t> dp = table.cost(limit);
      REQUIRE(dp.has_value() == expected.has_value());
      if (!dp) continue;
      CHECK(*dp == *expected);
      const ChainRun run = runChainOps(model, table.ops(limit));
      REQUIRE(run.valid);
      CHECK(run.time == *dp);
      CHECK(run.peak <= limit);
    }
    CHECK(table.cost(top) == model.storeAllTime());
  }
}

TEST_CASE("the chain model rejects illegal operation sequences") {
  const ChainModel m = randomChain(3, 7);
  CHECK_FALSE(runChainOps(m, {{ChainOpKind::ForwardCheck, 2}}).valid);                              // no input
  CHECK_FALSE(runChainOps(m, {{ChainOpKind::ForwardCheck, 1}, {ChainOpKind::Backward, 1}}).valid);  // not next
  // A kept activation stays until the backward that needs it is done.
  CHECK_FALSE(
      runChainOps(m, {{ChainOpKind::ForwardCheck, 1}, {ChainOpKind::ForwardAll, 2}, {ChainOpKind::Discard, 1}}).valid);
  CHECK_FALSE(
      runChainOps(m, {{ChainOpKind::ForwardCheck, 1}, {ChainOpKind::ForwardCheck, 2}, {ChainOpKind::ForwardDrop, 3}})
          .valid);
  CHECK_FALSE(runChainOps(m, {{ChainOpKind::Discard, 1}}).valid);
  const std::vector<ChainOp> all{{ChainOpKind::ForwardAll, 1}, {ChainOpKind::ForwardAll, 2},
                                 {ChainOpKind::ForwardAll, 3}, {ChainOpKind::Backward, 3},
                                 {ChainOpKind::Backward, 2},   {ChainOpKind::Backward, 1}};
  CHECK(runChainOps(m, all).valid);
  CHECK_FALSE(runChainOps(m, {all.begin(), all.end() - 1}).valid);  // ends early
}

TEST_CASE("revolve's closed form matches Griewank's recursion and known values") {
  CHECK(revolveForwardSteps(1, 1) == 0);
  CHECK(revolveForwardSteps(3, 1) == 3);
  CHECK(revolveForwardSteps(4, 2) == 4);
  CHECK(revolveForwardSteps(3, 2) == 2);
  CHECK(revolveForwardSteps(6, 5) == 5);  // everything fits: l - 1 advances
  for (std::uint32_t l = 1; l <= 60; ++l)
    for (std::uint32_t c = 1; c <= 6; ++c) {
      INFO("l " << l << " c " << c);
      CHECK(revolveForwardSteps(l, c) == recursiveForwardSteps(l, c));
    }
}

TEST_CASE("revolve's schedule takes t(l, c) forward steps, holds at most c snapshots, and runs on a chain") {
  for (std::uint32_t l = 1; l <= 30; ++l) {
    const ComputeGraph g = test::makeChain(int(l));
    const GraphChain chain = linearizeGraph(g, 1000);
    REQUIRE(chain.stages.size() == l);
    for (std::uint32_t c = 1; c <= 5; ++c) {
      INFO("l " << l << " c " << c);
      const std::vector<RevolveAction> actions = revolveSchedule(l, c);
      std::set<std::uint32_t> snapshots;
      std::size_t most = 0;
      std::uint64_t advances = 0;
      for (const RevolveAction& a : actions) {
        if (a.kind == RevolveAction::Kind::Takeshot) snapshots.insert(a.state);
        if (a.kind == RevolveAction::Kind::Release) snapshots.erase(a.state);
        if (a.kind == RevolveAction::Kind::Advance) ++advances;
        most = std::max(most, snapshots.size());
      }
      CHECK(advances == revolveForwardSteps(l, c));
      CHECK(most <= c);
      const std::vector<ChainOp> ops = revolveChainOps(actions);
      const ChainRun run = runChainOps(revolveLikeChain(l), ops);
      REQUIRE(run.valid);
      CHECK(run.peak <= kRevolveTape + std::int64_t(c));
      const sim::SimulationResult r = sim::Simulator(g).run(lowerChainOps(chain, ops));
      REQUIRE(r.valid());
      CHECK(r.recomputations == revolveForwardSteps(l, c));
      CHECK(sim::Simulator(g, {.liveness = false}).run(lowerChainOps(chain, ops)).valid());
    }
  }
}

TEST_CASE("chain DP on a uniform chain recomputes as much as revolve at the matching memory") {
  for (std::uint32_t l = 1; l <= 30; ++l) {
    const ChainModel model = revolveLikeChain(l);
    const ChainDpTable table(model, kRevolveTape + 6);
    for (std::uint32_t c = 1; c <= 5; ++c) {
      INFO("l " << l << " c " << c);
      const std::optional<std::int64_t> cost = table.cost(kRevolveTape + c);
      REQUIRE(cost);
      CHECK(std::uint64_t(*cost - model.storeAllTime()) == revolveForwardSteps(l, c));
      CHECK(countForwards(table.ops(kRevolveTape + c)) == l + revolveForwardSteps(l, c));
    }
    CHECK_FALSE(table.cost(kRevolveTape + (l > 1 ? 0 : -1)));  // not even one state kept besides x_0
  }
}

TEST_CASE("chain DP's lowered schedules simulate as valid, take the model's time and stay within its memory") {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const int n = 3 + int(seed % 10);
    const ComputeGraph g = randomChainGraph(n, seed);
    const GraphChain chain = linearizeGraph(g, 1000);
    INFO("random chain graph seed " << seed << ", " << n << " ops");
    REQUIRE(chain.stages.size() == std::size_t(n));  // every op of a chain is a stage
    const std::int64_t top = storeAllMemory(chain.model);
    const ChainDpTable table(chain.model, top);
    const std::int64_t resident = g.inputBytes().value + g.paramBytes().value;
    for (std::int64_t limit = *table.leastMemory(); limit <= top; ++limit) {
      const std::vector<ChainOp> ops = table.ops(limit);
      for (bool liveness : {true, false}) {
        const sim::SimulationResult r = sim::Simulator(g, {.liveness = liveness}).run(lowerChainOps(chain, ops));
        REQUIRE(r.valid());
        CHECK(r.totalTime.value == *table.cost(limit));
        // No views and no parameters here: the stage model bounds what the simulator counts.
        CHECK(r.peak.value <= resident + limit);
      }
    }
  }
}

TEST_CASE("chain DP on random DAGs: stages at the single-boundary cuts, valid within the model's memory") {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    const ComputeGraph g = test::makeRandomDag(4 + int(seed % 14), seed);
    INFO("random DAG seed " << seed);
    const GraphChain chain = linearizeGraph(g, 1000);
    std::size_t nodes = 0;
    for (const auto& s : chain.stages) nodes += s.nodes.size();
    CHECK(nodes == g.opCount());
    const std::int64_t top = storeAllMemory(chain.model);
    const ChainDpTable table(chain.model, top);
    Bytes paramGrads{0};
    for (const Node& node : g.nodes())
      if (node.kind == NodeKind::Param) paramGrads += node.bytes;
    for (std::int64_t limit = *table.leastMemory(); limit <= top; ++limit) {
      const sim::SimulationResult r =
          sim::Simulator(g, {.liveness = false}).run(lowerChainOps(chain, table.ops(limit)));
      REQUIRE(r.valid());
      CHECK(r.totalTime.value == *table.cost(limit));
      CHECK(r.peak.value <= g.inputBytes().value + g.paramBytes().value + paramGrads.value + limit);
    }
  }
}

TEST_CASE("chain-dp is registered with its citation and plans a graph without cuts as one stage") {
  const Solver* s = SolverRegistry::builtin().find("chain-dp");
  REQUIRE(s);
  CHECK_THAT(s->info().citation, Catch::Contains("Beaumont") && Catch::Contains("Revolve"));
  CHECK(s->info().exact);
  CHECK(s->info().budgetMeasure == BudgetMeasure::Simulated);
  auto g = test::makeGraph({{"p", {"x"}}, {"q", {"x"}}, {"r", {"x"}}});  // three outputs, no cut
  SolveResult r = s->solve({.graph = &g});
  CHECK(r.status == SolveStatus::Optimal);
  CHECK(r.metrics.overhead == Ticks{0});
  CHECK_THAT(r.message, Catch::Contains("no single-boundary cut") && Catch::Contains("500 slots"));
}

TEST_CASE("chain-dp honours budgets on a chain: monotone overhead, infeasible below its least budget") {
  const ComputeGraph g = randomChainGraph(40, 99);
  const ChainDp solver(200);
  const auto least = solver.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  const SolveResult open = solver.solve({.graph = &g});
  REQUIRE(open.status == SolveStatus::Optimal);
  CHECK(open.metrics.overhead == Ticks{0});
  CHECK_THAT(open.message, Catch::Contains("200 slots"));
  std::optional<Ticks> previous;
  for (int k = 0; k <= 10; ++k) {
    const Bytes budget{least.bytes->value + (open.metrics.simulatedPeak.value - least.bytes->value) * k / 10};
    const SolveResult r = solver.solve({.graph = &g, .budget = budget});
    INFO("budget " << budget.value << ": " << r.message);
    REQUIRE((r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible));
    CHECK(r.metrics.simulatedPeak <= budget);
    if (previous) CHECK(r.metrics.overhead <= *previous);
    previous = r.metrics.overhead;
  }
  CHECK(*previous == Ticks{0});
  const SolveResult below = solver.solve({.graph = &g, .budget = Bytes{least.bytes->value - 1}});
  CHECK(below.status == SolveStatus::Infeasible);
  CHECK_THAT(below.message, Catch::Contains("least budget chain-dp reaches is"));
}

TEST_CASE("chain-dp stops when cancelled") {
  const ComputeGraph g = randomChainGraph(60, 3);
  std::stop_source stop;
  stop.request_stop();
  const SolveResult r = SolverRegistry::builtin().find("chain-dp")->solve({.graph = &g, .stop = stop.get_token()});
  CHECK(r.status == SolveStatus::Cancelled);
}

TEST_CASE("chain-dp on ResNet-50: valid plans, within budget, monotone, above the memory lower bound") {
  auto read = io::readGraphFile(std::string(REMAT_SOURCE_DIR) + "/datasets/resnet50.json");
  REQUIRE(read);
  const ComputeGraph& g = read.value();
  const Solver& solver = *SolverRegistry::builtin().find("chain-dp");
  const auto least = solver.minBudget({.graph = &g});
  REQUIRE(least.bytes);
  CHECK(*least.bytes >= sim::memoryLowerBound(g));
  const SolveResult open = solver.solve({.graph = &g});
  REQUIRE(open.status == SolveStatus::Optimal);
  CHECK(open.simulation.valid());
  std::optional<Ticks> previous;
  for (int k = 0; k <= 4; ++k) {
    const Bytes budget{least.bytes->value + (open.metrics.simulatedPeak.value - least.bytes->value) * k / 4};
    const SolveResult r = solver.solve({.graph = &g, .budget = budget});
    INFO("budget " << budget.value << ": " << r.message);
    REQUIRE((r.status == SolveStatus::Optimal || r.status == SolveStatus::Feasible));
    CHECK(r.simulation.valid());
    CHECK(r.metrics.simulatedPeak <= budget);
    CHECK(r.metrics.simulatedPeak >= sim::memoryLowerBound(g));
    if (previous) CHECK(r.metrics.overhead <= *previous);
    previous = r.metrics.overhead;
  }
  CHECK(solver.solve({.graph = &g, .budget = Bytes{least.bytes->value - 1}}).status == SolveStatus::Infeasible);
}

TEST_CASE("chain-dp with times near the readers' cap: costs saturate, never wrap") {
  // The same 100-op chain with unit times and with times of 2^52 (the graph's total stays under the
  // readers' 2^60): the DP's costs pass 2^63 at low memory, where they used to wrap and pick nonsense.
  auto chain = [](std::int64_t time) {
    std::vector<test::OpSketch> ops;
    for (int i = 0; i < 100; ++i)
      ops.push_back({"a" + std::to_string(i), {i == 0 ? "x" : "a" + std::to_string(i - 1)}, 1024, time, {}, true});
    return test::makeGraph(ops, 1024, 0);
  };
  const ComputeGraph unit = chain(1);
  const ComputeGraph huge = chain(std::int64_t{1} << 52);
  const ChainDp solver(200);
  const Bytes budget{30 * 1024};
  const SolveResult a = solver.solve({.graph = &unit, .budget = budget});
  const SolveResult b = solver.solve({.graph = &huge, .budget = budget});
  INFO(a.message << " / " << b.message);
  REQUIRE(a.status == SolveStatus::Feasible);
  REQUIRE(b.status == SolveStatus::Feasible);
  CHECK(b.metrics.recomputations == a.metrics.recomputations);
  CHECK(b.metrics.overhead == a.metrics.overhead * (std::int64_t{1} << 52));

  // At its least memory the chain schedule recomputes thousands of times: its time cannot be counted,
  // so the answer is `limit` without a plan or figures, never a saturated or wrapped overhead.
  const auto least = solver.minBudget({.graph = &unit});
  REQUIRE(least.bytes);
  const SolveResult tight = solver.solve({.graph = &huge, .budget = *least.bytes});
  INFO(tight.message);
  CHECK(tight.status == SolveStatus::Limit);
  CHECK_FALSE(tight.plan);
  CHECK_THAT(tight.message, Catch::Contains("passes 2^63 - 1 ticks") && Catch::Contains("time can be counted"));
  CHECK(tight.metrics.overhead == Ticks{0});
}
