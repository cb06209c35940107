#include <catch2/catch.hpp>

#include "TestGraphs.hpp"
#include "remat/graph/BatchScaling.hpp"
#include "remat/graph/GraphBuilder.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/solvers/MaxBatch.hpp"
#include "remat/solvers/SolverRegistry.hpp"

using namespace remat;
using namespace remat::solvers;

namespace {

Bytes peakAt(const Solver& s, const graph::ComputeGraph& g, std::int64_t batch) {
  auto scaled = graph::scaleBatch(g, 4, batch).value();
  return s.solve({.graph = &scaled}).metrics.simulatedPeak;
}

}  // namespace

TEST_CASE("max-batch finds the largest batch whose peak fits, and no larger") {
  auto g = test::makeUNet(3, 4096);  // built for batch 4
  const Solver& storeAll = *SolverRegistry::builtin().find("store-all");
  for (std::int64_t memoryKiB : {64, 200, 1000, 5000}) {
    const Bytes memory{memoryKiB * 1024};
    INFO("memory " << memory.value);
    MaxBatchResult r = maxBatch(storeAll, g, 4, memory);
    if (r.batch == 0) {
      CHECK(r.status == SolveStatus::Infeasible);
      CHECK(peakAt(storeAll, g, 1) > memory);
      continue;
    }
    REQUIRE(r.status == SolveStatus::Optimal);
    CHECK(peakAt(storeAll, g, r.batch) <= memory);
    CHECK(peakAt(storeAll, g, r.batch + 1) > memory);
    CHECK(r.result->metrics.simulatedPeak <= memory);
  }
}

TEST_CASE("with recomputation, a larger batch fits than without") {
  auto g = test::makeChain(64, 1000);
  const Bytes memory{2'000'000};
  const auto& registry = SolverRegistry::builtin();
  const MaxBatchResult plain = maxBatch(*registry.find("store-all"), g, 4, memory);
  for (const char* id : {"chen-greedy", "approx-dp", "exact-dp"}) {
    INFO(id);
    const MaxBatchResult r = maxBatch(*registry.find(id), g, 4, memory);
    REQUIRE(r.status == SolveStatus::Optimal);
    CHECK(r.batch > plain.batch);
    CHECK(r.result->metrics.simulatedPeak <= memory);
  }
}

TEST_CASE("max-batch with a workspace model: each batch's temporaries from its own tensors") {
  // A 3x3 convolution with a 2.4 MB weight on a 2x2 image: its backward's reordered weight is the
  // weight's size at any batch.
  graph::GraphBuilder b;
  b.add({.name = "x",
         .kind = graph::NodeKind::Input,
         .bytes = 4 * 256 * 2 * 2 * 4,
         .shape = {4, 256, 2, 2},
         .dtype = "float32"});
  b.add({.name = "w",
         .kind = graph::NodeKind::Param,
         .bytes = 256 * 256 * 3 * 3 * 4,
         .shape = {256, 256, 3, 3},
         .dtype = "float32"});
  b.add({.name = "conv",
         .op = "Conv",
         .inputs = {"x", "w"},
         .bytes = 4 * 256 * 2 * 2 * 4,
         .shape = {4, 256, 2, 2},
         .dtype = "float32",
         .saves = {.inputs = {0, 1}}});
  const graph::ComputeGraph g = b.build().value();
  const auto ruled = graph::applyWorkspaceModel(g, "libtorch-cpu").value();
  const Solver& storeAll = *SolverRegistry::builtin().find("store-all");
  const Bytes memory{8'000'000};
  // Scaled as a whole, the weight-sized temporary would grow with the batch; filled per batch, it does not.
  const MaxBatchResult scaledWhole = maxBatch(storeAll, ruled, 4, memory);
  const MaxBatchResult perBatch = maxBatch(storeAll, g, 4, memory, {}, {}, DpModelKind::Simulator, "libtorch-cpu");
  REQUIRE((scaledWhole.status == SolveStatus::Optimal && perBatch.status == SolveStatus::Optimal));
  CHECK(perBatch.batch > scaledWhole.batch);
  REQUIRE(perBatch.graph);
  const auto& conv = perBatch.graph->node(*perBatch.graph->find("conv"));
  CHECK(conv.bwdWorkspace.value == 256 * 256 * 3 * 3 * 4);
  CHECK(conv.workspace.value == 256 * 256 * 3 * 3 * 4 + perBatch.batch * 256 * 2 * 2 * 4);
  CHECK(perBatch.result->metrics.simulatedPeak <= memory);
}
