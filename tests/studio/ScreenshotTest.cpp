#include <catch2/catch.hpp>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QTemporaryDir>

#include "StudioTestSupport.hpp"
#include "remat/studio/ComparisonModel.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/studio/Screenshots.hpp"

using namespace remat;

TEST_CASE("Studio saves a screenshot of the whole window for every view, after a whole session") {
  test::ensureWidgetApplication();
  studio::MainWindow window;
  window.setInteractive(false);
  window.resize(1280, 720);
  window.show();
  REQUIRE(window.openFile(QStringLiteral(REMAT_SOURCE_DIR "/datasets/unet.json")));
  for (const std::string& id : window.checkedSolvers()) window.setSolverChecked(id, false);
  REQUIRE(window.setSolverChecked("approx-dp", true));
  REQUIRE(window.setSolverChecked("chen-greedy", true));
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  bool finished = false;
  QString error = QStringLiteral("not called");
  studio::captureScreenshots(window, dir.path(), [&](const QString& e) {
    finished = true;
    error = e;
  });
  QElapsedTimer timer;
  timer.start();
  while (!finished && timer.elapsed() < 120000) QApplication::processEvents(QEventLoop::AllEvents, 50);
  REQUIRE(finished);
  CHECK(error.isEmpty());
  CHECK(window.comparisonModel()->rowCount() == 2);
  REQUIRE(window.pareto().has_value());
  for (const char* name : {"timeline", "graph", "pareto", "schedule", "layout"}) {
    INFO(name);
    const QImage shot(QDir(dir.path()).filePath(QString::fromLatin1(name) + QStringLiteral(".png")));
    REQUIRE_FALSE(shot.isNull());
    CHECK(shot.width() == window.width());
    CHECK(shot.height() == window.height());
  }
  // The views differ: each screenshot shows its own figure.
  const QImage timeline(QDir(dir.path()).filePath(QStringLiteral("timeline.png")));
  const QImage layout(QDir(dir.path()).filePath(QStringLiteral("layout.png")));
  CHECK(timeline != layout);
}

TEST_CASE("Studio screenshots without a graph report it") {
  test::ensureWidgetApplication();
  studio::MainWindow window;
  window.setInteractive(false);
  QString error;
  studio::captureScreenshots(window, QDir::tempPath(), [&](const QString& e) { error = e; });
  CHECK(error == QStringLiteral("no graph is open"));
}
