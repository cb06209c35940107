#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QSlider>
#include <QTabWidget>
#include <QTest>
#include <QTimer>

#include <time.h>

#include <algorithm>

#include "StudioTestSupport.hpp"
#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/vizqt/SceneView.hpp"

using namespace remat;
using remat::studio::MainWindow;

namespace {

// The CPU time of the calling thread, in milliseconds.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Measures how long the event loop goes without serving a 5 ms timer. Two figures: the GUI thread's own
// CPU time between two ticks (the work the window does on its thread: what the window controls), and
// the wall time between them (that work plus waiting for a core, which on a loaded two-core test machine
// also counts the solver threads and other test binaries; reported, not judged).
class StallMeter {
 public:
  StallMeter() {
    m_timer.setInterval(5);
    QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
  }
  void start() {
    m_lastCpu = threadCpuMs();
    m_wall.start();
    m_lastWall = 0;
    m_timer.start();
  }
  void stop() {
    tick();
    m_timer.stop();
  }
  [[nodiscard]] double maxCpuMs() const { return m_maxCpu; }
  [[nodiscard]] double maxWallMs() const { return m_maxWall; }
  [[nodiscard]] int ticks() const { return m_ticks; }

 private:
  void tick() {
    const double cpu = threadCpuMs();
    const double wall = static_cast<double>(m_wall.nsecsElapsed()) / 1e6;
    m_maxCpu = std::max(m_maxCpu, cpu - m_lastCpu);
    m_maxWall = std::max(m_maxWall, wall - m_lastWall);
    m_lastCpu = cpu;
    m_lastWall = wall;
    ++m_ticks;
  }

  QTimer m_timer;
  QElapsedTimer m_wall;
  double m_lastCpu = 0;
  double m_lastWall = 0;
  double m_maxCpu = 0;
  double m_maxWall = 0;
  int m_ticks = 0;
};

}  // namespace

// ISSUE 6: "the window stays responsive (no event-loop stall longer than 100 ms while solving)". The
// user's session while a long exact DP runs on PSPNet (12,527 lower sets, ~25 s at 3 GiB) next to the fast solvers:
// their results arrive and redraw the views, the user flips through every view (the checkpoint drawing
// lays out the whole graph with Graphviz) and drags the budget; then cancels.
// A measurement, not a pass/fail test (issue 20: no test reads a clock; a sanitizer build on a loaded
// two-core machine once took 107 ms of CPU here): hidden from ctest, run and summarised by
// bench/studio-responsiveness.sh into BENCHMARKS.md.
TEST_CASE("Studio's event loop never stalls while solvers run", "[.][bench][studio][window][responsiveness]") {
  test::ensureWidgetApplication();
  MainWindow w;
  w.setInteractive(false);
  w.resize(1280, 720);
  w.show();
  REQUIRE(w.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/pspnet.json")));
  w.budgetEditor()->setBudget({studio::BudgetChoice::Kind::Fixed, Bytes{std::int64_t{3} << 30}});
  for (const auto& id : solvers::SolverRegistry::builtin().ids()) w.setSolverChecked(id, false);
  for (const char* id : {"exact-dp", "approx-dp", "chen-greedy", "chen-sqrtn"}) REQUIRE(w.setSolverChecked(id, true));
  QTest::qWait(50);  // the first paint of the empty views is not part of solving

  StallMeter meter;
  meter.start();
  w.runSolvers();
  REQUIRE(w.solving());
  // Flip through the views while the solvers work and report, as a user watching the run does.
  QElapsedTimer elapsed;
  elapsed.start();
  int flips = 0;
  while (elapsed.elapsed() < 4000) {
    w.views()->setCurrentIndex(flips % w.views()->count());
    ++flips;
    QTest::qWait(150);
  }
  REQUIRE(w.solving());                       // exact-dp is still at work: everything above happened while solving
  w.budgetEditor()->slider()->setValue(850);  // scrubbing: re-solves, cancelling the long run
  QTest::qWait(MainWindow::kScrubDelayMs + 400);
  w.cancelSolvers();
  REQUIRE(QTest::qWaitFor([&] { return !w.solving(); }, 60'000));
  meter.stop();

  INFO("longest GUI-thread busy stretch " << meter.maxCpuMs() << " ms of CPU; longest wall gap " << meter.maxWallMs()
                                          << " ms; " << meter.ticks() << " ticks; " << flips << " view flips");
  WARN("longest GUI-thread busy stretch " << meter.maxCpuMs() << " ms of CPU (wall gap " << meter.maxWallMs()
                                          << " ms)");
  CHECK(meter.ticks() > 100);  // the timer ran: the measurement is real
  CHECK(meter.maxCpuMs() < 100.0);
}
