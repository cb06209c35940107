// `remat study`: shards that a job array runs apart and `--merge` joins, byte for byte the unsharded run.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "CliRun.hpp"
#include "ProgramRun.hpp"

namespace {

namespace fs = std::filesystem;

using Run = remat::test::ProgramRun;
using remat::test::slurp;
using remat::test::writeFile;

using remat::test::runRemat;
using remat::test::scratch;

std::string dataset(const std::string& name) { return std::string(REMAT_SOURCE_DIR) + "/datasets/small/" + name; }

// The study of these tests: three small graphs of the repository, fractions, a size and 'least', and
// solvers of every kind that plans (the DPs, a baseline, rotor's chain DP, DTR).
std::vector<std::string> studyArgs() {
  return {"study",
          dataset("mlp.json"),
          dataset("cnn-skip.json"),
          dataset("transformer-block.json"),
          "--solvers",
          "store-all,chen-sqrtn,approx-dp,exact-dp,chain-dp,dtr",
          "--budgets",
          "0.5,75%,1GiB,least"};
}
constexpr std::size_t kTasks = std::size_t{3} * 4 * 6;

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<nlohmann::json> lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace

TEST_CASE("a study sharded four ways and merged is the unsharded study, byte for byte") {
  const fs::path whole = scratch() / "whole.jsonl";
  Run all = runRemat(with(studyArgs(), {"-o", whole.string()}));
  INFO(all.err);
  REQUIRE(all.code == 0);
  const std::string expected = slurp(whole);
  const std::vector<nlohmann::json> study = lines(expected);
  REQUIRE(study.size() == kTasks);

  // Each shard writes its slice; together they hold every task once.
  std::vector<std::string> shardFiles;
  std::set<std::size_t> seen;
  for (int i = 1; i <= 4; ++i) {
    const fs::path file = scratch() / ("shard-" + std::to_string(i) + ".jsonl");
    Run shard = runRemat(with(studyArgs(), {"--shard", std::to_string(i) + "/4", "-o", file.string()}));
    INFO(shard.err);
    REQUIRE(shard.code == 0);
    const auto part = lines(slurp(file));
    CHECK(part.size() == kTasks / 4);
    for (const auto& line : part) {
      CHECK(line["task"].get<std::size_t>() % 4 == std::size_t(i - 1));
      CHECK(seen.insert(line["task"].get<std::size_t>()).second);
    }
    shardFiles.push_back(file.string());
  }
  CHECK(seen.size() == kTasks);
  // Merged in any order of the files: the unsharded bytes.
  Run merged = runRemat(with({"study", "--merge"}, {shardFiles[2], shardFiles[0], shardFiles[3], shardFiles[1]}));
  INFO(merged.err);
  REQUIRE(merged.code == 0);
  CHECK(merged.out == expected);
  // Standard output carries the same lines as -o.
  Run stdoutRun = runRemat(with(studyArgs(), {"--shard", "3/4"}));
  REQUIRE(stdoutRun.code == 0);
  CHECK(stdoutRun.out == slurp(shardFiles[2]));
}

TEST_CASE("a study's lines hold the simulated figures at the budgets asked for") {
  Run all = runRemat(studyArgs());
  INFO(all.err);
  REQUIRE(all.code == 0);
  std::map<std::pair<std::string, std::string>, std::size_t> fitting;
  for (const auto& line : lines(all.out)) {
    INFO(line.dump());
    const auto& m = line["metrics"];
    CHECK_FALSE(m.contains("solve_seconds"));  // only with --timings: the lines are the same on every run
    const std::string budget = line["budget"];
    const auto plainPeak = line["vanilla_peak_bytes"].get<std::int64_t>();
    if (budget == "0.5") CHECK(line["budget_bytes"] == std::int64_t(std::floor(0.5 * double(plainPeak))));
    if (budget == "75%") CHECK(line["budget_bytes"] == std::int64_t(std::floor(0.75 * double(plainPeak))));
    if (budget == "1GiB") CHECK(line["budget_bytes"] == std::int64_t(1) << 30);
    if (line["fits_budget"].get<bool>()) {
      ++fitting[{line["graph"], budget}];
      CHECK(m["simulated_peak_bytes"].get<std::int64_t>() <= line["budget_bytes"].get<std::int64_t>());
    }
    if (line["solver"] == "store-all" && budget == "1GiB") {
      CHECK(line["fits_budget"] == true);
      CHECK(m["simulated_peak_bytes"] == plainPeak);
      CHECK(m["overhead"] == 0);
    }
  }
  // Every solver has a plan at its own least budget and at 1 GiB on these small graphs.
  for (const auto& [key, count] : fitting)
    if (key.second == "least" || key.second == "1GiB") CHECK(count == 6);
}

TEST_CASE("study --merge prints the comparison table with one winner per graph and budget") {
  Run all = runRemat(studyArgs());
  REQUIRE(all.code == 0);
  const fs::path file = scratch() / "for-table.jsonl";
  writeFile(file, all.out);
  Run csv = runRemat({"study", "--merge", file.string(), "--table", "csv"});
  INFO(csv.err);
  REQUIRE(csv.code == 0);
  std::istringstream in(csv.out);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("graph,budget,solver,best,status,fits", 0) == 0);
  std::map<std::string, int> winners;
  std::size_t rows = 0;
  for (std::string row; std::getline(in, row);) {
    ++rows;
    std::vector<std::string> cells;
    std::stringstream cellStream(row);
    for (std::string c; std::getline(cellStream, c, ',');) cells.push_back(c);
    REQUIRE(cells.size() >= 6);
    if (cells[3] == "*") {
      ++winners[cells[0] + " " + cells[1]];
      CHECK(cells[5] == "yes");
    }
  }
  CHECK(rows == kTasks);
  // A winner exactly where some plan fits (at 0.5 of these parameter-heavy graphs, none does).
  std::set<std::string> fits;
  for (const auto& line : lines(all.out))
    if (line["fits_budget"].get<bool>())
      fits.insert(line["graph"].get<std::string>() + " " + line["budget"].get<std::string>());
  CHECK(fits.size() >= std::size_t{3} * 2);  // every graph at 1GiB and at least
  CHECK(winners.size() == fits.size());
  for (const auto& [group, n] : winners) {
    CHECK(fits.count(group) == 1);
    CHECK(n == 1);
  }
  // The figures: one Pareto figure per graph.
  const fs::path figures = scratch() / "study-figures";
  Run figs = runRemat({"study", "--merge", file.string(), "--figures", figures.string(), "--table", "markdown"});
  INFO(figs.err);
  REQUIRE(figs.code == 0);
  for (const char* stem : {"mlp", "cnn-skip", "transformer-block"})
    CHECK(slurp(figures / (std::string(stem) + "-pareto.svg")).find("<svg") != std::string::npos);
}

TEST_CASE("study --merge refuses a missing shard, overlapping shards, another study's lines and garbage") {
  std::vector<std::string> files;
  for (int i = 1; i <= 3; ++i) {
    const fs::path file = scratch() / ("bad-" + std::to_string(i) + ".jsonl");
    REQUIRE(runRemat(with(studyArgs(), {"--shard", std::to_string(i) + "/3", "-o", file.string()})).code == 0);
    files.push_back(file.string());
  }
  Run missing = runRemat({"study", "--merge", files[0], files[2]});
  CHECK(missing.code == 3);
  CHECK_THAT(missing.err, Catch::Contains("in no shard"));
  Run overlap = runRemat({"study", "--merge", files[0], files[1], files[2], files[1]});
  CHECK(overlap.code == 3);
  CHECK_THAT(overlap.err, Catch::Contains("overlap"));
  CHECK_THAT(overlap.err, Catch::Contains(files[1] + ":1"));

  const fs::path other = scratch() / "other.jsonl";
  REQUIRE(runRemat({"study", dataset("mlp.json"), "--solvers", "store-all", "--budgets", "0.5", "-o", other.string()})
              .code == 0);
  Run mixed = runRemat({"study", "--merge", files[0], files[1], files[2], other.string()});
  CHECK(mixed.code == 3);
  CHECK_THAT(mixed.err, Catch::Contains("another study"));

  const fs::path garbage = scratch() / "garbage.jsonl";
  writeFile(garbage, slurp(files[0]) + "{not json\n");
  Run broken = runRemat({"study", "--merge", garbage.string(), files[1], files[2]});
  CHECK(broken.code == 3);
  CHECK_THAT(broken.err, Catch::Contains(garbage.string() + ":" + std::to_string(kTasks / 3 + 1)));
}

TEST_CASE("study refuses bad shards and budgets with usage errors") {
  for (const char* shard : {"0/4", "5/4", "1/0", "2", "a/b", "/4", "1/"}) {
    INFO(shard);
    Run r = runRemat(with(studyArgs(), {"--shard", shard}));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("shard"));
  }
  for (const char* budget : {"0.0", "0%", "-0.5", "lots"}) {
    INFO(budget);
    Run r = runRemat({"study", dataset("mlp.json"), "--solvers", "store-all", "--budgets", budget});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("budget"));
  }
  Run noSolvers = runRemat({"study", dataset("mlp.json"), "--budgets", "0.5"});
  CHECK(noSolvers.code == 2);
  Run unknown = runRemat({"study", dataset("mlp.json"), "--solvers", "nope", "--budgets", "0.5"});
  CHECK(unknown.code == 2);
  Run missingGraph = runRemat({"study", "/nonexistent/graph.json", "--solvers", "store-all", "--budgets", "0.5"});
  CHECK(missingGraph.code == 3);
  CHECK_THAT(missingGraph.err, Catch::Contains("/nonexistent/graph.json"));
}

TEST_CASE("study --merge refuses lines of the wrong types, devices and absurd task counts at their file and line") {
  const fs::path one = scratch() / "one.jsonl";
  REQUIRE(
      runRemat({"study", dataset("mlp.json"), "--solvers", "store-all", "--budgets", "0.5", "-o", one.string()}).code ==
      0);
  const nlohmann::json line = lines(slurp(one)).at(0);
  const struct {
    const char* pointer;
    nlohmann::json value;
    const char* says;
  } damaged[] = {
      {"/task", "0", "'task' must be a number"},
      {"/graph", 3, "'graph' must be a string"},
      {"/fits_budget", "yes", "'fits_budget' must be true or false"},
      {"/metrics", nlohmann::json::array(), "'metrics' must be an object"},
      {"/metrics/overhead", "x", "'metrics.overhead' must be an integer or null"},
      {"/metrics/simulated_peak_bytes", 1.5, "'metrics.simulated_peak_bytes'"},
      {"/time_unit", 5, "'time_unit' must be a string"},
      {"/status", 7, "'status' must be a string"},
      {"/vanilla_peak_bytes", "big", "'vanilla_peak_bytes' must be an integer or null"},
      {"/overhead_percent", "12%", "'overhead_percent' must be a number or null"},
  };
  const fs::path file = scratch() / "damaged.jsonl";
  for (const auto& d : damaged) {
    INFO(d.pointer);
    nlohmann::json bad = line;
    bad[nlohmann::json::json_pointer(d.pointer)] = d.value;
    writeFile(file, bad.dump() + "\n");
    const Run r = runRemat({"study", "--merge", file.string()});
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains(file.string() + ":1: ") && Catch::Contains(d.says));
  }
  // A count of tasks taken from the file allocates nothing: it is a missing shard, said at once.
  nlohmann::json huge = line;
  huge["tasks"] = std::uint64_t{1} << 62;
  writeFile(file, huge.dump() + "\n");
  const Run absurd = runRemat({"study", "--merge", file.string()});
  CHECK(absurd.code == 3);
  CHECK_THAT(absurd.err, Catch::Contains("tasks are in no shard (1, 2, 3"));
  // A device is refused unread (it once read 4.1 GB of /dev/zero).
  const Run zero = runRemat({"study", "--merge", "/dev/zero"});
  CHECK(zero.code == 3);
  CHECK_THAT(zero.err, Catch::Contains("/dev/zero: cannot read shard file: is a character device"));
}

TEST_CASE("study --merge refuses shards computed from different contents of one graph file") {
  const fs::path graph = scratch() / "changing.json";
  writeFile(graph, slurp(dataset("mlp.json")));
  const std::vector<std::string> args{"study", graph.string(), "--solvers", "store-all,chen-sqrtn", "--budgets", "0.5"};
  const fs::path first = scratch() / "changing-1.jsonl";
  const fs::path second = scratch() / "changing-2.jsonl";
  REQUIRE(runRemat(with(args, {"--shard", "1/2", "-o", first.string()})).code == 0);
  writeFile(graph, slurp(dataset("mlp.json")) + "\n");  // the same path, other bytes
  REQUIRE(runRemat(with(args, {"--shard", "2/2", "-o", second.string()})).code == 0);
  const Run merged = runRemat({"study", "--merge", first.string(), second.string()});
  CHECK(merged.code == 3);
  CHECK_THAT(merged.err, Catch::Contains(second.string() + ":1: a line of another study"));
}

TEST_CASE("study --merge on the shard fixtures: the valid merge, each invalid one is exit 3 naming its place") {
  const fs::path root = fs::path(REMAT_FIXTURES_DIR) / "study";
  for (const auto& entry : fs::directory_iterator(root / "valid")) {
    Run r = runRemat({"study", "--merge", entry.path().string()});
    INFO(entry.path() << ": " << r.err);
    CHECK(r.code == 0);
  }
  std::size_t invalid = 0;
  for (const auto& entry : fs::directory_iterator(root / "invalid")) {
    ++invalid;
    Run r = runRemat({"study", "--merge", entry.path().string()});
    INFO(entry.path() << ": " << r.err);
    CHECK(r.code == 3);
    CHECK(r.out.empty());
    const std::string name = entry.path().filename().string();
    // A line's fault names its file and line; the set's faults (a task missing, no line) say what is missing.
    if (name != "task_missing.jsonl" && name != "empty.jsonl") CHECK_THAT(r.err, Catch::Contains(name + ":"));
  }
  CHECK(invalid >= 10);
}
