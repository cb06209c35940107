#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/solvers/PlanJson.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

TEST_CASE("plan JSON round-trips the schedule and lower sets") {
  auto g = test::makeUNet(3);
  SolveResult r = SolverRegistry::builtin().find("chen-sqrtn")->solve({.graph = &g});
  REQUIRE(r.plan);
  const std::string text = writePlanJson(g, r);
  CHECK_THAT(text, Catch::Contains("\"format\": \"remat-plan\""));
  CHECK_THAT(text, Catch::Contains("\"simulated_peak_bytes\""));
  auto back = readPlanJson(text, "plan.json", g);
  REQUIRE(back.ok());
  CHECK(back.value().solver == "chen-sqrtn");
  CHECK(back.value().plan.schedule == r.plan->schedule);
  REQUIRE(back.value().plan.lowerSets);
  CHECK(*back.value().plan.lowerSets == *r.plan->lowerSets);
}

TEST_CASE("plan JSON for another graph or with bad steps is rejected with its path") {
  auto g = test::makeUNet(3);
  auto other = test::makeChain(3);
  SolveResult r = SolverRegistry::builtin().find("store-all")->solve({.graph = &g});
  auto wrong = readPlanJson(writePlanJson(g, r), "plan.json", other);
  REQUIRE_FALSE(wrong.ok());
  CHECK_THAT(wrong.errorText(), Catch::Contains("plan.json: /schedule/0/1: node 'down0' is not in graph"));
  auto bad = readPlanJson(R"({"format":"remat-plan","version":1,"schedule":[["jump","down0"]]})", "p.json", g);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.errorText(), Catch::Contains("/schedule/0/0: unknown step kind 'jump'"));
  auto notJson = readPlanJson("{\"format\":", "p.json", g);
  REQUIRE_FALSE(notJson.ok());
  CHECK_THAT(notJson.errorText(), Catch::Contains("not valid JSON"));
}
