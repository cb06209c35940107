#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "TestGraphs.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

namespace {

// store-all's plan without a budget and from `answersFrom` bytes on; below, a limit of its own (status
// Limit): a solver whose tight budgets get no answer. Its least budget is claimed to be half the plain
// plan's peak, so that the sweep spreads its budgets from there to the peak.
class AnswersOnlyLooseBudgets : public Solver {
 public:
  explicit AnswersOnlyLooseBudgets(std::int64_t answersFrom) : m_answersFrom(answersFrom) {}
  [[nodiscard]] MinBudget planMinBudget(const SolveRequest& request) const override {
    MinBudget least = Solver::planMinBudget(request);
    if (least.bytes) least.bytes = Bytes{least.bytes->value / 2};
    return least;
  }
  [[nodiscard]] const SolverInfo& info() const override {
    static const SolverInfo kInfo{.id = "loose-only", .name = "store-all without a tight budget"};
    return kInfo;
  }
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override {
    if (request.budget && request.budget->value < m_answersFrom)
      return {SolveStatus::Limit, std::nullopt, "the budget is too tight for me"};
    return SolverRegistry::builtin().find("store-all")->plan(request);
  }

 private:
  std::int64_t m_answersFrom;
};

}  // namespace

TEST_CASE("trade-off: budgets whose solves cannot answer make the front partial, never optimal") {
  const auto g = test::makeChain(6, 100);
  SECTION("no budget answers: no point, the refusal's status and reason") {
    const AnswersOnlyLooseBudgets solver(INT64_MAX);
    const Solver::TradeOff r = solver.tradeOff({.graph = &g}, 3);
    CHECK(r.call == CallStatus::Ok);
    CHECK(r.plans.empty());
    CHECK(r.status == SolveStatus::Limit);
    CHECK_THAT(r.message, Catch::Contains("3 of the 3 budgets") && Catch::Contains("too tight for me"));
  }
  SECTION("some budgets answer: their points, and the refusal's status for the front") {
    const Bytes peak = SolverRegistry::builtin().find("store-all")->solve({.graph = &g}).metrics.simulatedPeak;
    const AnswersOnlyLooseBudgets solver(peak.value);  // only the last budget of three, the peak, answers
    const Solver::TradeOff r = solver.tradeOff({.graph = &g}, 3);
    CHECK(r.call == CallStatus::Ok);
    CHECK(r.status == SolveStatus::Limit);
    REQUIRE(r.plans.size() == 1);
    CHECK(r.plans.front().budget == peak);
    CHECK_THAT(r.message, Catch::Contains("2 of the 3 budgets") && Catch::Contains("a partial front"));
  }
}

namespace {

// store-all that takes 50 ms whatever its limit: rows of a comparison that spend its total time.
class Sleeps50ms : public Solver {
 public:
  [[nodiscard]] const SolverInfo& info() const override {
    static const SolverInfo kInfo{.id = "sleeps", .name = "store-all after 50 ms"};
    return kInfo;
  }
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return SolverRegistry::builtin().find("store-all")->plan(request);
  }
};

}  // namespace

TEST_CASE("compare: a total time limit bounds the whole comparison, and a solver not begun says it did not run") {
  using std::chrono::milliseconds;
  const auto g = test::makeChain(6, 100);
  const Sleeps50ms sleeps;
  const std::vector<const Solver*> three{&sleeps, &sleeps, &sleeps};
  SECTION("without a total, each row has the request's own limit") {
    const Comparison c = compareSolvers(three, {.graph = &g, .timeLimit = milliseconds(7000)}, false);
    REQUIRE(c.rowLimits.size() == 3);
    for (const auto& limit : c.rowLimits) CHECK(limit == milliseconds(7000));
    for (const auto& row : c.rows) CHECK(row.plan);
  }
  SECTION("with one: equal shares of what is left, then rows not run") {
    // 60 ms in all: the first row gets a third, takes 50 ms; the second gets half of the 10 ms left and
    // also takes 50 ms; nothing is left for the third.
    const Comparison c =
        compareSolvers(three, {.graph = &g, .timeLimit = milliseconds(7000)}, false, {}, milliseconds(60));
    REQUIRE(c.rows.size() == 3);
    REQUIRE(c.rowLimits.size() == 3);
    REQUIRE(c.rowLimits[0]);
    CHECK(*c.rowLimits[0] <= milliseconds(20));
    CHECK(c.rows[0].plan);
    CHECK(c.rowLimits[2] == milliseconds(0));
    CHECK_FALSE(c.rows[2].plan);
    CHECK(c.rows[2].status == SolveStatus::TimeLimit);
    CHECK(c.rows[2].solver == "sleeps");
    CHECK_THAT(c.rows[2].message, Catch::Contains("not run") && Catch::Contains("total time limit"));
  }
}
