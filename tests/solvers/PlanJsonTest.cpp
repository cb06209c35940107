#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestGraphs.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;
using namespace remat::io;

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
  CHECK_THAT(notJson.errorText(), Catch::Contains("p.json:1: invalid JSON"));
}

namespace {

// A store-all plan for makeChain(3) (x -> a0 -> a1 -> a2) with `extra` spliced into the object.
std::string chainPlan(const std::string& extra,
                      const std::string& schedule = R"([["fwd","a0"],["fwd","a1"],["fwd","a2"],)"
                                                    R"(["bwd","a2"],["bwd","a1"],["bwd","a0"]])") {
  return R"({"format":"remat-plan","version":1,"graph":"test",)" + extra + R"("schedule":)" + schedule + "}";
}

}  // namespace

TEST_CASE("plan JSON: budget_bytes is a positive 64-bit integer or null, never silently dropped") {
  auto g = test::makeChain(3);
  REQUIRE(g.node(g.opNode(graph::OpIndex{0})).name == "a0");
  auto ok = readPlanJson(chainPlan(R"("budget_bytes":4096,)"), "p.json", g);
  INFO(ok.errorText());
  REQUIRE(ok.ok());
  CHECK(ok.value().budget == Bytes{4096});
  auto none = readPlanJson(chainPlan(R"("budget_bytes":null,)"), "p.json", g);
  REQUIRE(none.ok());
  CHECK_FALSE(none.value().budget);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("-5GB")", R"(p.json: /budget_bytes: expected an integer, got "-5GB")"},
      {"-5", "p.json: /budget_bytes: the budget must be a positive number of bytes, got -5"},
      {"0", "p.json: /budget_bytes: the budget must be a positive number of bytes, got 0"},
      {"1.5", "p.json: /budget_bytes: expected an integer, got 1.5"},
      {"18446744073709551616", "p.json: /budget_bytes: number 1.8446744073709552e+19 does not fit in 64 bits"},
      {"9223372036854775808", "p.json: /budget_bytes: number 9223372036854775808 does not fit in 64 bits"},
      {"1e400", "p.json: /budget_bytes: invalid JSON: number overflow parsing '1e400'"},
      {"[1]", "p.json: /budget_bytes: expected an integer, got an array"}};
  for (const auto& [value, message] : bad) {
    auto r = readPlanJson(chainPlan(R"("budget_bytes":)" + value + ","), "p.json", g);
    INFO(value);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText() == message);
  }
}

TEST_CASE("plan JSON: the schedule is simulated on the graph and refused at the step the simulator rejects") {
  auto g = test::makeChain(3);
  auto swapped = readPlanJson(chainPlan("", R"([["fwd","a1"],["fwd","a0"]])"), "p.json", g);
  REQUIRE_FALSE(swapped.ok());
  CHECK_THAT(swapped.errorText(), Catch::StartsWith("p.json: /schedule/0: the simulator rejects step 0 (fwd a1)"));
  auto early = readPlanJson(chainPlan("", R"([["fwd","a0"],["fwd","a1"],["fwd","a2"],["bwd","a2"]])"), "p.json", g);
  REQUIRE_FALSE(early.ok());
  CHECK_THAT(early.errorText(), Catch::StartsWith("p.json: /schedule: the simulator rejects the schedule: the "
                                                  "schedule ends before the backward of"));
  // A plan for a graph of another name whose nodes this one lacks: said once, at /graph.
  auto other = readPlanJson(
      R"({"format":"remat-plan","version":1,"graph":"mlp","schedule":[["fwd","fc"],["fwd","x2"]]})", "p.json", g);
  REQUIRE_FALSE(other.ok());
  REQUIRE(other.errors().size() == 1);
  CHECK_THAT(other.errorText(), Catch::StartsWith("p.json: /graph: the plan is for graph 'mlp', not for 'test'"));
}

TEST_CASE("plan files: missing, a folder, oversized and endless files are refused before parsing") {
  auto g = test::makeChain(3);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("remat-plan-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto missing = readPlanFile((dir / "nope.json").string(), g);
  CHECK(missing.errorText() == (dir / "nope.json").string() + ": cannot read plan file: no such file");
  CHECK_THAT(readPlanFile(dir.string(), g).errorText(), Catch::Contains("is a directory"));
  const std::filesystem::path huge = dir / "huge.json";
  std::ofstream(huge) << "{";
  std::filesystem::resize_file(huge, kMaxPlanFileBytes + 1);  // sparse: nothing is written
  CHECK_THAT(readPlanFile(huge.string(), g).errorText(),
             Catch::Contains("file is too large") && Catch::Contains("plan files over 1 GiB are refused"));
  // A device that never ends, and a FIFO without a writer (which would block at open): refused unopened.
  CHECK(readPlanFile("/dev/zero", g).errorText() ==
        "/dev/zero: cannot read plan file: is a character device, not a regular file: plan files are read from "
        "regular files only");
  const std::filesystem::path fifo = dir / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(readPlanFile(fifo.string(), g).errorText(), Catch::Contains("is a FIFO (named pipe), not a regular file"));
  // A file that starts with much white space is read in linear time (each leading byte looked at once).
  const std::filesystem::path spaced = dir / "spaced.json";
  std::ofstream(spaced) << std::string(std::size_t{3} << 20, ' ') << "[]";
  CHECK_THAT(readPlanFile(spaced.string(), g).errorText(),
             Catch::Contains("not a JSON object (the first character is ["));
  const std::filesystem::path good = dir / "good.json";
  std::ofstream(good) << "\n  " << chainPlan("");
  auto read = readPlanFile(good.string(), g);
  INFO(read.errorText());
  CHECK(read.ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("a plan read back is judged as the solver's own answer was: same figures, fits or not by its peak") {
  auto g = test::makeUNet(3);
  const SolveResult r = SolverRegistry::builtin().find("chen-sqrtn")->solve({.graph = &g});
  REQUIRE(r.plan);
  const Bytes budget = r.metrics.simulatedPeak;
  auto back = readPlanJson(writePlanJson(g, r), "plan.json", g);
  REQUIRE(back.ok());
  const SolveResult judged = judgePlan(g, "plan.json (chen-sqrtn)", back.value().plan, budget);
  CHECK(judged.solver == "plan.json (chen-sqrtn)");
  CHECK(judged.status == SolveStatus::Feasible);
  CHECK(fitsBudget(judged));
  CHECK(judged.metrics.simulatedPeak == r.metrics.simulatedPeak);
  CHECK(judged.metrics.overhead == r.metrics.overhead);
  CHECK(judged.metrics.recomputations == r.metrics.recomputations);
  // One byte under its peak it does not fit, and says by how much; without a budget nothing to judge.
  const SolveResult tight = judgePlan(g, "p", back.value().plan, Bytes{r.metrics.simulatedPeak.value - 1});
  CHECK(tight.status == SolveStatus::Infeasible);
  CHECK_FALSE(fitsBudget(tight));
  CHECK_THAT(tight.message, Catch::Contains("more than the budget"));
  CHECK(judgePlan(g, "p", back.value().plan, std::nullopt).status == SolveStatus::Feasible);
  // A schedule the simulator rejects is an error without a plan.
  Plan broken = back.value().plan;
  broken.schedule.resize(broken.schedule.size() / 2);  // ends before most backwards
  const SolveResult bad = judgePlan(g, "p", broken, budget);
  CHECK(bad.call == CallStatus::Error);
  CHECK(bad.status == SolveStatus::NotSolved);
  CHECK(outcomeName(bad) == "error");
  CHECK(nlohmann::json::parse(writePlanJson(g, bad))["call"] == "error");
  CHECK(nlohmann::json::parse(writePlanJson(g, judged))["call"] == "ok");
  CHECK_FALSE(bad.plan);
  CHECK_THAT(bad.message, Catch::Contains("does not simulate"));
}

TEST_CASE("plan JSON keeps the pins a plan was made under, and refuses pins that are not the graph's operations") {
  auto g = test::makeUNet(3);
  Pins pins;
  pins.keep = {graph::OpIndex{1}};
  pins.recompute = {graph::OpIndex{2}};
  SolveResult r = SolverRegistry::builtin().find("exact-dp")->solve({.graph = &g, .pins = pins});
  REQUIRE(r.plan);
  const std::string text = writePlanJson(g, r);
  auto back = readPlanJson(text, "plan.json", g);
  REQUIRE(back.ok());
  CHECK(back.value().pins.keep == pins.keep);
  CHECK(back.value().pins.recompute == pins.recompute);
  // Without pins the key is null, and a plan without the key reads as unpinned.
  SolveResult plain = SolverRegistry::builtin().find("exact-dp")->solve({.graph = &g});
  CHECK_THAT(writePlanJson(g, plain), Catch::Contains("\"pins\": null"));
  auto none = readPlanJson(writePlanJson(g, plain), "plan.json", g);
  REQUIRE(none.ok());
  CHECK(none.value().pins.empty());
  const std::string schedule = R"("schedule":[["fwd","down0"],["bwd","down0"]])";
  for (const auto& [pinsText, error] : std::vector<std::pair<std::string, std::string>>{
           {R"("pins": 3)", "/pins: expected null or"},
           {R"("pins": {"keep": "down0"})", "/pins/keep: expected an array of node ids"},
           {R"("pins": {"keep": ["nope"]})", "/pins/keep/0: node 'nope' is not in graph"},
           {R"("pins": {"recompute": ["x"]})", "/pins/recompute/0: 'x' is an input or a parameter"}}) {
    std::string badText = R"({"format":"remat-plan","version":1,)";
    badText.append(pinsText).append(",").append(schedule).append("}");
    auto bad = readPlanJson(badText, "p.json", g);
    INFO(pinsText);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.errorText(), Catch::Contains(error));
  }
}
