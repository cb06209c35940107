#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "remat/io/GraphReader.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

namespace {

graph::ComputeGraph loadCheckmate(const std::string& name) {
  auto r = io::readGraphFile(std::string(REMAT_CORPUS_DIR) + "/checkmate-graphs/" + name);
  REQUIRE(r.ok());
  return std::move(r).value();
}

}  // namespace

TEST_CASE("milp proves its optimum on Checkmate's VGG16 train graph, and lp-bound stays below it") {
  if (!std::filesystem::exists(std::string(REMAT_CORPUS_DIR) + "/checkmate-graphs")) {
    WARN("no checkmate-graphs in the corpus");
    return;
  }
  const graph::ComputeGraph g = loadCheckmate("VGG16_256_224x224x3_train_nx.json");
  const auto& registry = SolverRegistry::builtin();
  const Bytes peak = registry.find("store-all")->solve({.graph = &g}).metrics.simulatedPeak;
  // The least budget any schedule can meet here is about 83% of store-all's peak (dtr's single-op minimum).
  for (int percent : {85, 95}) {
    const Bytes budget{peak.value * percent / 100};
    INFO(percent << "% of store-all's peak: " << budget.value << " bytes");
    // A limit only so that a regression fails instead of hanging; CBC proves this in about a second here.
    const SolveResult milp =
        registry.find("milp")->solve({.graph = &g, .budget = budget, .timeLimit = std::chrono::milliseconds(120'000)});
    INFO("milp: " << statusName(milp.status) << " " << milp.message);
    REQUIRE(milp.status == SolveStatus::Optimal);
    REQUIRE(milp.simulation.valid());
    CHECK(milp.metrics.simulatedPeak <= budget);
    CHECK(milp.metrics.overhead > Ticks{0});  // below the peak something is recomputed
    REQUIRE(milp.overheadLowerBound);
    CHECK(*milp.overheadLowerBound == milp.metrics.overhead);
    const SolveResult lp = registry.find("lp-bound")->solve({.graph = &g, .budget = budget});
    INFO("lp-bound: " << statusName(lp.status) << " " << lp.message);
    REQUIRE(lp.status == SolveStatus::Bound);
    REQUIRE(lp.overheadLowerBound);
    CHECK(*lp.overheadLowerBound <= milp.metrics.overhead);
  }
}
