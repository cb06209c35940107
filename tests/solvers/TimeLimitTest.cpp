// TimeLimit (remat/solvers/TimeLimit.hpp): the one object by which every solver stops. Work is counted,
// never timed, so each case here answers the same on any machine; the only deadlines are one already
// past and one hours away.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "TestGraphs.hpp"
#include "remat/solvers/LowerSetFamily.hpp"
#include "remat/solvers/ParetoDp.hpp"
#include "remat/solvers/TimeLimit.hpp"

using namespace remat;
using namespace remat::solvers;
using namespace std::chrono_literals;

namespace {

// Blocks until `token` fires (ctest's timeout fails a token that never does).
void waitFor(std::stop_token token) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  wake.wait(lock, token, [] { return false; });
}

}  // namespace

TEST_CASE("a time limit without limits only counts work") {
  TimeLimit none;
  for (int k = 0; k < 1000; ++k) CHECK_FALSE(none.charge(1'000'000));
  CHECK(none.work() == 1'000'000'000);
  CHECK_FALSE(none.reached());
  CHECK_FALSE(none.token().stop_requested());
}

TEST_CASE("a work limit ends the run at the unit that passes it, for good, and fires the token") {
  TimeLimit limit({}, std::nullopt, 100);
  const std::stop_token token = limit.token();
  CHECK_FALSE(limit.charge(60));
  CHECK_FALSE(limit.charge(40));  // 100 units: at the limit, not past it
  CHECK_FALSE(limit.reached());
  CHECK_FALSE(token.stop_requested());
  CHECK(limit.charge(1));
  CHECK(limit.expired());
  CHECK_FALSE(limit.cancelled());
  CHECK(limit.reached());
  CHECK(token.stop_requested());
  CHECK(limit.charge(0));  // sticky
  // A token asked for after the limit ran out has fired too.
  TimeLimit spent({}, std::nullopt, 0);
  CHECK(spent.charge());
  CHECK(spent.token().stop_requested());
}

TEST_CASE("a stop token cancels: reached, not expired") {
  std::stop_source source;
  TimeLimit limit(source.get_token(), 10h, 1'000'000);
  const std::stop_token token = limit.token();
  CHECK_FALSE(limit.charge());
  source.request_stop();
  CHECK(token.stop_requested());
  CHECK(limit.cancelled());
  CHECK_FALSE(limit.expired());
  CHECK(limit.charge());
}

TEST_CASE("deadlines: one already past ends the run, one hours away does not, one beyond the clock is none") {
  TimeLimit past({}, 0ms, std::nullopt);
  CHECK(past.expired());
  CHECK(past.charge());
  waitFor(past.token());  // the timer fires at once
  TimeLimit far({}, 10h, std::nullopt);
  CHECK_FALSE(far.charge());
  CHECK_FALSE(far.token().stop_requested());
  TimeLimit never({}, TimeLimit::Clock::duration::max(), std::nullopt);
  CHECK_FALSE(never.reached());
}

TEST_CASE("a part of a limit has its share of the work left, and its work counts in the whole") {
  TimeLimit whole({}, std::nullopt, 1000);
  CHECK_FALSE(whole.charge(200));
  {
    const auto half = whole.part(0.5);  // half of the 800 left
    CHECK_FALSE(half->charge(400));
    CHECK(half->charge(1));
    CHECK(half->expired());
    CHECK(half->token().stop_requested());
  }
  CHECK(whole.work() == 601);
  CHECK_FALSE(whole.reached());
  CHECK_FALSE(whole.charge(399));
  CHECK(whole.charge(1));
  // A part ends when its whole does.
  std::stop_source source;
  TimeLimit cancelled(source.get_token(), std::nullopt, std::nullopt);
  const auto part = cancelled.part(0.5);
  const std::stop_token token = part->token();
  source.request_stop();
  CHECK(part->cancelled());
  CHECK(part->reached());
  CHECK(token.stop_requested());
}

TEST_CASE("charges from many threads add up exactly, and the unit past the limit ends the run") {
  TimeLimit limit({}, std::nullopt, 40'000);
  std::atomic<int> saidStop{0};
  {
    std::vector<std::jthread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 10'000; ++k) limit.charge(1);
        if (limit.reached()) ++saidStop;
      });
  }
  CHECK(limit.work() == 40'000);
  CHECK_FALSE(limit.reached());
  CHECK(saidStop == 0);
  CHECK(limit.charge(1));
}

TEST_CASE("the DP stopped by work keeps the same finished fronts on one, two and eight threads") {
  // A layer in which the limit is passed is dropped whole, so which thread saw the limit first does not
  // matter: the fronts that survive are those of the layers finished before it, on any machine.
  const auto g = test::makeRandomDag(14, 5);
  auto family = LowerSetFamily::allLowerSets(g, 100000);
  REQUIRE(family);
  REQUIRE(family->useModel(g, DpModelKind::Simulator));
  // A budget between the least feasible one and none, so that the fronts hold several points.
  const auto least = leastFeasibleBudget(*family);
  REQUIRE(least);
  TimeLimit unlimited;
  DpOptions whole;
  whole.budget = *least + *least / 4;
  whole.limit = &unlimited;
  whole.threads = 1;
  const DpRun complete = runParetoDp(*family, whole);
  REQUIRE(complete.outcome == DpOutcome::Complete);
  const std::uint64_t total = unlimited.work();
  REQUIRE(total > 2 * family->size());  // fronts of several points
  for (const std::uint64_t work : {total / 5, total / 2, total - 1, total}) {
    INFO("work limit " << work << " of " << total);
    std::vector<DpRun> runs;
    for (const unsigned threads : {1U, 2U, 8U}) {
      TimeLimit limit({}, std::nullopt, work);
      DpOptions options = whole;
      options.limit = &limit;
      options.threads = threads;
      runs.push_back(runParetoDp(*family, options));
    }
    CHECK(runs[0].outcome == (work == total ? DpOutcome::Complete : DpOutcome::TimeLimit));
    if (work == total)
      CHECK(runs[0].processed == family->size());
    else
      CHECK(runs[0].processed < family->size());
    for (const DpRun& run : runs) {
      CHECK(run.outcome == runs[0].outcome);
      REQUIRE(run.processed == runs[0].processed);
      for (std::size_t j = 0; j < run.processed; ++j) {
        REQUIRE(run.fronts[j].size() == complete.fronts[j].size());
        for (std::size_t k = 0; k < run.fronts[j].size(); ++k) {
          CHECK(run.fronts[j][k].t == complete.fronts[j][k].t);
          CHECK(run.fronts[j][k].m == complete.fronts[j][k].m);
        }
      }
    }
  }
}

TEST_CASE("a shared time gives each solve an equal share of what is left, never more than its own limit") {
  const SharedTime none(std::nullopt);
  CHECK_FALSE(none.spent());
  CHECK_FALSE(none.left());
  CHECK_FALSE(none.next(3));
  CHECK(none.next(3, 5s) == 5s);

  const SharedTime hours(std::chrono::milliseconds(10h));
  CHECK_FALSE(hours.spent());
  const auto share = hours.next(4);
  REQUIRE(share);
  CHECK(*share <= std::chrono::milliseconds(150min));
  CHECK(*share > std::chrono::milliseconds(149min));
  CHECK(hours.next(4, 1s) == 1s);         // its own limit is less than the share
  CHECK(hours.next(0) == hours.next(1));  // no solve left counts as one
  CHECK(*hours.next(1) > *share);

  const SharedTime spent(std::chrono::milliseconds(0));
  CHECK(spent.spent());
  CHECK(spent.left() == std::chrono::milliseconds(0));
  CHECK(spent.next(5) == std::chrono::milliseconds(1));  // a solve past it stops at once
}
