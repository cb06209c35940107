// SceneView and the mouse: hover and click on a scene's hotspots, offscreen.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QStyleHints>
#include <QTest>
#include <QToolTip>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "VizQtTestSupport.hpp"
#include "remat/vizqt/ScenePainter.hpp"
#include "remat/vizqt/SceneView.hpp"

using remat::vizqt::SceneView;
namespace viz = remat::viz;

namespace {

// A 200 x 100 canvas with two hotspots: A (index 1) and B (index 2).
viz::Scene twoSpots() {
  viz::Scene s;
  s.width = 200;
  s.height = 100;
  s.add(viz::RectItem{0, 0, 200, 100, viz::Fill{{240, 240, 240}}, std::nullopt, 0});
  s.hotspots.push_back({viz::Hotspot::Kind::Node, 20, 20, 40, 30, 1, 0, "A"});
  s.hotspots.push_back({viz::Hotspot::Kind::Node, 120, 40, 50, 40, 2, 0, "B"});
  return s;
}

bool near(QPointF a, QPointF b) { return std::abs(a.x() - b.x()) < 1e-9 && std::abs(a.y() - b.y()) < 1e-9; }

void send(QWidget& w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons held) {
  QMouseEvent event(type, at, w.mapToGlobal(at), button, held, Qt::NoModifier);
  QApplication::sendEvent(&w, &event);
}
void moveTo(QWidget& w, QPointF at) { send(w, QEvent::MouseMove, at, Qt::NoButton, Qt::NoButton); }

int indexOf(const viz::Hotspot* h) { return h ? static_cast<int>(h->index) : -1; }

}  // namespace

TEST_CASE("SceneView: hovering a hotspot reports it and shows its tip, within a few pixels") {
  remat::test::ensureTestApplication();
  SceneView view;
  view.resize(400, 400);  // scale 2: the canvas spans y 100..300
  view.setScene(twoSpots());
  view.show();
  CHECK(view.hasMouseTracking());
  std::vector<int> hovered;
  view.setHoverHandler([&](const viz::Hotspot* h) { hovered.push_back(indexOf(h)); });

  moveTo(view, view.mapFromScene({40, 35}));  // A's centre
  CHECK(hovered == std::vector<int>{1});
  CHECK(indexOf(view.hoveredHotspot()) == 1);
  CHECK(QToolTip::text() == QStringLiteral("A"));
  moveTo(view, view.mapFromScene({45, 30}));  // still A: no new report
  CHECK(hovered == std::vector<int>{1});

  moveTo(view, view.mapFromScene({100, 90}));  // nothing there
  CHECK(hovered == std::vector<int>{1, -1});
  CHECK(view.hoveredHotspot() == nullptr);

  // 3 widget pixels right of A's right edge is within the tolerance; 6 is not.
  const QPointF edge = view.mapFromScene({60, 35});
  moveTo(view, edge + QPointF(3, 0));
  CHECK(indexOf(view.hoveredHotspot()) == 1);
  moveTo(view, edge + QPointF(6, 0));
  CHECK(view.hoveredHotspot() == nullptr);

  moveTo(view, view.mapFromScene({145, 60}));
  CHECK(indexOf(view.hoveredHotspot()) == 2);
  CHECK(hovered == std::vector<int>{1, -1, 1, -1, 2});
  // A new scene drops the hovered hotspot of the old one.
  view.setScene(twoSpots());
  CHECK(view.hoveredHotspot() == nullptr);
  CHECK(hovered.back() == -1);
}

TEST_CASE("SceneView: a click reports the hotspot under it, a drag pans and does not click") {
  remat::test::ensureTestApplication();
  SceneView view;
  view.resize(400, 400);
  view.setScene(twoSpots());
  view.show();
  std::vector<int> clicked;
  view.setClickHandler([&](const viz::Hotspot& h) { clicked.push_back(static_cast<int>(h.index)); });

  const QPointF b = view.mapFromScene({145, 60});
  const QPointF origin = view.mapFromScene({0, 0});
  send(view, QEvent::MouseButtonPress, b, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, b + QPointF(1, 1), Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, b + QPointF(2, 1), Qt::LeftButton, Qt::NoButton);
  CHECK(clicked.empty());  // not before the double-click interval has passed
  CHECK(QTest::qWaitFor([&] { return !clicked.empty(); }, 5000));
  CHECK(clicked == std::vector<int>{2});
  CHECK(near(view.mapFromScene({0, 0}), origin));  // a click does not move the view

  // Press, move 20 px, release: a pan by 20 px, no click.
  send(view, QEvent::MouseButtonPress, b, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, b + QPointF(10, 0), Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, b + QPointF(20, 0), Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, b + QPointF(20, 0), Qt::LeftButton, Qt::NoButton);
  CHECK(clicked == std::vector<int>{2});
  CHECK(near(view.mapFromScene({0, 0}), origin + QPointF(20, 0)));

  // Moving away and back while pressed is a drag too, even released where it began.
  const QPointF a = view.mapFromScene({40, 35});
  send(view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, a + QPointF(0, 10), Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, a, Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, a, Qt::LeftButton, Qt::NoButton);
  CHECK(clicked == std::vector<int>{2});

  // A click where no hotspot is reports nothing; one on A reports A.
  const QPointF empty = view.mapFromScene({100, 90});
  send(view, QEvent::MouseButtonPress, empty, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, empty, Qt::LeftButton, Qt::NoButton);
  CHECK(clicked == std::vector<int>{2});
  send(view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, a, Qt::LeftButton, Qt::NoButton);
  CHECK(QTest::qWaitFor([&] { return clicked.size() == 2; }, 5000));
  CHECK(clicked == std::vector<int>{2, 1});

  // A double click on a hotspot resets the view and clicks nothing (press, release, double click,
  // release is what a window system sends).
  send(view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, a, Qt::LeftButton, Qt::NoButton);
  send(view, QEvent::MouseButtonDblClick, a, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, a, Qt::LeftButton, Qt::NoButton);
  CHECK(view.zoom() == 1.0);
  CHECK(near(view.panOffset(), {0, 0}));
  QTest::qWait(2 * QGuiApplication::styleHints()->mouseDoubleClickInterval());
  CHECK(clicked == std::vector<int>{2, 1});
}

TEST_CASE("SceneView: mapToScene inverts mapFromScene at any zoom and pan") {
  remat::test::ensureTestApplication();
  SceneView view;
  view.resize(300, 500);
  view.setScene(twoSpots());
  const std::vector<QPointF> points{{0, 0}, {200, 100}, {37.5, 81.25}, {-20, 140}};
  const auto roundTrips = [&] {
    for (const QPointF& p : points) {
      INFO(p.x() << ", " << p.y());
      const QPointF back = view.mapToScene(view.mapFromScene(p));
      CHECK(std::abs(back.x() - p.x()) < 1e-9);
      CHECK(std::abs(back.y() - p.y()) < 1e-9);
    }
  };
  roundTrips();
  CHECK(near(view.mapToScene({150, 250}), {100, 50}));  // the widget's centre shows the canvas's
  view.zoomAt(1.7, {123, 77});
  view.panBy({13, -9});
  roundTrips();
  view.zoomAt(0.3, {10, 400});
  roundTrips();
  // The hotspot under a widget point is found through the same mapping.
  const QPointF b = view.mapFromScene({145, 60});
  moveTo(view, b);
  CHECK(indexOf(view.hoveredHotspot()) == 2);
}

TEST_CASE("SceneView builds figures on a worker thread and shows the latest", "[vizqt][sceneview]") {
  remat::test::ensureTestApplication();
  std::atomic<int> calls{0};
  std::atomic<int> inputs{1};
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  std::atomic<bool> hold{true};  // the job waits while set: a build stays in flight as long as the test wants
  auto view = std::make_unique<SceneView>();
  view->setAsyncSceneBuilder([&](double w, double h) -> SceneView::SceneJob {
    const int value = inputs.load();  // the GUI-thread half copies the inputs
    if (value == 0) {
      view->setPlaceholderText(QStringLiteral("nothing to draw"));
      return {};
    }
    return [&, value, w, h] {
      while (hold.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      {
        const std::lock_guard lock(mutex);
        threads.push_back(std::this_thread::get_id());
      }
      ++calls;
      if (value < 0) throw std::runtime_error("no figure for negative inputs");
      viz::Scene s;
      s.width = w;
      s.height = h;
      s.add(viz::TextItem{{10, 10}, std::to_string(value)});
      return s;
    };
  });
  view->resize(300, 200);
  view->show();
  REQUIRE(QTest::qWaitForWindowExposed(view.get()));
  view->repaint();  // the paint starts the build and returns at once, the job still held
  CHECK(view->building());
  // Meanwhile the inputs change: one more build must follow the one in flight.
  inputs = 2;
  view->invalidate();
  QApplication::processEvents();
  CHECK(calls == 0);
  hold = false;
  REQUIRE(QTest::qWaitFor([&] { return calls == 2 && !view->building(); }, 10000));
  {
    const std::lock_guard lock(mutex);
    for (const auto id : threads) CHECK(id != std::this_thread::get_id());
  }
  // Up to date: currentScene gives the worker's figure of the latest inputs without building again.
  const viz::Scene& shown = view->currentScene();
  REQUIRE(shown.items.size() == 1);
  CHECK(std::get<viz::TextItem>(shown.items[0]).text == "2");
  CHECK(calls == 2);

  // A job that throws: its message is the placeholder; an empty job: nothing to show.
  inputs = -1;
  view->invalidate();
  view->repaint();
  REQUIRE(QTest::qWaitFor([&] { return calls == 3 && !view->building(); }, 10000));
  CHECK(view->currentScene().width == 0);
  CHECK(view->placeholderText() == QStringLiteral("no figure for negative inputs"));
  inputs = 0;
  view->invalidate();
  view->repaint();
  CHECK_FALSE(view->building());
  CHECK(view->placeholderText() == QStringLiteral("nothing to draw"));

  // Asked for while a build is in flight, the figure is built at once on the calling thread.
  hold = true;
  inputs = 5;
  view->invalidate();
  view->repaint();
  REQUIRE(view->building());
  hold = false;
  REQUIRE(view->currentScene().items.size() == 1);
  CHECK(std::get<viz::TextItem>(view->currentScene().items[0]).text == "5");
  REQUIRE(QTest::qWaitFor([&] { return !view->building(); }, 10000));
  CHECK(std::get<viz::TextItem>(view->currentScene().items[0]).text == "5");  // the late result changes nothing
  const int built = calls;

  // Closing the view while a build runs waits for it; its late result goes nowhere.
  hold = true;
  inputs = 3;
  view->invalidate();
  view->repaint();
  CHECK(view->building());
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    hold = false;
  });
  view.reset();
  release.join();
  QApplication::processEvents();
  CHECK(calls == built + 1);
}

namespace {

// The widget's picture of `scene` painted afresh, as paintEvent does without a kept picture: the
// background, then the scene at the widget's fit, zoom and pan.
QImage paintedAfresh(SceneView& view, const viz::Scene& scene) {
  QImage image(view.size() * view.devicePixelRatioF(), QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(view.devicePixelRatioF());
  image.setDotsPerMeterX(static_cast<int>(std::lround(view.logicalDpiX() / 0.0254)));
  image.setDotsPerMeterY(static_cast<int>(std::lround(view.logicalDpiY() / 0.0254)));
  image.fill(QColor(scene.background.r, scene.background.g, scene.background.b, scene.background.a));
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  const QPointF origin = view.mapFromScene(QPointF(0, 0));
  const double s = std::min(view.width() / scene.width, view.height() / scene.height) * view.zoom();
  painter.translate(origin);
  painter.scale(s, s);
  remat::vizqt::paintScene(scene, painter);
  painter.end();
  return image;
}

QImage shown(SceneView& view) { return view.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied); }

// The same pixels (QImage's == also compares what the pixels are not: the colour space, the DPI).
bool samePixels(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return false;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x)
      if (a.pixel(x, y) != b.pixel(x, y)) return false;
  return true;
}

viz::Scene labelled(const std::string& text, viz::Color fill) {
  viz::Scene s;
  s.width = 200;
  s.height = 100;
  s.add(viz::RectItem{10, 10, 80, 40, viz::Fill{fill}, viz::Stroke{{0, 0, 0}, 1.5}, 0});
  s.add(viz::RectItem{100, 20, 60, 50, viz::Fill{fill, viz::Hatch::Cross}, std::nullopt, 6});
  s.add(viz::TextItem{{20, 80}, text});
  return s;
}

}  // namespace

// Repaints copy a kept picture of the scene (painting every item again took tens of milliseconds on
// large figures): whatever changed since, the widget must show what a fresh paint would.
TEST_CASE("SceneView shows a fresh paint of its scene after every change, its kept picture never stale",
          "[vizqt][sceneview]") {
  remat::test::ensureTestApplication();
  SceneView view;
  view.resize(300, 200);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  const viz::Scene first = labelled("first", {200, 40, 40});
  const viz::Scene second = labelled("second", {40, 40, 200});
  view.setScene(first);
  const QImage a = shown(view);
  CHECK(samePixels(a, paintedAfresh(view, first)));
  CHECK(samePixels(shown(view), a));  // painted again unchanged: the same picture
  view.setScene(second);
  CHECK_FALSE(samePixels(shown(view), a));
  CHECK(samePixels(shown(view), paintedAfresh(view, second)));
  view.zoomAt(2.0, QPointF(100, 50));
  CHECK(samePixels(shown(view), paintedAfresh(view, second)));
  view.panBy(QPointF(-30, 12));
  CHECK(samePixels(shown(view), paintedAfresh(view, second)));
  view.resetView();
  view.resize(240, 260);
  CHECK(samePixels(shown(view), paintedAfresh(view, second)));

  // A figure built on the worker arrives with its picture already painted there: the same pixels.
  std::atomic<int> builds{0};
  view.setAsyncSceneBuilder([&](double, double) -> SceneView::SceneJob {
    return [&] {
      ++builds;
      return labelled("from the worker", {40, 160, 40});
    };
  });
  view.repaint();
  REQUIRE(QTest::qWaitFor([&] { return builds == 1 && !view.building(); }, 10000));
  CHECK(samePixels(shown(view), paintedAfresh(view, labelled("from the worker", {40, 160, 40}))));
  CHECK(builds == 1);  // showing it did not build it again
  view.zoomAt(0.5, QPointF(10, 10));
  CHECK(samePixels(shown(view), paintedAfresh(view, labelled("from the worker", {40, 160, 40}))));
}

TEST_CASE("SceneView: a right click on a hotspot asks its owner for a menu there, elsewhere it passes on") {
  remat::test::ensureTestApplication();
  SceneView view;
  view.resize(400, 400);
  view.setScene(twoSpots());
  view.show();
  std::vector<int> asked;
  QPoint where;
  view.setContextMenuHandler([&](const viz::Hotspot& h, QPoint global) {
    asked.push_back(static_cast<int>(h.index));
    where = global;
  });
  const QPoint b = view.mapFromScene({145, 60}).toPoint();
  QContextMenuEvent onB(QContextMenuEvent::Mouse, b, view.mapToGlobal(b));
  QApplication::sendEvent(&view, &onB);
  CHECK(asked == std::vector<int>{2});
  CHECK(where == view.mapToGlobal(b));
  CHECK(onB.isAccepted());
  const QPoint empty = view.mapFromScene({100, 90}).toPoint();
  QContextMenuEvent elsewhere(QContextMenuEvent::Mouse, empty, view.mapToGlobal(empty));
  QApplication::sendEvent(&view, &elsewhere);
  CHECK(asked == std::vector<int>{2});
  CHECK_FALSE(elsewhere.isAccepted());
}

TEST_CASE("paintScene: text too small to read at the view's scale is not painted, and is once zoomed") {
  remat::test::ensureTestApplication();
  viz::Scene bare;
  bare.width = 100;
  bare.height = 40;
  bare.add(viz::RectItem{0, 0, 100, 40, viz::Fill{{255, 255, 255}}, std::nullopt, 0});
  viz::Scene labelled = bare;
  labelled.add(
      viz::TextItem{{50, 20}, "conv1", viz::kMinTextSize / 2, {0, 0, 0}, viz::Anchor::Middle, viz::Baseline::Middle});
  auto paint = [](const viz::Scene& scene, double scale) {
    QImage image(static_cast<int>(100 * scale), static_cast<int>(40 * scale), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.scale(scale, scale);
    remat::vizqt::paintScene(scene, painter, scale);
    return image;
  };
  CHECK(paint(labelled, 1) == paint(bare, 1));  // half the least readable size: a smudge, skipped
  CHECK(paint(labelled, 4) != paint(bare, 4));  // twice it: painted
}
