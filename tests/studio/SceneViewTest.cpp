#include <catch2/catch.hpp>

#include <QMouseEvent>
#include <QWheelEvent>

#include <vector>

#include "StudioTestSupport.hpp"
#include "remat/vizqt/SceneView.hpp"

using remat::vizqt::SceneView;
namespace viz = remat::viz;

namespace {

viz::Scene box(double w, double h) {
  viz::Scene s;
  s.width = w;
  s.height = h;
  s.add(viz::RectItem{0, 0, w, h, viz::Fill{{10, 20, 30}}, std::nullopt, 0});
  return s;
}

bool near(QPointF a, QPointF b) { return std::abs(a.x() - b.x()) < 1e-6 && std::abs(a.y() - b.y()) < 1e-6; }

void send(QWidget& w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons held) {
  QMouseEvent event(type, at, w.mapToGlobal(at), button, held, Qt::NoModifier);
  QApplication::sendEvent(&w, &event);
}

}  // namespace

TEST_CASE("SceneView fits the scene to the widget, centred", "[studio][sceneview]") {
  remat::test::ensureWidgetApplication();
  SceneView view;
  view.resize(400, 400);
  view.setScene(box(200, 100));
  // Width limits: scale 2, so the scene spans x 0..400 and y 100..300.
  CHECK(near(view.mapFromScene({0, 0}), {0, 100}));
  CHECK(near(view.mapFromScene({200, 100}), {400, 300}));
  CHECK(near(view.mapFromScene({100, 50}), {200, 200}));
}

TEST_CASE("SceneView zooms about the cursor, pans by dragging and resets on double click", "[studio][sceneview]") {
  remat::test::ensureWidgetApplication();
  SceneView view;
  view.resize(400, 400);
  view.setScene(box(200, 100));
  const QPointF anchor(300, 150);
  // The scene point under the anchor: (anchor - topLeft) / scale = (150, 25).
  const QPointF under(150, 25);
  REQUIRE(near(view.mapFromScene(under), anchor));

  QWheelEvent wheel(anchor, view.mapToGlobal(anchor), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  CHECK(view.zoom() == Approx(1.15));
  CHECK(near(view.mapFromScene(under), anchor));

  view.zoomAt(1e6, anchor);
  CHECK(view.zoom() == Approx(SceneView::kMaxZoom));
  CHECK(near(view.mapFromScene(under), anchor));

  const QPointF before = view.mapFromScene({0, 0});
  send(view, QEvent::MouseButtonPress, {10, 10}, Qt::LeftButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, {40, 30}, Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseMove, {50, 50}, Qt::NoButton, Qt::LeftButton);
  send(view, QEvent::MouseButtonRelease, {50, 50}, Qt::LeftButton, Qt::NoButton);
  CHECK(near(view.mapFromScene({0, 0}), before + QPointF(40, 40)));
  // Moving without the button held does not pan.
  send(view, QEvent::MouseMove, {90, 90}, Qt::NoButton, Qt::NoButton);
  CHECK(near(view.mapFromScene({0, 0}), before + QPointF(40, 40)));

  send(view, QEvent::MouseButtonDblClick, {50, 50}, Qt::LeftButton, Qt::LeftButton);
  CHECK(view.zoom() == 1.0);
  CHECK(near(view.mapFromScene({0, 0}), {0, 100}));
}

TEST_CASE("SceneView rebuilds the figure at its own size through the builder", "[studio][sceneview]") {
  remat::test::ensureWidgetApplication();
  SceneView view;
  std::vector<std::pair<double, double>> calls;
  view.resize(300, 200);
  view.setSceneBuilder([&](double w, double h) {
    calls.emplace_back(w, h);
    return box(w, h);
  });
  CHECK(view.currentScene().width == 300);
  CHECK(view.currentScene().height == 200);
  CHECK(calls.size() == 1);  // built once while nothing changes
  view.resize(500, 250);
  CHECK(view.currentScene().width == 500);
  CHECK(calls.size() == 2);
  view.invalidate();
  (void)view.currentScene();
  CHECK(calls.size() == 3);
  // A canvas that fits exactly is shown at scale 1 from the origin.
  CHECK(near(view.mapFromScene({0, 0}), {0, 0}));

  // An empty scene means "nothing to show"; a builder that throws leaves its message instead.
  view.setSceneBuilder([](double, double) -> viz::Scene { throw std::runtime_error("no plan to draw"); });
  CHECK(view.currentScene().width == 0);
  CHECK(view.placeholderText() == QStringLiteral("no plan to draw"));
  view.show();
  view.repaint();  // painting the placeholder must not throw either
}
