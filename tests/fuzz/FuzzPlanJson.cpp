// libFuzzer entry point for readPlanJson on the graph of tests/fixtures/plan/ (tests/fixtures/cli/chain3.json):
// any bytes must give a plan or an error, never a crash; a plan read must be one the simulator accepts,
// and it must survive writePlanJson -> readPlanJson unchanged.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "remat/io/NativeJson.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/sim/Simulator.hpp"

namespace {

// tests/fixtures/cli/chain3.json: x (input) -> a (Conv) -> b (Conv) -> c (Relu).
constexpr std::string_view kGraph = R"({"format": "remat-graph", "version": 1, "name": "chain3", "time_unit": "ticks",
 "nodes": [
  {"id": "x", "kind": "input", "bytes": 5},
  {"id": "a", "kind": "op", "op": "Conv", "inputs": ["x"], "bytes": 10, "fwd_time": 1, "bwd_time": 1,
   "saves": {"inputs": [0], "output": false}},
  {"id": "b", "kind": "op", "op": "Conv", "inputs": ["a"], "bytes": 20, "fwd_time": 2, "bwd_time": 2,
   "saves": {"inputs": [0], "output": false}},
  {"id": "c", "kind": "op", "op": "Relu", "inputs": ["b"], "bytes": 30, "fwd_time": 3, "bwd_time": 3,
   "saves": {"inputs": [], "output": true}}]})";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s\n%s\n", what, detail.c_str());
  std::abort();
}

const remat::graph::ComputeGraph& fixtureGraph() {
  static const remat::graph::ComputeGraph g = [] {
    auto r = remat::io::readNativeJson(kGraph, "chain3.json");
    if (!r.ok()) fail("the fuzzer's graph does not read:", r.errorText());
    return std::move(r).value();
  }();
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace remat;
  const graph::ComputeGraph& g = fixtureGraph();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto read = io::readPlanJson(text, "fuzz.plan.json", g);
  if (!read.ok()) {
    if (read.errors().empty()) fail("the plan reader failed without an error message", "");
    return 0;
  }
  const io::LoadedPlan& loaded = read.value();
  if (loaded.budget && loaded.budget->value <= 0) fail("a non-positive budget was accepted", "");
  if (!sim::Simulator(g).run(loaded.plan.schedule).valid()) fail("a plan the simulator rejects was accepted", "");

  solvers::SolveResult result;
  result.solver = loaded.solver;
  result.status = solvers::SolveStatus::Feasible;
  result.budget = loaded.budget;
  result.plan = loaded.plan;
  solvers::evaluatePlan(g, *result.plan, true, result.metrics, result.simulation);
  const std::string written = io::writePlanJson(g, result);
  auto back = io::readPlanJson(written, "roundtrip.plan.json", g);
  if (!back.ok()) fail("the plan written back does not read:", back.errorText() + "\n--- written text:\n" + written);
  const io::LoadedPlan& again = back.value();
  if (again.plan.schedule != loaded.plan.schedule || again.plan.lowerSets != loaded.plan.lowerSets ||
      (loaded.plan.lowerSets && again.plan.model != loaded.plan.model) || again.budget != loaded.budget ||
      again.solver != loaded.solver)
    fail("the plan changed on its way through writePlanJson; written text:", written);
  return 0;
}
