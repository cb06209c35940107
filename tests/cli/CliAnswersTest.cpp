// Answers that mean what they say, through the real command line: a solver that cannot answer is never
// reported as an answer ("does not fit", "optimal" with nothing in it).

#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "CliRun.hpp"
#include "ProgramRun.hpp"

namespace {

namespace fs = std::filesystem;

using Run = remat::test::ProgramRun;

using remat::test::runRemat;
using remat::test::scratch;

// A chain of `n` operations, each saving its input for its backward, built for batch 1; every operation
// takes `time` ticks forward and backward.
std::string writeChain(const std::string& name, int n, std::int64_t time = 1) {
  nlohmann::json nodes = nlohmann::json::array();
  nodes.push_back({{"id", "x"}, {"kind", "input"}, {"bytes", 4}, {"shape", {1, 1}}});
  for (int i = 0; i < n; ++i)
    nodes.push_back({{"id", "op" + std::to_string(i)},
                     {"kind", "op"},
                     {"op", i % 3 == 0 ? "Conv" : "Relu"},
                     {"inputs", {i == 0 ? std::string("x") : "op" + std::to_string(i - 1)}},
                     {"bytes", 100 + (i * 7) % 13},
                     {"fwd_time", time},
                     {"bwd_time", time},
                     {"saves", {{"inputs", {0}}, {"output", false}}}});
  const fs::path path = scratch() / (name + ".json");
  remat::test::writeFile(
      path, nlohmann::json{{"format", "remat-graph"}, {"version", 1}, {"name", name}, {"nodes", nodes}}.dump());
  return path.string();
}

}  // namespace

TEST_CASE("max-batch: a solver that refuses the graph is a refusal with its reason, not 'does not fit'") {
  // 110 operations: 220 forward and backward nodes, over milp's size limit without a time limit.
  const std::string g = writeChain("chain110", 110);
  Run r = runRemat({"max-batch", g, "-m", "1GiB", "-s", "milp", "--json"});
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  const auto j = r.json();
  CHECK(j["status"] == "limit");
  CHECK(j["max_batch"].is_null());
  CHECK(j["largest_fitting_batch"].is_null());
  CHECK(j["refused_at_batch"] == 1);
  const std::string message = j["message"].get<std::string>();
  CHECK_THAT(message, Catch::Contains("milp cannot answer at batch 1") && Catch::Contains("more than 200"));
  CHECK_THAT(message, !Catch::Contains("not even batch 1 fits"));
  Run text = runRemat({"max-batch", g, "-m", "1GiB", "-s", "milp"});
  CHECK(text.code == 1);
  CHECK_THAT(text.err, Catch::StartsWith("remat: milp cannot answer at batch 1 (limit)"));
}

TEST_CASE("max-batch: a refusal at a larger batch gives the largest batch proven to fit, not 'the largest'") {
  // 8 operations of 2^55 ticks each way: from batch 16 on the step's time passes 2^63 - 1 and the
  // simulator cannot count it (status limit), while the memory is far from full.
  const std::string g = writeChain("slow", 8, std::int64_t{1} << 55);
  Run r = runRemat({"max-batch", g, "-m", "1GiB", "-s", "store-all", "--json"});
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  const auto j = r.json();
  CHECK(j["status"] == "limit");
  CHECK(j["max_batch"].is_null());
  CHECK(j["largest_fitting_batch"] == 15);
  CHECK(j["refused_at_batch"] == 16);
  CHECK_THAT(j["message"].get<std::string>(),
             Catch::Contains("the search stopped at batch 16") && Catch::Contains("total time passes"));
  CHECK(j["metrics"]["simulated_peak_bytes"].get<std::int64_t>() < std::int64_t{1} << 20);
  Run text = runRemat({"max-batch", g, "-m", "1GiB", "-s", "store-all"});
  CHECK(text.code == 1);
  CHECK_THAT(text.out, Catch::StartsWith("Fits at batch  15") && Catch::Contains("not proven the largest"));
}

TEST_CASE("max-batch: a solver that makes no plans is a usage error") {
  Run r = runRemat({"max-batch", writeChain("chain4", 4), "-m", "1GiB", "-s", "lp-bound"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("lp-bound makes no plans"));
}

TEST_CASE("sweep: no point of the front is never optimal, and the exit code says so") {
  // milp with an explicit time limit tries the 110-op chain: the plain plan comes at once, the budgeted
  // MILPs are still being built when the limit is reached.
  Run r =
      runRemat({"sweep", writeChain("chain110", 110), "-s", "milp", "--time-limit", "0.2", "--points", "3", "--json"});
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  const auto j = r.json();
  CHECK(j["points"].empty());
  CHECK(j["status"] == "time-limit");
  CHECK_THAT(j["message"].get<std::string>(), Catch::Contains("time limit"));
}

TEST_CASE("whole-command limits: max-batch, render, compare and study stop at their total time") {
  const std::string g = writeChain("chain300", 300);
  SECTION("max-batch: the search's limit, never a claimed largest batch") {
    // 1 ms for a search of some 40 solves: it stops at the limit, before or after batch 1.
    Run r = runRemat({"max-batch", g, "-m", "1000TiB", "-s", "exact-dp", "--time-limit", "0.001", "--json"});
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    const auto j = r.json();
    CHECK(j["status"] == "time-limit");
    CHECK(j["max_batch"].is_null());
    CHECK_THAT(j["message"].get<std::string>(), Catch::Contains("time limit"));
  }
  SECTION("compare: solvers not begun within the total say they did not run") {
    Run r = runRemat({"compare", g, "--solvers", "exact-dp,approx-dp,chain-dp,dtr", "-b", "20KiB", "--total-time-limit",
                      "0.001", "--json"});
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    const auto j = r.json();
    CHECK(j["total_time_limit_seconds"] == 0.001);
    const auto& last = j["rows"].back();
    CHECK(last["status"] == "time-limit");
    CHECK(last["time_limit_seconds"] == 0.0);
    CHECK_THAT(last["message"].get<std::string>(), Catch::Contains("not run"));
    for (const auto& row : j["rows"]) CHECK(row["time_limit_seconds"].get<double>() <= 0.001);
  }
  SECTION("study: a shard past its total writes every task's line and exits 1") {
    Run r = runRemat({"study", g, "--solvers", "exact-dp,approx-dp,chain-dp", "--budgets", "0.5,0.8",
                      "--total-time-limit", "0.001"});
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("total time limit was spent"));
    std::size_t lines = 0;
    std::size_t notRun = 0;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line); ++lines)
      if (nlohmann::json::parse(line)["message"].get<std::string>().starts_with("not run")) ++notRun;
    CHECK(lines == 6);
    CHECK(notRun >= 1);
  }
  SECTION("render: fronts not begun within the limit are left out with a warning") {
    const std::string out = (scratch() / "limited-pareto.svg").string();
    Run r = runRemat({"render", g, "--figure", "pareto", "-o", out, "--solvers", "exact-dp,approx-dp,chain-dp,dtr",
                      "--time-limit", "0.001"});
    INFO(r.out << r.err);
    CHECK_THAT(r.err, Catch::Contains("the time limit ran out before its front"));
  }
}

TEST_CASE("a list option with an empty item is a usage error, never a shorter list") {
  const std::string g = writeChain("chain5", 5);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare", g, "--solvers", "exact-dp,,dtr"},
        std::vector<std::string>{"compare", g, "--solvers", "exact-dp,"},
        std::vector<std::string>{"study", g, "--solvers", "exact-dp", "--budgets", "0.5,,0.8"},
        std::vector<std::string>{"render", g, "--figure", "pareto", "-o", (scratch() / "x.svg").string(), "--solvers",
                                 ",dtr"}}) {
    Run r = runRemat(args);
    INFO(args[0] << ' ' << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("empty item"));
  }
  // Repeated options still add up.
  Run r = runRemat({"compare", g, "--solvers", "exact-dp,dtr", "--solvers", "chain-dp", "-b", "1KiB", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.json()["rows"].size() == 3);
}
