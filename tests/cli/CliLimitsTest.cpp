// The command line on graphs at the edges: too large to draw, names of 100 KB, names with control
// characters, and the values that used to mean something silently (an empty budget, batch 0).

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "CliRun.hpp"
#include "ProgramRun.hpp"

namespace {

namespace fs = std::filesystem;

using Run = remat::test::ProgramRun;

using remat::test::fixture;
using remat::test::runRemat;
using remat::test::scratch;

// A native graph file: the input "x", then ops given as (name, inputs), each 64 bytes, time 1; the
// graph's own "pins" where given.
std::string writeGraph(const std::string& file, const std::string& graphName,
                       const std::vector<std::pair<std::string, std::vector<std::string>>>& ops,
                       const nlohmann::json& pins = nullptr) {
  nlohmann::json nodes = nlohmann::json::array({{{"id", "x"}, {"kind", "input"}, {"bytes", 64}}});
  for (const auto& [name, inputs] : ops)
    nodes.push_back({{"id", name},
                     {"kind", "op"},
                     {"op", "Relu"},
                     {"inputs", inputs},
                     {"bytes", 64},
                     {"fwd_time", 1},
                     {"bwd_time", 1},
                     {"saves", {{"inputs", nlohmann::json::array()}, {"output", true}}}});
  nlohmann::json doc{{"format", "remat-graph"}, {"version", 1}, {"name", graphName}, {"nodes", nodes}};
  if (!pins.is_null()) doc["pins"] = pins;
  const fs::path path = scratch() / file;
  remat::test::writeFile(path, doc.dump());
  return path.string();
}

// The pins tests' graph: a chain of ten ops r0..r9 after the input.
std::vector<std::pair<std::string, std::vector<std::string>>> pinChain() {
  std::vector<std::pair<std::string, std::vector<std::string>>> ops;
  ops.reserve(10);
  for (int i = 0; i < 10; ++i)
    ops.emplace_back("r" + std::to_string(i), std::vector<std::string>{i == 0 ? "x" : "r" + std::to_string(i - 1)});
  return ops;
}

// How many times a plan's schedule computes `node` forward.
int forwardsOf(const nlohmann::json& plan, const std::string& node) {
  int count = 0;
  for (const auto& step : plan["schedule"]) count += step[0] == "fwd" && step[1] == node;
  return count;
}

// The first byte of `text` that a terminal would obey: C0 but line feed and tab, DEL, C1 as UTF-8.
std::string rawControl(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7F ||
        (b == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F))
      return "byte " + std::to_string(b) + " at " + std::to_string(i) + ": " + text.substr(i > 20 ? i - 20 : 0, 40);
  }
  return {};
}

const std::string kHostile = std::string(
                                 "esc\x1b[31mred\x07"
                                 "bel") +
                             '\0' +
                             "nul\x1b]0;title\x07osc\xc2\x9b"
                             "2J";

}  // namespace

TEST_CASE("names with ESC, BEL, NUL, OSC and C1 controls reach the terminal escaped, in every command") {
  const std::string graph = writeGraph("hostile.json", "graph\x1b[2J\r", {{kHostile, {"x"}}, {"b\x1b[1m", {kHostile}}});
  const std::string plan = (scratch() / "hostile.plan.json").string();
  REQUIRE(runRemat({"solve", graph, "-s", "store-all", "-o", plan}).code == 0);
  // A plan whose schedule stops early: the messages that say so name the hostile node.
  auto broken = nlohmann::json::parse(remat::test::slurp(plan));
  broken["schedule"].erase(broken["schedule"].size() - 1);
  const std::string brokenPlan = (scratch() / "broken.plan.json").string();
  remat::test::writeFile(brokenPlan, broken.dump());
  const std::string svg = (scratch() / "hostile.svg").string();

  const std::vector<std::pair<std::vector<std::string>, int>> runs = {
      {{"info", graph}, 0},
      {{"solve", graph, "-s", "store-all"}, 0},
      {{"solve", graph, "-s", "store-all", "--json"}, 0},
      {{"compare", graph, "--solvers", "store-all,dtr"}, 0},
      {{"compare", graph, "--solvers", "store-all,dtr", "--table", "markdown"}, 0},
      {{"compare", graph, "--solvers", "store-all,dtr", "--table", "csv"}, 0},
      {{"min-budget", graph, "-s", "store-all"}, 0},
      {{"sweep", graph, "-s", "chen-sqrtn", "--points", "2"}, 0},
      {{"render", graph, "--figure", "schedule", "-o", svg}, 0},
      {{"render", graph, "--figure", "timeline", "--plan", brokenPlan, "-o", svg}, 3},
      {{"validate", graph, "--plan", brokenPlan, "--runner", "/bin/false"}, 3},
  };
  for (const auto& [args, code] : runs) {
    Run r = runRemat(args);
    INFO(args[0] << " " << args.back() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.code == code);
    CHECK(rawControl(r.out).empty());
    CHECK(rawControl(r.err).empty());
  }
  Run info = runRemat({"info", graph});
  CHECK_THAT(info.out, Catch::Contains("graph\\x1B[2J\\x0D"));
  Run table = runRemat({"compare", graph, "--solvers", "store-all", "--table", "markdown"});
  CHECK_THAT(table.out, Catch::Contains("Graph graph\\x1B[2J\\x0D:"));
  Run render = runRemat({"render", graph, "--figure", "timeline", "--plan", brokenPlan, "-o", svg});
  CHECK_THAT(render.err, Catch::Contains("esc\\x1B[31mred\\x07bel\\x00nul\\x1B]0;title\\x07osc\\u009B2J"));
  // JSON output keeps the names exactly: the escapes are JSON's own.
  Run json = runRemat({"solve", graph, "-s", "store-all", "--json"});
  CHECK(json.json()["schedule"][0][1] == kHostile);
}

TEST_CASE("a node name of 100 KB: the graph and schedule figures draw it elided") {
  const std::string huge = "head_" + std::string(100000, 'x') + "_tail";
  const std::string graph = writeGraph("huge-name.json", "huge", {{"a", {"x"}}, {huge, {"a"}}, {"c", {huge}}});
  for (const char* figure : {"graph", "schedule"}) {
    const fs::path svg = scratch() / (std::string(figure) + "-huge.svg");
    Run r = runRemat({"render", graph, "--figure", figure, "-o", svg.string()});
    INFO(figure << ": " << r.err);
    REQUIRE(r.code == 0);
    const std::string text = remat::test::slurp(svg);
    CHECK(text.find(std::string(1000, 'x')) == std::string::npos);
    CHECK(text.find("head_xxx") != std::string::npos);
    CHECK(text.find("xxx_tail") != std::string::npos);
    CHECK(text.find("\u2026") != std::string::npos);
  }
}

TEST_CASE("render --figure graph beyond the size limit: a long chain is drawn collapsed, a dense graph refused") {
  std::vector<std::pair<std::string, std::vector<std::string>>> chain;
  chain.reserve(6000);
  for (int i = 0; i < 6000; ++i)
    chain.emplace_back("n" + std::to_string(i), std::vector<std::string>{i == 0 ? "x" : "n" + std::to_string(i - 1)});
  const std::string longChain = writeGraph("chain6000.json", "chain", chain);
  const fs::path svg = scratch() / "limits.svg";
  Run collapsed = runRemat({"render", longChain, "--figure", "graph", "-o", svg.string()});
  CHECK(collapsed.code == 0);
  CHECK_THAT(collapsed.err,
             Catch::Contains("remat: warning: graph figure: chains of operations drawn as one box each: the graph "
                             "drawing holds at most 5,000 boxes and 10,000 edges, not 6,001 boxes and 6,000 edges"));
  CHECK(remat::test::slurp(svg).find(">n0 \u2026 n") != std::string::npos);  // one box: first … last

  // 150 ops, each reading every op before it: 11,325 edges, no chain to collapse.
  std::vector<std::pair<std::string, std::vector<std::string>>> dense;
  dense.reserve(150);
  for (int i = 0; i < 150; ++i) {
    std::vector<std::string> inputs{"x"};
    for (int j = 0; j < i; ++j) inputs.push_back("d" + std::to_string(j));
    dense.emplace_back("d" + std::to_string(i), std::move(inputs));
  }
  const std::string denseGraph = writeGraph("dense150.json", "dense", dense);
  fs::remove(svg);
  Run refused = runRemat({"render", denseGraph, "--figure", "graph", "-o", svg.string()});
  CHECK(refused.code == 1);
  CHECK(refused.err ==
        "remat: error: the graph drawing holds at most 5,000 boxes and 10,000 edges; this graph needs "
        "151 boxes and 11,325 edges: Graphviz's layout would take minutes or fail at this size. The "
        "timeline, schedule and layout figures have no such limit\n");
  CHECK_FALSE(fs::exists(svg));
  // compare --figures leaves that one figure out and writes the others.
  const fs::path dir = scratch() / "dense-figures";
  Run figures = runRemat({"compare", denseGraph, "--solvers", "store-all", "--figures", dir.string(), "--json"});
  CHECK(figures.code == 0);
  CHECK_THAT(figures.err, Catch::Contains("remat: warning: graph figure left out: the graph drawing holds at most"));
  CHECK(figures.json()["figures"].size() == 3);  // timeline, schedule, layout (no fronts from store-all)
  CHECK_FALSE(fs::exists(dir / "graph.svg"));
  CHECK(fs::exists(dir / "timeline.svg"));
}

TEST_CASE("an empty budget and batch 0 are usage errors, not silently no budget and the file's batch") {
  const std::string g = fixture("cli/chain3.json");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"solve", g, "-s", "store-all", "-b", ""},
           {"compare", g, "--solvers", "store-all", "-b", ""},
           {"render", g, "--figure", "timeline", "-o", (scratch() / "x.svg").string(), "-b", ""},
           {"validate", g, "--solvers", "store-all", "-b", "", "--runner", "/bin/false"}}) {
    Run r = runRemat(args);
    INFO(args[0] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("--budget: the budget is empty: give bytes or a size such as 2GiB, or leave "
                                        "the option out for no budget"));
  }
  CHECK(runRemat({"solve", g, "-s", "store-all", "--budget="}).code == 2);
  const std::string onnx = fixture("onnx/valid/mlp.onnx");
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"info", onnx, "--batch", "0"},
                                             {"convert", onnx, (scratch() / "o.json").string(), "--batch", "0"},
                                             {"max-batch", g, "--memory", "1GiB", "--batch", "0"},
                                             {"info", onnx, "--batch", "-2"}}) {
    Run r = runRemat(args);
    INFO(args[0] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("--batch: the batch size must be at least 1, got " + args.back()));
  }
  CHECK(runRemat({"info", onnx, "--batch", "3"}).code == 0);
}

TEST_CASE("refused graph files: duplicate JSON keys and cg ids beyond N exit with 3, the file and the place") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"native/invalid/duplicate_key.json",
       "duplicate_key.json: /nodes/1/bytes: duplicate key \"bytes\": a key may appear only once in an object"},
      {"checkmate/invalid/duplicate_key.json",
       "duplicate_key.json: /links/0/target: duplicate key \"target\": a key may appear only once in an object"},
      {"pfn/invalid/id_beyond_n.txt",
       "id_beyond_n.txt:4: variable id 7 is out of range: the first line declares N = 3 variables, ids 0 to 2"},
  };
  for (const auto& [file, message] : cases) {
    Run r = runRemat({"info", fixture(file)});
    INFO(file << ": " << r.err);
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::StartsWith("remat: error: " + fixture(file)));
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}

TEST_CASE(
    "time, work and memory limits: non-finite and negative time limits, bad work and memory limits are usage errors") {
  const std::string g = fixture("cli/chain3.json");
  for (const auto& [option, value, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--work-limit", "-1", "invalid work limit '-1': give a whole number of units"},
           {"--work-limit", "1.5", "invalid work limit '1.5'"},
           {"--work-limit", "many", "invalid work limit 'many'"},
           {"--time-limit", "nan", "the time limit must be a number of seconds, 0 or more"},
           {"--time-limit", "inf", "the time limit must be a number of seconds, 0 or more"},
           {"--time-limit", "-1", "the time limit must be a number of seconds, 0 or more"},
           {"--memory-limit", "5x", "invalid memory limit '5x': give a positive size such as 8GiB"},
           {"--memory-limit", "0", "invalid memory limit '0'"},
           {"--memory-limit", "", "--memory-limit: the memory limit is empty"}}) {
    for (const std::string command : {"solve", "compare", "min-budget", "sweep"}) {
      std::vector<std::string> args{command, g, option, value};
      if (command == "solve") args.insert(args.end(), {"-s", "store-all"});
      Run r = runRemat(args);
      INFO(command << " " << option << " '" << value << "': " << r.err);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::Contains(message));
    }
  }
  // A work limit stops a solve at the same point every time: exact-dp on a chain of twelve (least budget
  // 512 bytes), after two units, answers the same time limit twice; 0 is none.
  std::vector<std::pair<std::string, std::vector<std::string>>> chain;
  chain.reserve(12);
  for (int i = 0; i < 12; ++i)
    chain.emplace_back("r" + std::to_string(i), std::vector<std::string>{i == 0 ? "x" : "r" + std::to_string(i - 1)});
  const std::string twelve = writeGraph("work-chain.json", "work-chain", chain);
  const Run stopped = runRemat({"solve", twelve, "-s", "exact-dp", "-b", "600", "--work-limit", "2", "--json"});
  CHECK(stopped.code == 1);
  CHECK(stopped.json()["status"] == "time-limit");
  const Run again = runRemat({"solve", twelve, "-s", "exact-dp", "-b", "600", "--work-limit", "2", "--json"});
  CHECK(again.json()["message"] == stopped.json()["message"]);
  const Run unlimited = runRemat({"solve", twelve, "-s", "exact-dp", "-b", "600", "--work-limit", "0", "--json"});
  CHECK(unlimited.code == 0);
  CHECK(unlimited.json()["status"] == "optimal");
  // A limit of 10^10 s is none (it used to overflow the deadline and stop at once).
  Run far = runRemat({"solve", g, "-s", "dtr", "-b", "200", "--time-limit", "1e10", "--json"});
  CHECK(far.code == 0);
  CHECK(far.json()["status"] == "feasible");
}

TEST_CASE("every solver answers within its time limit on a 100,000-op chain and on inception_v3") {
  // The wall-clock path, end to end: one `compare` per graph runs every registered solver with
  // --time-limit 1 (an explicit limit, so milp and lp-bound try the graphs too); each row must be an
  // answer, not an error, and the whole command must end under an outer limit far beyond the solvers'
  // 1 s each. How close to the limit each one stops is measured in bench/limits.sh, not asserted here.
  std::vector<std::pair<std::string, std::vector<std::string>>> ops;
  ops.reserve(100000);
  for (int k = 0; k < 100000; ++k)
    ops.emplace_back("op" + std::to_string(k), std::vector<std::string>{k ? "op" + std::to_string(k - 1) : "x"});
  const std::string chain = writeGraph("chain-100000.json", "chain-100000", ops);
  const std::string inception = std::string(REMAT_SOURCE_DIR) + "/datasets/inception_v3.json";
  for (const auto& [graph, budget] :
       std::vector<std::pair<std::string, std::string>>{{chain, "3MB"}, {inception, "2GB"}}) {
    INFO(graph);
    Run r = remat::test::runProgram(
        "timeout",
        {"-s", "KILL", "600", REMAT_BINARY, "compare", graph, "-b", budget, "--time-limit", "1", "--table", "json"},
        scratch());
    INFO(r.err);
    REQUIRE(r.code >= 0);
    REQUIRE(r.code <= 1);
    const auto doc = r.json();
    std::size_t rows = 0;
    for (const auto& row : doc["rows"]) {
      INFO(row["solver"] << ": " << row["status"] << " " << row["message"]);
      CHECK(row["call"] == "ok");
      ++rows;
    }
    CHECK(rows >= 9);
  }
}

TEST_CASE("pins on the command line: a kept op is computed once, bad names and files are refused") {
  const auto ops = pinChain();
  const std::string g = writeGraph("pins-chain.json", "pins-chain", ops);
  for (const char* solver : {"exact-dp", "approx-dp", "dtr"}) {
    INFO(solver);
    const Run least = runRemat({"min-budget", g, "-s", solver, "--json"});
    REQUIRE(least.code == 0);
    const std::string budget = std::to_string(nlohmann::json::parse(least.out)["min_budget_bytes"].get<std::int64_t>());
    const Run plain = runRemat({"solve", g, "-s", solver, "-b", budget, "--json"});
    REQUIRE(plain.code == 0);
    const auto plan = nlohmann::json::parse(plain.out);
    std::string recomputed;
    for (const auto& [name, inputs] : ops)
      if (forwardsOf(plan, name) > 1) recomputed = name;
    REQUIRE(!recomputed.empty());
    // Pinned keep, the op is computed once; the least budget under the pin is at least as high.
    const Run pinnedLeast = runRemat({"min-budget", g, "-s", solver, "--keep", recomputed, "--json"});
    REQUIRE(pinnedLeast.code == 0);
    const auto b = nlohmann::json::parse(pinnedLeast.out)["min_budget_bytes"].get<std::int64_t>();
    CHECK(b >= std::stoll(budget));
    const Run pinned = runRemat({"solve", g, "-s", solver, "-b", std::to_string(b), "--keep", recomputed, "--json"});
    INFO(pinned.err);
    REQUIRE(pinned.code == 0);
    const auto p = nlohmann::json::parse(pinned.out);
    CHECK(forwardsOf(p, recomputed) == 1);
    CHECK(p["pins"]["keep"][0] == recomputed);
    CHECK(p["metrics"]["simulated_peak_bytes"].get<std::int64_t>() <= b);
  }
  // Bad pins: a usage error on the command line, an input error in a file, each named.
  Run r = runRemat({"solve", g, "-s", "exact-dp", "--keep", "nope"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot pin 'nope' as keep: the graph has no node of that name"));
  r = runRemat({"solve", g, "-s", "exact-dp", "--keep", "x"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("it is an input or a parameter"));
  r = runRemat({"solve", g, "-s", "exact-dp", "--keep", "r3", "--recompute", "r3"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("'r3' is pinned both as keep and as recompute"));
  const fs::path file = scratch() / "pins.json";
  remat::test::writeFile(file, R"({"keep": ["r2"], "recompute": [4]})");
  r = runRemat({"solve", g, "-s", "exact-dp", "--pins", file.string()});
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("/recompute/0: expected a node name, got 4"));
  remat::test::writeFile(file, R"({"keep": ["r2"], "recompute": ["r5"]})");
  r = runRemat({"solve", g, "-s", "exact-dp", "--pins", file.string(), "--json"});
  CHECK(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["pins"]["recompute"][0] == "r5");
  r = runRemat({"solve", g, "-s", "chen-sqrtn", "--pins", file.string()});
  CHECK_THAT(r.out, Catch::Contains("chen-sqrtn ignores keep and recompute pins"));
}

TEST_CASE("pins a graph file carries: every plan is made under them unless --no-graph-pins") {
  const auto ops = pinChain();
  const std::string bare = writeGraph("graph-pins-bare.json", "graph-pins", ops);
  auto leastOf = [](const Run& r) { return nlohmann::json::parse(r.out)["min_budget_bytes"].get<std::int64_t>(); };
  // An operation exact-dp recomputes at its least budget, pinned keep by the graph file itself.
  const Run least = runRemat({"min-budget", bare, "-s", "exact-dp", "--json"});
  REQUIRE(least.code == 0);
  const Run plain = runRemat({"solve", bare, "-s", "exact-dp", "-b", std::to_string(leastOf(least)), "--json"});
  REQUIRE(plain.code == 0);
  std::string recomputed;
  for (const auto& [name, inputs] : ops)
    if (forwardsOf(nlohmann::json::parse(plain.out), name) > 1) recomputed = name;
  REQUIRE(!recomputed.empty());
  const std::string g = writeGraph("graph-pins.json", "graph-pins", ops, {{"keep", {recomputed}}});

  Run r = runRemat({"info", g, "--json"});
  REQUIRE(r.code == 0);
  CHECK(r.json()["pins"]["keep"] == nlohmann::json::array({recomputed}));
  CHECK_THAT(runRemat({"info", g}).out, Catch::Contains("Pins               1 keep, 0 recompute"));
  // The graph's pins act as --keep does: the same least budget, the op computed once.
  const Run pinnedLeast = runRemat({"min-budget", g, "-s", "exact-dp", "--json"});
  REQUIRE(pinnedLeast.code == 0);
  const Run byHand = runRemat({"min-budget", bare, "-s", "exact-dp", "--keep", recomputed, "--json"});
  REQUIRE(byHand.code == 0);
  CHECK(leastOf(pinnedLeast) == leastOf(byHand));
  const std::string b = std::to_string(leastOf(pinnedLeast));
  r = runRemat({"solve", g, "-s", "exact-dp", "-b", b, "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(forwardsOf(r.json(), recomputed) == 1);
  CHECK(r.json()["pins"]["keep"] == nlohmann::json::array({recomputed}));
  // --no-graph-pins plans the graph unpinned.
  r = runRemat({"solve", g, "-s", "exact-dp", "-b", std::to_string(leastOf(least)), "--no-graph-pins", "--json"});
  REQUIRE(r.code == 0);
  CHECK(r.json()["pins"]["keep"].empty());
  CHECK(forwardsOf(r.json(), recomputed) > 1);
  // A solver that ignores pins says so for the graph's pins too, and does not win a comparison.
  r = runRemat({"compare", g, "-b", b, "--solvers", "exact-dp,chen-sqrtn", "--json"});
  REQUIRE(r.code == 0);
  for (const auto& row : r.json()["rows"]) {
    INFO(row["solver"]);
    CHECK(row["pins_ignored"].is_null() == (row["solver"] == "exact-dp"));
  }
  r = runRemat({"compare", g, "-b", b, "--solvers", "exact-dp,chen-sqrtn"});
  CHECK_THAT(r.out, Catch::Contains("honoured"));
  CHECK_THAT(r.out, Catch::Contains("ignores keep"));
  // The command line may add pins, not contradict the graph's (unless it leaves them out).
  r = runRemat({"solve", g, "-s", "exact-dp", "--recompute", recomputed});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("'" + recomputed + "' is pinned both as keep and as recompute"));
  CHECK_THAT(r.err, Catch::Contains("--no-graph-pins"));
  r = runRemat({"solve", g, "-s", "exact-dp", "--no-graph-pins", "--recompute", recomputed, "--json"});
  CHECK(r.code == 0);
  CHECK(r.json()["pins"]["recompute"] == nlohmann::json::array({recomputed}));
  // convert keeps them, or writes the graph without them.
  const std::string kept = (scratch() / "graph-pins-kept.json").string();
  const std::string dropped = (scratch() / "graph-pins-dropped.json").string();
  REQUIRE(runRemat({"convert", g, kept}).code == 0);
  REQUIRE(runRemat({"convert", g, dropped, "--no-graph-pins"}).code == 0);
  CHECK(runRemat({"info", kept, "--json"}).json()["pins"]["keep"] == nlohmann::json::array({recomputed}));
  CHECK(runRemat({"info", dropped, "--json"}).json()["pins"]["keep"].empty());
}
