#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

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
         .bytes = std::int64_t{4} * 256 * 2 * 2 * 4,
         .shape = {4, 256, 2, 2},
         .dtype = "float32"});
  b.add({.name = "w",
         .kind = graph::NodeKind::Param,
         .bytes = std::int64_t{256} * 256 * 3 * 3 * 4,
         .shape = {256, 256, 3, 3},
         .dtype = "float32"});
  b.add({.name = "conv",
         .op = "Conv",
         .inputs = {"x", "w"},
         .bytes = std::int64_t{4} * 256 * 2 * 2 * 4,
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
  CHECK(conv.bwdWorkspace.value == std::int64_t{256} * 256 * 3 * 3 * 4);
  CHECK(conv.workspace.value == std::int64_t{256} * 256 * 3 * 3 * 4 + perBatch.batch * 256 * 2 * 2 * 4);
  CHECK(perBatch.result->metrics.simulatedPeak <= memory);
}

namespace {

// store-all's plans, but a refusal (status Limit, as a solver's own size cap answers) once the graph's
// activations pass `refuseAbove` bytes: a solver that cannot answer at large batches.
class RefusesLargeGraphs : public Solver {
 public:
  explicit RefusesLargeGraphs(std::int64_t refuseAbove) : m_refuseAbove(refuseAbove) {}
  [[nodiscard]] const SolverInfo& info() const override {
    static const SolverInfo kInfo{.id = "refuses-large", .name = "store-all up to a size"};
    return kInfo;
  }
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override {
    if (request.graph->opBytes().value > m_refuseAbove)
      return {SolveStatus::Limit, std::nullopt, "the graph is over my size cap"};
    return SolverRegistry::builtin().find("store-all")->plan(request);
  }

 private:
  std::int64_t m_refuseAbove;
};

std::int64_t activationsAt(const graph::ComputeGraph& g, std::int64_t batch) {
  return graph::scaleBatch(g, 4, batch).value().opBytes().value;
}

}  // namespace

TEST_CASE("max-batch: a solver that refuses batch 1 is a refusal with its reason, never 'does not fit'") {
  auto g = test::makeChain(8, 1000);  // built for batch 4
  const RefusesLargeGraphs refuses(0);
  const MaxBatchResult r = maxBatch(refuses, g, 4, Bytes{std::int64_t{1} << 40});
  CHECK(r.call == CallStatus::Ok);
  CHECK(r.status == SolveStatus::Limit);
  CHECK(r.batch == 0);
  CHECK(r.refusedAt == 1);
  CHECK_THAT(r.message, Catch::Contains("refuses-large") && Catch::Contains("over my size cap"));
  CHECK_THAT(r.message, !Catch::Contains("not even batch 1 fits"));
}

TEST_CASE("max-batch: a refusal above the batches that fit stops the search with the largest proven batch") {
  auto g = test::makeChain(8, 1000);
  const Solver& storeAll = *SolverRegistry::builtin().find("store-all");
  // Everything fits up to batch 20; the solver refuses from batch 16 on.
  const Bytes memory = peakAt(storeAll, g, 20);
  REQUIRE(peakAt(storeAll, g, 21) > memory);
  const RefusesLargeGraphs refuses(activationsAt(g, 15));
  const MaxBatchResult r = maxBatch(refuses, g, 4, memory);
  CHECK(r.call == CallStatus::Ok);
  CHECK(r.status == SolveStatus::Limit);  // not Optimal: 15 is not proven the largest
  CHECK(r.batch == 15);
  CHECK(r.refusedAt == 16);
  CHECK_THAT(r.message, Catch::Contains("batch 16") && Catch::Contains("over my size cap"));
  REQUIRE(r.result);
  CHECK(r.result->metrics.simulatedPeak <= memory);
}

TEST_CASE("max-batch: a batch that does not fit below a refused one still proves the largest") {
  auto g = test::makeChain(8, 1000);
  const Solver& storeAll = *SolverRegistry::builtin().find("store-all");
  // Fits up to batch 11; refuses from 16 on: 12 does not fit, so 11 is proven the largest.
  const Bytes memory = peakAt(storeAll, g, 11);
  REQUIRE(peakAt(storeAll, g, 12) > memory);
  const RefusesLargeGraphs refuses(activationsAt(g, 15));
  const MaxBatchResult r = maxBatch(refuses, g, 4, memory);
  CHECK(r.status == SolveStatus::Optimal);
  CHECK(r.batch == 11);
  CHECK(r.refusedAt == 0);
}

TEST_CASE("max-batch: a solver that makes no plans cannot answer") {
  const MaxBatchResult r =
      maxBatch(*SolverRegistry::builtin().find("lp-bound"), test::makeChain(4), 4, Bytes{std::int64_t{1} << 30});
  CHECK(r.call == CallStatus::Error);
  CHECK(r.batch == 0);
  CHECK_THAT(r.message, Catch::Contains("makes no plans"));
}

namespace {

// store-all that takes `each` of wall time per solve and records the time limit each solve was given: a
// search whose solves cost time, to see the whole search's limit shared among them.
class SlowStoreAll : public Solver {
 public:
  explicit SlowStoreAll(std::chrono::milliseconds each) : m_each(each) {}
  [[nodiscard]] const SolverInfo& info() const override {
    static const SolverInfo kInfo{.id = "slow-store-all", .name = "store-all, slowly"};
    return kInfo;
  }
  [[nodiscard]] SolverOutput plan(const SolveRequest& request) const override {
    m_limits.push_back(request.timeLimit);
    std::this_thread::sleep_for(m_each);
    return SolverRegistry::builtin().find("store-all")->plan(request);
  }
  mutable std::vector<std::optional<std::chrono::milliseconds>> m_limits;

 private:
  std::chrono::milliseconds m_each;
};

}  // namespace

TEST_CASE("max-batch: the time limit is the whole search's, shared by its solves") {
  using std::chrono::milliseconds;
  auto g = test::makeChain(8, 1000);
  // Memory without end: doubling alone would take 40 solves (20 ms each, 800 ms), four times the limit.
  const SlowStoreAll slow(milliseconds(20));
  const auto start = std::chrono::steady_clock::now();
  const MaxBatchResult r = maxBatch(slow, g, 4, Bytes{std::int64_t{1} << 60}, {}, {}, DpModelKind::Simulator, "file",
                                    {.time = milliseconds(200)});
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.status == SolveStatus::TimeLimit);
  CHECK(r.batch > 1);  // what fitted before the limit is kept, and said to be not proven the largest
  CHECK(r.refusedAt == 2 * r.batch);
  CHECK_THAT(r.message, Catch::Contains("time limit") && Catch::Contains("not proven the largest"));
  CHECK(r.solves < 20);
  CHECK(took < std::chrono::seconds(2));  // a bound far above the 200 ms: the search stops, it does not run 40 solves
  // The first solve may take all that is left of it, which is the 200 ms less the milliseconds spent
  // before it (one, in a sanitizer run of stop 58: 199 ms); each later one at most half of what was left.
  REQUIRE(slow.m_limits.size() >= 2);
  REQUIRE(slow.m_limits.front());
  CHECK(*slow.m_limits.front() <= milliseconds(200));
  CHECK(*slow.m_limits.front() > milliseconds(150));
  for (std::size_t k = 1; k < slow.m_limits.size(); ++k) {
    REQUIRE(slow.m_limits[k]);
    CHECK(*slow.m_limits[k] <= milliseconds(100));
  }
}
