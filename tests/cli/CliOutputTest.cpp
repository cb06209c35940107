// Every door holds, through the real command line: every byte written to standard output is checked,
// an output is never one of the inputs, and every value on the command line is checked.

#include <sys/stat.h>
#include <sys/wait.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "CliRun.hpp"
#include "ProgramRun.hpp"

namespace {

namespace fs = std::filesystem;

using Run = remat::test::ProgramRun;
using remat::test::shellQuote;

using remat::test::fixture;
using remat::test::runRemat;
using remat::test::scratch;

// Runs remat with its standard output sent to `target` (such as /dev/full); the exit code and stderr.
Run runRedirected(const std::vector<std::string>& args, const std::string& target) {
  const fs::path errFile = scratch() / "stderr.txt";
  std::string cmd = shellQuote(REMAT_BINARY);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  cmd += " >" + shellQuote(target) + " 2>" + shellQuote(errFile.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = remat::test::slurp(errFile);
  return r;
}

}  // namespace

TEST_CASE("a full standard output is an error with exit code 3, never a success") {
  const std::string g = fixture("cli/chain3.json");
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"compare", g, "--json"},
                                             {"info", g},
                                             {"solve", g, "-s", "store-all"},
                                             {"sweep", g, "-s", "approx-dp"},
                                             {"study", g, "--solvers", "store-all,approx-dp", "--budgets", "1.0"}}) {
    Run r = runRedirected(args, "/dev/full");
    INFO(args[0] << ": " << r.err);
    CHECK(r.code == 3);
    // The reason when the failed write is the last one (else "an earlier write failed").
    CHECK_THAT(r.err, Catch::StartsWith("remat: error writing standard output: "));
  }
  CHECK_THAT(runRedirected({"info", g, "--json"}, "/dev/full").err, Catch::Contains("No space left on device"));
  // The same commands into a file that takes them succeed.
  CHECK(runRedirected({"compare", g, "--json"}, (scratch() / "compare.json").string()).code == 0);
}

TEST_CASE("an output that is one of the inputs is refused: pins files and study shards count") {
  const std::string g = fixture("cli/chain3.json");
  const fs::path pins = scratch() / "pins.json";
  const std::string pinsText = R"({"keep": ["a"], "recompute": []})";
  remat::test::writeFile(pins, pinsText);
  const fs::path link = scratch() / "pins-link.json";
  fs::remove(link);
  fs::create_hard_link(pins, link);
  for (const fs::path& output : {pins, link}) {
    Run r = runRemat({"solve", g, "-s", "approx-dp", "--pins", pins.string(), "-o", output.string()});
    INFO(output << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("refusing to write") && Catch::Contains("input file"));
    CHECK(remat::test::slurp(pins) == pinsText);
  }
  // A study's Pareto figure named as a shard it merges.
  const fs::path dir = scratch() / "study-figures";
  fs::create_directories(dir);
  const fs::path shard = dir / "chain3-pareto.svg";
  REQUIRE(runRemat({"study", g, "--solvers", "store-all", "--budgets", "1.0", "-o", shard.string()}).code == 0);
  const std::string lines = remat::test::slurp(shard);
  Run merged = runRemat({"study", "--merge", shard.string(), "--figures", dir.string()});
  INFO(merged.err);
  CHECK(merged.code == 2);
  CHECK_THAT(merged.err, Catch::Contains("input file"));
  CHECK(remat::test::slurp(shard) == lines);
}

TEST_CASE("an empty value of an option that takes one is refused, naming the option") {
  const std::string g = fixture("cli/chain3.json");
  const std::string out = (scratch() / "empty.json").string();
  for (const auto& [args, option] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"solve", g, "-s", "store-all", "-o", ""}, "--output"},
           {{"solve", g, "-s", "store-all", "--pins", ""}, "--pins"},
           {{"solve", g, "-s", "store-all", "--time-limit", ""}, "--time-limit"},
           {{"study", g, "--solvers", "store-all", "--budgets", "1.0", "--shard", ""}, "--shard"},
           {{"compare", g, "--solvers", ""}, "--solvers"},
           {{"solve", "", "-s", "store-all"}, "graph"}}) {
    Run r = runRemat(args);
    INFO(option << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith(option + ": the value is empty"));
  }
}

TEST_CASE("numbers on the command line: no sign, no garbage, no octal, within range") {
  const std::string g = fixture("cli/chain3.json");
  const std::string svg = (scratch() / "pareto.svg").string();
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"sweep", g, "--points", "-1"}, "--points: give a whole number, 0 or more, in decimal digits, got '-1'"},
           {{"sweep", g, "--points", "010"}, "--points: write 10 without leading zeros"},
           {{"sweep", g, "--points", "99999999999999999999"}, "--points: the number 99999999999999999999 is too large"},
           {{"sweep", g, "--points", "10001"}, "--points must be at least 2 and at most 10000, got 10001"},
           {{"render", g, "--figure", "pareto", "-o", svg, "--points", "4294967295"},
            "--points must be at least 2 and at most 10000, got 4294967295"},
           {{"info", g, "--lower-set-limit", "-5"}, "--lower-set-limit: give a whole number"},
           {{"solve", g, "-s", "store-all", "--time-limit", "1s"}, "--time-limit: give a number, got '1s'"},
           {{"study", g, "--solvers", "store-all", "--budgets", "1.0", "--shard", "1/3/4"}, "invalid shard '1/3/4'"}}) {
    Run r = runRemat(args);
    INFO(args[0] << " " << args[args.size() - 2] << " " << args.back() << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
  CHECK(runRemat({"sweep", g, "--points", "10000", "--json"}).code == 0);
}

TEST_CASE("compare on a graph of zero bytes and zero times: no NaN, in text or JSON") {
  const fs::path g = scratch() / "zero.json";
  remat::test::writeFile(g, R"({"format": "remat-graph", "version": 1, "name": "zero", "nodes": [
    {"id": "x", "kind": "input", "bytes": 0},
    {"id": "a", "kind": "op", "op": "Conv", "inputs": ["x"], "bytes": 0, "fwd_time": 0, "bwd_time": 0},
    {"id": "b", "kind": "op", "op": "Relu", "inputs": ["a"], "bytes": 0, "fwd_time": 0, "bwd_time": 0}]})");
  Run text = runRemat({"compare", g.string(), "--solvers", "store-all,approx-dp"});
  INFO(text.out << text.err);
  CHECK(text.code == 0);
  CHECK_THAT(text.out, !Catch::Contains("nan") && !Catch::Contains("inf%"));
  Run json = runRemat({"compare", g.string(), "--solvers", "store-all,approx-dp", "--json"});
  REQUIRE(json.code == 0);
  const nlohmann::json rows = json.json()["rows"];
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    // The same peak as the plain run's: no change, 0%, not a NaN written as null.
    CHECK(row["reduction_percent"] == 0.0);
    CHECK(row["overhead_percent"] == 0.0);
  }
}

TEST_CASE("a replaced output file keeps its permissions") {
  const fs::path plan = scratch() / "private.plan.json";
  remat::test::writeFile(plan, "old");
  fs::permissions(plan, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  Run r = runRemat({"solve", fixture("cli/chain3.json"), "-s", "store-all", "-o", plan.string()});
  REQUIRE(r.code == 0);
  CHECK(remat::test::slurp(plan) != "old");
  CHECK((fs::status(plan).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
}
