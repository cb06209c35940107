#include <catch2/catch.hpp>

#include <QCoreApplication>
#include <QString>
#include <QTest>
#include <QThread>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "StudioCoreTestSupport.hpp"
#include "remat/studio/JobRunner.hpp"

using remat::studio::JobHandlers;
using remat::studio::JobProgress;
using remat::studio::JobRunner;

namespace {

using remat::test::kWaitMs;

// Holds a job until the test opens it. A job waiting here ignores its stop token, so that a cancel that
// waited for the job would never return: such a bug hangs the test until ctest's timeout fails it.
class Gate {
 public:
  void open() {
    {
      const std::lock_guard lock(m_mutex);
      m_open = true;
    }
    m_opened.notify_all();
  }
  void wait() {
    std::unique_lock lock(m_mutex);
    m_opened.wait(lock, [this] { return m_open; });
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_opened;
  bool m_open = false;
};

// Blocks a job until its stop token is asked to stop.
void waitForStop(const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock lock(mutex);
  cv.wait(lock, stop, [] { return false; });
}

bool settled(const JobRunner::Watch& job) { return job.outcome() != JobRunner::Outcome::Pending; }

}  // namespace

TEST_CASE("JobRunner delivers a job's progress in order on the GUI thread, then its result", "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  JobRunner runner;
  std::vector<double> fractions;
  QStringList stages;
  std::vector<int> results;
  bool onGuiThread = true;
  const JobRunner::Watch job = runner.start(
      "solve",
      [](std::stop_token, const JobProgress& progress) {
        for (int k = 0; k <= 10; ++k) progress(k / 10.0, "step " + std::to_string(k));
        return 42;
      },
      JobHandlers<int>{.progress =
                           [&](double fraction, const QString& stage) {
                             onGuiThread = onGuiThread && QThread::currentThread() == qApp->thread();
                             fractions.push_back(fraction);
                             stages << stage;
                           },
                       .done =
                           [&](int result) {
                             onGuiThread = onGuiThread && QThread::currentThread() == qApp->thread();
                             results.push_back(result);
                           },
                       .failed = {}});
  CHECK(runner.running("solve") == 1);
  REQUIRE(QTest::qWaitFor([&] { return settled(job); }, kWaitMs));
  CHECK(job.outcome() == JobRunner::Outcome::Delivered);
  CHECK(results == std::vector<int>{42});
  REQUIRE(fractions.size() == 11);  // all of it, the last report before the result
  for (std::size_t k = 0; k < fractions.size(); ++k) {
    CHECK(fractions[k] == Approx(double(k) / 10.0));
    CHECK(stages[static_cast<qsizetype>(k)] == QStringLiteral("step %1").arg(k));
  }
  CHECK(job.progressDelivered() == 11);
  CHECK(onGuiThread);
  CHECK_FALSE(job.stopRequested());
  CHECK(runner.running("solve") == 0);
  CHECK(runner.threads() == 0);  // joined once its result arrived
}

TEST_CASE("JobRunner's cancel asks the job to stop, returns without waiting for it, and drops its late answer",
          "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  JobRunner runner;
  auto gate = std::make_shared<Gate>();
  int progressed = 0;
  int answered = 0;
  const JobRunner::Watch job = runner.start(
      "pareto",
      [gate](std::stop_token, const JobProgress& progress) {
        progress(0.25, "started");
        gate->wait();  // deaf to its stop token: the cancel must not wait for it
        progress(0.75, "late");
        return std::string("late answer");
      },
      JobHandlers<std::string>{.progress = [&](double, const QString&) { ++progressed; },
                               .done = [&](const std::string&) { ++answered; },
                               .failed = {}});
  REQUIRE(QTest::qWaitFor([&] { return progressed == 1; }, kWaitMs));
  runner.cancel("pareto");
  // The job still runs, held by the gate: the cancel returned without waiting for it.
  CHECK(job.stopRequested());
  CHECK_FALSE(job.workReturned());
  CHECK(runner.running("pareto") == 0);
  CHECK(runner.threads() == 1);
  gate->open();
  REQUIRE(QTest::qWaitFor([&] { return settled(job); }, kWaitMs));
  CHECK(job.outcome() == JobRunner::Outcome::Dropped);
  CHECK(job.workReturned());
  CHECK(answered == 0);
  CHECK(progressed == 1);  // the report after the cancel was dropped too
  CHECK(runner.threads() == 0);
}

TEST_CASE("JobRunner: a newer job in a slot supersedes the older, whose result is dropped, other slots go on",
          "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  JobRunner runner;
  auto gate = std::make_shared<Gate>();
  std::vector<int> answers;
  std::vector<int> otherAnswers;
  auto held = [gate](int answer) {
    return [gate, answer](std::stop_token, const JobProgress&) {
      gate->wait();
      return answer;
    };
  };
  const JobRunner::Watch other =
      runner.start("front", held(7), {.progress = {}, .done = [&](int a) { otherAnswers.push_back(a); }, .failed = {}});
  const JobRunner::Watch older =
      runner.start("front2", held(1), {.progress = {}, .done = [&](int a) { answers.push_back(a); }, .failed = {}});
  const JobRunner::Watch newer =
      runner.start("front2", held(2), {.progress = {}, .done = [&](int a) { answers.push_back(a); }, .failed = {}});
  CHECK(older.stopRequested());
  CHECK_FALSE(newer.stopRequested());
  CHECK_FALSE(other.stopRequested());  // another slot's job is left alone
  CHECK(runner.running("front2") == 1);
  CHECK(runner.running("front") == 1);
  REQUIRE(runner.latest("front2"));
  CHECK(runner.latest("front2")->stopRequested() == false);
  CHECK_FALSE(runner.latest("import"));
  gate->open();
  REQUIRE(QTest::qWaitFor([&] { return settled(older) && settled(newer) && settled(other); }, kWaitMs));
  CHECK(older.outcome() == JobRunner::Outcome::Dropped);
  CHECK(newer.outcome() == JobRunner::Outcome::Delivered);
  CHECK(answers == std::vector<int>{2});
  CHECK(otherAnswers == std::vector<int>{7});
}

TEST_CASE("JobRunner's requestStop stops the jobs of a slot and still delivers what they answer", "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  JobRunner runner;
  std::vector<std::string> answers;
  auto body = [](std::stop_token stop, const JobProgress&) {
    waitForStop(stop);
    return std::string("cancelled with its best plan");
  };
  // Two solvers of one run: the second joins the first's generation instead of superseding it.
  const JobRunner::Watch first = runner.start(
      "solve", body, {.progress = {}, .done = [&](std::string a) { answers.push_back(std::move(a)); }, .failed = {}});
  const JobRunner::Watch second = runner.add(
      "solve", body, {.progress = {}, .done = [&](std::string a) { answers.push_back(std::move(a)); }, .failed = {}});
  CHECK_FALSE(first.stopRequested());
  CHECK(runner.running("solve") == 2);
  runner.requestStop("solve");
  CHECK(first.stopRequested());
  CHECK(second.stopRequested());
  REQUIRE(QTest::qWaitFor([&] { return runner.running("solve") == 0; }, kWaitMs));
  CHECK(first.outcome() == JobRunner::Outcome::Delivered);
  CHECK(second.outcome() == JobRunner::Outcome::Delivered);
  CHECK(answers.size() == 2);
  CHECK(answers.front() == "cancelled with its best plan");
}

TEST_CASE("JobRunner hands what a job throws to the GUI thread as its error", "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  JobRunner runner;
  QString error;
  bool answered = false;
  const JobRunner::Watch job = runner.start(
      "import", [](std::stop_token, const JobProgress&) -> int { throw std::runtime_error("cannot read model.onnx"); },
      {.progress = {}, .done = [&](int) { answered = true; }, .failed = [&](const QString& e) { error = e; }});
  REQUIRE(QTest::qWaitFor([&] { return settled(job); }, kWaitMs));
  CHECK(job.outcome() == JobRunner::Outcome::Delivered);
  CHECK(error == QStringLiteral("cannot read model.onnx"));
  CHECK_FALSE(answered);
}

TEST_CASE("JobRunner's end stops and joins its jobs, and delivers nothing they report after", "[studio][jobs]") {
  remat::test::ensureGuiApplication();
  auto runner = std::make_unique<JobRunner>();
  int progressed = 0;
  bool answered = false;
  const JobRunner::Watch job = runner->start(
      "max-batch",
      [](std::stop_token stop, const JobProgress& progress) {
        waitForStop(stop);
        progress(1.0, "after the end");
        return 1;
      },
      {.progress = [&](double, const QString&) { ++progressed; }, .done = [&](int) { answered = true; }, .failed = {}});
  runner.reset();
  CHECK(job.stopRequested());
  CHECK(job.workReturned());  // joined
  QCoreApplication::processEvents();
  QCoreApplication::sendPostedEvents();
  CHECK(job.outcome() == JobRunner::Outcome::Pending);
  CHECK(progressed == 0);
  CHECK_FALSE(answered);
}
