// remat-runner plays every solver's plan on the small graphs of datasets/small/ with real tensors; its
// exact accounting of live storage must equal the simulator's timeline at every step, and the parameter
// gradients must equal the plain framework run's. Bad input gets its documented exit code and leaves no
// output file.

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ProgramRun.hpp"
#include "Sanitized.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Run = remat::test::ProgramRun;
using remat::test::slurp;

fs::path scratch() { return remat::test::scratchDir("remat-runtime-test"); }

// This test's own look at whether the kernel counts minor page faults: a fresh anonymous mapping of 8
// pages, each written once, must fault at least once where they are counted.
bool minorFaultsCounted() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = 8 * page;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(region != MAP_FAILED);
  rusage before{};
  rusage after{};
  getrusage(RUSAGE_SELF, &before);
  for (std::size_t offset = 0; offset < bytes; offset += page) static_cast<volatile char*>(region)[offset] = 1;
  getrusage(RUSAGE_SELF, &after);
  munmap(region, bytes);
  return after.ru_minflt > before.ru_minflt;
}
void write(const fs::path& p, const std::string& text) { remat::test::writeFile(p, text); }
Run runner(const std::vector<std::string>& args) { return remat::test::runProgram(REMAT_RUNNER, args, scratch()); }

std::string small(const std::string& name) {
  return std::string(REMAT_SOURCE_DIR) + "/datasets/small/" + name + ".json";
}

remat::graph::ComputeGraph load(const std::string& path) {
  auto r = remat::io::readGraphFile(path);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Compares a measurement with the simulator's timeline of the same schedule, step by step and category by
// category, exactly: storage that only zero-byte views hold (a view keeps its base's storage alive) and
// views' full-size gradients are in the simulator's accounting too. `aliasSeen` is the most the runner
// saw only views hold, so the test knows the graph exercised that part of the model.
void compareWithSimulator(const remat::graph::ComputeGraph& g, const remat::sim::Schedule& schedule, const json& m,
                          std::int64_t& aliasSeen) {
  const auto sim = remat::sim::Simulator(g).run(schedule);
  REQUIRE(sim.valid());
  const auto& points = sim.timeline.points();
  REQUIRE(m["steps"].size() == points.size());
  std::int64_t allocatorPeak = 0;
  for (std::size_t s = 0; s < points.size(); ++s) {
    const json& step = m["steps"][s];
    INFO("step " << s << ": " << step["kind"].get<std::string>() << " " << step["node"].get<std::string>());
    CHECK(step["kind"] == std::string(remat::sim::stepKindName(schedule[s].kind)));
    CHECK(step["node"] == g.node(schedule[s].node).name);
    const json& d = step["during"];
    const auto& p = points[s].during;
    REQUIRE(p.workspace.value == 0);  // the small graphs declare no workspace; the runner counts none
    CHECK(d["params"].get<std::int64_t>() == p.params.value);
    CHECK(d["param_grads"].get<std::int64_t>() == p.paramGrads.value);
    CHECK(d["inputs"].get<std::int64_t>() == p.inputs.value);
    CHECK(d["values"].get<std::int64_t>() == p.values.value);
    CHECK(d["recomputed"].get<std::int64_t>() == p.recomputed.value);
    CHECK(d["grads"].get<std::int64_t>() == p.grads.value);
    CHECK(d["total"].get<std::int64_t>() == p.total().value);
    CHECK(step["after"]["total"].get<std::int64_t>() == points[s].after.value);
    aliasSeen = std::max(aliasSeen, step["during_view_alias"]["total"].get<std::int64_t>());
    // The CPU allocator, counted by the runner, holds at least what the tables hold, at every moment;
    // its peak within the step adds the step's temporaries.
    const json& a = step["allocator"];
    REQUIRE(a.is_object());
    CHECK(a["peak"].get<std::int64_t>() >= d["total"].get<std::int64_t>());
    CHECK(a["peak"].get<std::int64_t>() >= a["during"].get<std::int64_t>());
    CHECK(a["during"].get<std::int64_t>() >= d["total"].get<std::int64_t>());
    CHECK(a["after"].get<std::int64_t>() >= step["after"]["total"].get<std::int64_t>());
    allocatorPeak = std::max(allocatorPeak, a["peak"].get<std::int64_t>());
  }
  REQUIRE(m["cpu_allocator"].is_object());
  CHECK(m["cpu_allocator"]["peak_bytes"].get<std::int64_t>() == allocatorPeak);
  CHECK(allocatorPeak >= m["peak_bytes"].get<std::int64_t>());
}

bool hasViews(const remat::graph::ComputeGraph& g) {
  for (std::uint32_t v = g.firstOp(); v < g.size(); ++v)
    if (g.node(remat::graph::NodeId{v}).bytes.value == 0) return true;
  return false;
}

// Plays `result`'s plan of graph `name` once with the gradient check and compares it with the simulator at
// every step; returns the most storage only views held.
std::int64_t playAndCompare(const std::string& name, const remat::graph::ComputeGraph& g, const std::string& id,
                            const std::string& stem, const remat::solvers::SolveResult& result) {
  INFO(stem << " (" << result.plan->schedule.size() << " steps, " << result.metrics.recomputations
            << " recomputations)");
  const fs::path planFile = scratch() / (stem + ".plan.json");
  const fs::path out = scratch() / (stem + ".measurement.json");
  write(planFile, remat::io::writePlanJson(g, result));
  const Run r = runner({small(name), "--plan", planFile.string(), "--check-grads", "--warmup", "0", "--iterations", "1",
                        "--threads", "1", "-o", out.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json m = json::parse(slurp(out));
  CHECK(m["format"] == "remat-measurement");
  CHECK(m["graph"] == g.name());
  CHECK(m["solver"] == id);
  CHECK(m["gradient_check"]["passed"] == true);
  CHECK(m["gradient_check"]["reference"] == "baseline");
  std::int64_t alias = 0;
  compareWithSimulator(g, result.plan->schedule, m, alias);
  CHECK(m["peak_bytes"].get<std::int64_t>() == result.metrics.simulatedPeak.value);
  return alias;
}

}  // namespace

TEST_CASE("every solver's plan on the small graphs: the runner's bytes equal the simulator's at every step") {
  const std::string name = GENERATE(as<std::string>{}, "mlp", "cnn-skip", "transformer-block");
  const auto g = load(small(name));
  const bool views = hasViews(g);
  CHECK(views == (name == "transformer-block"));
  const auto& registry = remat::solvers::SolverRegistry::builtin();
  std::set<std::vector<std::pair<int, std::uint32_t>>> played;
  int plans = 0;
  std::int64_t aliasHeld = 0;
  for (const std::string id : {"store-all", "chen-sqrtn", "chen-greedy", "exact-dp", "approx-dp"}) {
    const remat::solvers::Solver* solver = registry.find(id);
    REQUIRE(solver != nullptr);
    remat::solvers::SolveRequest request;
    request.graph = &g;
    // The solver's least feasible budget (the most recomputation) and no budget (the least).
    for (const bool least : {true, false}) {
      const auto result = least ? remat::solvers::solveAtLeastBudget(*solver, request) : solver->solve(request);
      if (!result.plan) continue;  // the solver gives no plan for this graph (chen-* without single-boundary cuts)
      std::vector<std::pair<int, std::uint32_t>> key;
      for (const auto& s : result.plan->schedule) key.emplace_back(static_cast<int>(s.kind), s.node.value);
      if (!played.insert(key).second) continue;
      ++plans;
      std::string label = name;
      label.append("-").append(id).append(least ? "-least" : "");
      const std::int64_t alias = playAndCompare(name, g, id, label, result);
      if (!views) CHECK(alias == 0);
      aliasHeld = std::max(aliasHeld, alias);
    }
  }
  CHECK(plans >= 3);
  // The transformer block's plans have views holding storage: the view part of the model is exercised.
  if (views) CHECK(aliasHeld > 0);
}

// Networks of datasets/ at a reduced size (datasets/small/README.md): ViT-B/16 on 32x32 images and GPT-2
// small on a 32-token context, imported from ONNX like the full ones. They need what the full networks
// need: Slice, Expand, Concat, Split, Where with a -inf fill and a drawn causal mask, constants with
// their values (LayerNorm's exponent and epsilon, a Gather index), and the head merge, a Reshape of a
// transposed tensor that copies. (BERT-base at 2x16 plays too, but the CPU BLAS here makes it ~4 s an
// iteration: scripts/gpu-check.sh --cpu-dry-run validates it.)
namespace {

void playReducedTransformer(const std::string& name) {
  const auto g = load(small(name));
  std::size_t copies = 0, constants = 0;
  for (const auto& n : g.nodes()) {
    copies += n.op == "Reshape" && n.bytes.value > 0;
    constants += n.constant;
  }
  CHECK(copies == 12);  // one head merge per layer
  CHECK(constants > 0);
  // One plan, with recomputations: its forward and backward are the plain run's with segments played
  // again (the plain run's own schedule is played on the small graphs above; the gradient check plays
  // the plain run here as its reference). These reduced transformers are mostly parameters: in the
  // simulator's model no chain beats the plain peak, so the plan with recomputations (views recomputed
  // and shared) comes from the paper's model.
  remat::solvers::SolveRequest paper;
  paper.graph = &g;
  paper.model = remat::solvers::DpModelKind::Paper;
  const auto least =
      remat::solvers::solveAtLeastBudget(*remat::solvers::SolverRegistry::builtin().find("approx-dp"), paper);
  REQUIRE(least.plan);
  CHECK(least.metrics.recomputations > 0);
  CHECK(playAndCompare(name, g, "approx-dp", name + "-approx-dp-least", least) > 0);  // storage only views held
}

}  // namespace

// Tagged [libtorch-heavy]: the sanitizer build leaves them out (tests/CMakeLists.txt); its runner runs the
// small graphs' plans above, the same code on networks a hundred times smaller.
TEST_CASE("reduced ViT-B/16 of datasets/: the runner's bytes equal the simulator's, gradients the baseline's",
          "[transformers][libtorch-heavy]") {
  playReducedTransformer("vit_b_16-32px");
}

TEST_CASE("reduced GPT-2 of datasets/: the runner's bytes equal the simulator's, gradients the baseline's",
          "[transformers][libtorch-heavy]") {
  playReducedTransformer("gpt2_small-1x32");
}

TEST_CASE("without liveness the runner frees only what the schedule states, as the simulator then does") {
  const auto g = load(small("cnn-skip"));
  remat::solvers::SolveRequest request;
  request.graph = &g;
  request.liveness = false;
  const auto result =
      remat::solvers::solveAtLeastBudget(*remat::solvers::SolverRegistry::builtin().find("exact-dp"), request);
  REQUIRE(result.plan);
  const fs::path planFile = scratch() / "cnn-no-liveness.plan.json";
  const fs::path out = scratch() / "cnn-no-liveness.json";
  write(planFile, remat::io::writePlanJson(g, result));
  const Run r = runner({small("cnn-skip"), "--plan", planFile.string(), "--no-liveness", "--check-grads", "--warmup",
                        "0", "--iterations", "1", "-o", out.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json m = json::parse(slurp(out));
  CHECK(m["liveness"] == false);
  CHECK(m["gradient_check"]["passed"] == true);
  const auto sim = remat::sim::Simulator(g, remat::sim::SimulatorOptions{.liveness = false}).run(result.plan->schedule);
  REQUIRE(sim.valid());
  REQUIRE(m["steps"].size() == sim.timeline.size());
  for (std::size_t s = 0; s < sim.timeline.size(); ++s) {
    INFO("step " << s);
    CHECK(m["steps"][s]["during"]["total"].get<std::int64_t>() == sim.timeline.points()[s].during.total().value);
    CHECK(m["steps"][s]["after"]["total"].get<std::int64_t>() == sim.timeline.points()[s].after.value);
  }
}

TEST_CASE("the runner's baseline and a saved-gradient comparison agree") {
  const fs::path grads = scratch() / "baseline.grads";
  const fs::path out = scratch() / "baseline.json";
  Run r = runner({small("cnn-skip"), "--baseline", "--warmup", "0", "--iterations", "1", "--grads-out", grads.string(),
                  "-o", out.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json m = json::parse(slurp(out));
  CHECK(m["mode"] == "baseline");
  CHECK(m["steps"].empty());
  CHECK(m["iteration_seconds"].size() == 1);

  const auto g = load(small("cnn-skip"));
  remat::solvers::SolveRequest request;
  request.graph = &g;
  const auto result =
      remat::solvers::solveAtLeastBudget(*remat::solvers::SolverRegistry::builtin().find("approx-dp"), request);
  REQUIRE(result.plan);
  const fs::path planFile = scratch() / "cnn-approx.plan.json";
  write(planFile, remat::io::writePlanJson(g, result));
  const fs::path out2 = scratch() / "cnn-approx.json";
  r = runner({small("cnn-skip"), "--plan", planFile.string(), "--grads-ref", grads.string(), "--warmup", "0",
              "--iterations", "1", "-o", out2.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json m2 = json::parse(slurp(out2));
  CHECK(m2["gradient_check"]["passed"] == true);
  CHECK(m2["gradient_check"]["reference"] == grads.string());
  // Batch norm's running statistics get a gradient buffer in the simulator's model and no contribution.
  CHECK(m2["model_only_param_grads"].size() == 8);

  // Another seed's parameters and inputs against the same reference: different gradients, found parameter
  // by parameter, and exit code 1.
  const fs::path out3 = scratch() / "cnn-approx-seed1.json";
  r = runner({small("cnn-skip"), "--plan", planFile.string(), "--grads-ref", grads.string(), "--seed", "1", "--warmup",
              "0", "--iterations", "1", "-o", out3.string()});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("DIFFERENT"));
  const json m3 = json::parse(slurp(out3));
  CHECK(m3["gradient_check"]["passed"] == false);
  int weights = 0;
  for (const json& p : m3["gradient_check"]["params"]) {
    INFO(p["name"]);
    const std::string name = p["name"];
    if (name.find("weight") == std::string::npos) continue;
    ++weights;
    CHECK(p["ok"] == false);
    CHECK(p["max_abs_diff"].get<double>() > 0.0);
    CHECK(std::isfinite(p["max_abs_diff"].get<double>()));
    CHECK(p["max_rel_diff"].get<double>() > 1e-3);
  }
  CHECK(weights >= 5);  // the convolutions', normalisations' and linear head's weights
}

TEST_CASE("the runner's plain framework run holds what eager PyTorch holds: within 1% of the simulator's plain run") {
  // Under autograd, as an eager program: each value is let go after its last consumer (autograd keeps
  // what the backwards save), and a parameter's first gradient becomes its .grad without a copy. Before
  // both, the runner's plain run of this graph was 5% above the simulator (values kept to the end, every
  // gradient copied into a buffer); real PyTorch's, recorded by runtime/trace_step.py, is within 0.5%.
  const auto g = load(small("resnet18-64px"));
  remat::solvers::SolveRequest request;
  request.graph = &g;
  const auto plain = remat::solvers::SolverRegistry::builtin().find("store-all")->solve(request);
  REQUIRE(plain.plan);
  const fs::path out = scratch() / "resnet18-baseline.json";
  Run r = runner({small("resnet18-64px"), "--baseline", "--warmup", "0", "--iterations", "1", "--threads", "1", "-o",
                  out.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json m = json::parse(slurp(out));
  const auto allocator = m["cpu_allocator"]["peak_bytes"].get<std::int64_t>();
  const auto simulated = plain.metrics.simulatedPeak.value;
  INFO("allocator " << allocator << ", simulated " << simulated);
  CHECK(std::abs(double(allocator - simulated)) <= 0.01 * double(simulated));
}

// datasets/small/mlp.json with its batch of 4 made `batch`: every value and gradient of a node with the batch
// dimension grows with it, bytes to match.
fs::path widenedMlp(std::int64_t batch) {
  json g = json::parse(slurp(small("mlp")));
  for (json& node : g["nodes"]) {
    if (!node.contains("shape") || node["shape"].empty() || node["shape"][0] != 4) continue;
    if (node["kind"] == "param") continue;
    node["shape"][0] = batch;
    std::int64_t elements = 1;
    for (const json& d : node["shape"]) elements *= d.get<std::int64_t>();
    node["bytes"] = elements * (node["dtype"] == "int64" ? 8 : 4);
  }
  g["name"] = "mlp-wide";
  fs::path path = scratch() / "mlp-wide.json";
  write(path, g.dump());
  return path;
}

TEST_CASE("the runner keeps freed CPU memory for reuse: no page faults once warm, unless --return-memory") {
  // The MLP at a batch of 147,456 has hidden values and gradients of 36 MiB. Under glibc's defaults a
  // block over 32 MiB (the most its sliding mmap threshold reaches) always gets a mapping of its own,
  // unmapped when freed, so every iteration page-faults each of them in again; kept (glibc's heap, and the
  // counting allocator's blocks of 1 MiB or more by size), the measured iterations reuse what the
  // warm-ups touched. Glibc's kept heap alone grew again in later iterations here, depending on the
  // scratch folder's path. (A graph whose blocks stay under 32 MiB, ResNet-18's 9.4 MB weight-gradient
  // buffers for one, may or may not be handed back: that depends on the order of the C library's earlier
  // frees, and on one CI machine they never were.) Played as store-all's plan.
  // Under a sanitizer only the heap's labels are checked (its allocator takes no setting): the MLP as it is.
  const fs::path graph = widenedMlp(remat::test::kSanitized ? 4 : 147456);
  const auto g = load(graph.string());
  remat::solvers::SolveRequest request;
  request.graph = &g;
  const auto storeAll = remat::solvers::SolverRegistry::builtin().find("store-all")->solve(request);
  REQUIRE(storeAll.plan);
  const fs::path plan = scratch() / "mlp-wide.plan.json";
  write(plan, remat::io::writePlanJson(g, storeAll));
  auto play = [&](const std::vector<std::string>& extra) {
    const fs::path out = scratch() / "mlp-wide-heap.json";
    std::vector<std::string> args{graph.string(), "--plan", plan.string(), "--warmup",  "1", "--iterations", "1",
                                  "--threads",    "1",      "-o",          out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const Run r = runner(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return json::parse(slurp(out));
  };
  const json kept = play({});
  const json returned = play({"--return-memory"});
  CHECK(returned["cpu_heap"] == "returned");
  if (remat::test::kSanitized) {
    CHECK(kept["cpu_heap"] == "default");  // the sanitizer's allocator replaces glibc's and takes no setting
  } else {
    CHECK(kept["cpu_heap"] == "kept");
  }
  // Where the kernel counts no faults (some sandboxes), both runs say so with null rather than with a 0.
  const bool counted = minorFaultsCounted();
  CHECK(kept["page_faults"].is_null() == !counted);
  CHECK(returned["page_faults"].is_null() == !counted);
  if (!counted) {
    WARN("this kernel counts no minor page faults: the fault comparison is not made here");
    return;
  }
  const auto keptFaults = kept["page_faults"].get<std::int64_t>();
  const auto returnedFaults = returned["page_faults"].get<std::int64_t>();
  INFO("page faults over the measured iterations: " << keptFaults << " kept, " << returnedFaults << " returned");
  if (!remat::test::kSanitized) {
    // The measured iteration makes 8 blocks of 36 MiB (75,900 faults here, with 4 KiB pages): at least
    // 144 faults even where the kernel backs them with 2 MiB pages.
    CHECK(returnedFaults > 100);
    CHECK(keptFaults * 20 < returnedFaults);
  }
}

TEST_CASE("bad input: documented exit codes, messages naming file, node and step, and no output file") {
  const fs::path dir = scratch();
  const fs::path out = dir / "never.json";
  fs::remove(out);
  const auto mlp = load(small("mlp"));
  remat::solvers::SolveRequest request;
  request.graph = &mlp;
  const auto storeAll = remat::solvers::SolverRegistry::builtin().find("store-all")->solve(request);
  REQUIRE(storeAll.plan);
  const std::string planText = remat::io::writePlanJson(mlp, storeAll);
  const fs::path mlpPlan = dir / "mlp.plan.json";
  write(mlpPlan, planText);

  SECTION("a plan for another graph: exit 5") {
    const Run r = runner({small("cnn-skip"), "--plan", mlpPlan.string(), "-o", out.string()});
    CHECK(r.code == 5);
    CHECK_THAT(r.err, Catch::Contains("mlp.plan.json") && Catch::Contains("is for graph 'mlp', not for 'cnn-skip'"));
  }
  SECTION("a plan whose nodes are not in the graph: exit 5 with the step") {
    json plan = json::parse(planText);
    plan["graph"] = "cnn-skip";
    write(dir / "renamed.plan.json", plan.dump());
    const Run r = runner({small("cnn-skip"), "--plan", (dir / "renamed.plan.json").string(), "-o", out.string()});
    CHECK(r.code == 5);
    CHECK_THAT(r.err, Catch::Contains("step 0: node '") && Catch::Contains("is not in graph 'cnn-skip'"));
  }
  SECTION("a schedule the runner cannot play: exit 6 with the step") {
    json plan = json::parse(planText);
    std::swap(plan["schedule"][0], plan["schedule"][1]);  // the ReLU before the Gemm it reads
    write(dir / "swapped.plan.json", plan.dump());
    const Run r = runner({small("mlp"), "--plan", (dir / "swapped.plan.json").string(), "-o", out.string()});
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("swapped.plan.json: step 0 (fwd '/net/Relu_output_0')") &&
                          Catch::Contains("is not in memory"));
  }
  SECTION("an incomplete schedule: exit 6") {
    json plan = json::parse(planText);
    plan["schedule"].erase(plan["schedule"].size() - 1);
    write(dir / "short.plan.json", plan.dump());
    const Run r = runner({small("mlp"), "--plan", (dir / "short.plan.json").string(), "-o", out.string()});
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("ends before the backward of"));
  }
  SECTION("an operation the runner cannot execute: exit 7 before anything runs") {
    json graph = json::parse(slurp(small("mlp")));
    for (auto& n : graph["nodes"])
      if (n.value("op", "") == "Relu") n["op"] = "Frobnicate";
    write(dir / "unknown-op.json", graph.dump());
    const Run r = runner({(dir / "unknown-op.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 7);
    CHECK_THAT(r.err, Catch::Contains("node '/net/Relu_output_0': op Frobnicate is not supported by remat-runner"));
  }
  SECTION("a backward that needs a value the graph does not save: exit 7") {
    json graph = json::parse(slurp(small("mlp")));
    for (auto& n : graph["nodes"])
      if (n.value("op", "") == "Relu") n["saves"] = {{"inputs", json::array()}, {"output", false}};
    write(dir / "unsaved.json", graph.dump());
    const Run r = runner({(dir / "unsaved.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 7);
    CHECK_THAT(r.err, Catch::Contains("its backward needs its output, which the graph does not save"));
  }
  SECTION("a graph whose size disagrees with its shape: exit 3 naming the node") {
    json graph = json::parse(slurp(small("mlp")));
    graph["nodes"][8]["bytes"] = 999;
    write(dir / "size.json", graph.dump());
    const Run r = runner({(dir / "size.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("/nodes/8") && Catch::Contains("bytes 999 differ from shape x dtype"));
    CHECK_THAT(r.err, !Catch::Contains("captured from PyTorch"));
    // A graph captured from PyTorch (its ops name their torch operation) is pointed to remat.torch.
    graph["nodes"][8]["attrs"] = {{"torch", "relu"}};
    write(dir / "captured.json", graph.dump());
    const Run c = runner({(dir / "captured.json").string(), "--baseline", "-o", out.string()});
    CHECK(c.code == 3);
    CHECK_THAT(c.err, Catch::Contains("a graph captured from PyTorch runs in PyTorch instead"));
  }
  SECTION("malformed JSON: exit 3") {
    write(dir / "broken.json", "{\"format\": \"remat-graph\", \"nodes\": [");
    const Run r = runner({(dir / "broken.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("broken.json: not valid JSON"));
    write(dir / "broken.plan.json", "[1, 2");
    const Run p = runner({small("mlp"), "--plan", (dir / "broken.plan.json").string(), "-o", out.string()});
    CHECK(p.code == 3);
    CHECK_THAT(p.err, Catch::Contains("broken.plan.json: not valid JSON"));
  }
  SECTION("a missing file: exit 3") {
    const Run r = runner({(dir / "missing.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("missing.json: cannot open the file"));
  }
  SECTION("a graph or plan that is no regular file (/dev/zero, a FIFO without writer): exit 3, unread") {
    const Run g = runner({"/dev/zero", "--baseline", "-o", out.string()});
    CHECK(g.code == 3);
    CHECK_THAT(g.err, Catch::Contains("/dev/zero: not a regular file"));
    const Run p = runner({small("mlp"), "--plan", "/dev/zero", "-o", out.string()});
    CHECK(p.code == 3);
    CHECK_THAT(p.err, Catch::Contains("/dev/zero: not a regular file"));
    const fs::path fifo = dir / "graph.fifo";
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // opening it to read would block for ever
    const Run f = runner({fifo.string(), "--baseline", "-o", out.string()});
    CHECK(f.code == 3);
    CHECK_THAT(f.err, Catch::Contains("not a regular file"));
  }
  SECTION("usage errors: exit 2") {
    CHECK(runner({small("mlp"), "-o", out.string()}).code == 2);  // neither --plan nor --baseline
    CHECK(runner({small("mlp"), "--baseline", "--iterations", "0"}).code == 2);
    CHECK(runner({small("mlp"), "--baseline", "--bogus"}).code == 2);
  }
  SECTION("cuda where the runner has none, or a device that does not exist: exit 9 or 2") {
    const Run r = runner({small("mlp"), "--plan", mlpPlan.string(), "--device", "cuda", "-o", out.string()});
    CHECK((r.code == 9 || r.code == 0));
    if (r.code == 0) fs::remove(out);  // a machine with a GPU
    CHECK(runner({small("mlp"), "--baseline", "--device", "tpu"}).code == 2);
  }
  SECTION("a device that runs out of memory: exit 10, named as such") {
    // A 1 TiB input: the CPU allocator refuses it (more than this machine's memory) before any step runs.
    json graph = json::parse(slurp(small("mlp")));
    for (auto& n : graph["nodes"])
      if (n["id"] == "x") {
        n["shape"] = {4, std::int64_t{1} << 36};
        n["bytes"] = std::int64_t{1} << 40;
      }
    write(dir / "huge.json", graph.dump());
    const Run r = runner({(dir / "huge.json").string(), "--baseline", "-o", out.string()});
    CHECK(r.code == 10);
    CHECK_THAT(r.err, Catch::Contains("out of memory"));
  }
  SECTION("--help documents every exit code") {
    const Run help = runner({"--help"});
    CHECK(help.code == 0);
    const std::string& text = help.out;
    for (const char* code :
         {"  0  ", "  1  ", "  2  ", "  3  ", "  4  ", "  5  ", "  6  ", "  7  ", "  8  ", "  9  ", "  10 "})
      CHECK_THAT(text, Catch::Contains(code));
  }
  CHECK_FALSE(fs::exists(out));
  // No temporary file is left next to the output either.
  for (const auto& entry : fs::directory_iterator(dir))
    CHECK(entry.path().filename().string().find("never.json") == std::string::npos);
}
