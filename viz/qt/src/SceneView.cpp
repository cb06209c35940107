#include "remat/vizqt/SceneView.hpp"

#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <exception>

#include "remat/vizqt/ScenePainter.hpp"

namespace remat::vizqt {

namespace {
constexpr int kResizeSettleMs = 150;
bool hasSize(const viz::Scene& s) { return s.width > 0 && s.height > 0; }
}  // namespace

SceneView::SceneView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setFocusPolicy(Qt::WheelFocus);
  setMinimumSize(120, 80);
  m_resizeSettle.setSingleShot(true);
  m_resizeSettle.setInterval(kResizeSettleMs);
  connect(&m_resizeSettle, &QTimer::timeout, this, [this] { update(); });
}

void SceneView::setScene(viz::Scene scene) {
  m_builder = nullptr;
  m_scene = std::move(scene);
  m_dirty = false;
  update();
}

void SceneView::setSceneBuilder(SceneBuilder builder) {
  m_builder = std::move(builder);
  invalidate();
}

void SceneView::invalidate() {
  m_dirty = true;
  update();
}

void SceneView::setPlaceholderText(const QString& text) {
  m_placeholder = text;
  update();
}

const viz::Scene& SceneView::currentScene() {
  rebuildIfNeeded();
  return m_scene;
}

void SceneView::rebuildIfNeeded() {
  if (!m_builder || (!m_dirty && m_builtFor == size())) return;
  m_dirty = false;
  m_builtFor = size();
  // The builder is the owner's code; an exception must not cross the event loop from paintEvent.
  try {
    m_scene = m_builder(std::max(1, width()), std::max(1, height()));
  } catch (const std::exception& e) {
    m_scene = {};
    m_placeholder = QString::fromUtf8(e.what());
  } catch (...) {
    m_scene = {};
    m_placeholder = QStringLiteral("the figure could not be drawn");
  }
}

double SceneView::fitScale() const {
  if (!hasSize(m_scene)) return 1.0;
  return std::min(width() / m_scene.width, height() / m_scene.height);
}

QPointF SceneView::mapFromScene(QPointF p) const {
  const double s = fitScale() * m_zoom;
  const QPointF centre(width() / 2.0, height() / 2.0);
  const QPointF sceneCentre(m_scene.width / 2.0, m_scene.height / 2.0);
  return centre + m_pan + (p - sceneCentre) * s;
}

void SceneView::zoomAt(double factor, QPointF anchor) {
  if (!(factor > 0)) return;
  const double next = std::clamp(m_zoom * factor, kMinZoom, kMaxZoom);
  const QPointF centre(width() / 2.0, height() / 2.0);
  // Keep the scene point under the anchor fixed: anchor = centre + pan + d * zoom for that point's d.
  m_pan = anchor - centre - (anchor - centre - m_pan) * (next / m_zoom);
  m_zoom = next;
  update();
}

void SceneView::panBy(QPointF delta) {
  m_pan += delta;
  update();
}

void SceneView::resetView() {
  m_zoom = 1.0;
  m_pan = {};
  update();
}

void SceneView::paintEvent(QPaintEvent* /*event*/) {
  if (!m_resizeSettle.isActive() || !hasSize(m_scene)) rebuildIfNeeded();
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  if (!hasSize(m_scene)) {
    painter.fillRect(rect(), palette().window());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
    return;
  }
  const auto& bg = m_scene.background;
  painter.fillRect(rect(), QColor(bg.r, bg.g, bg.b, bg.a));
  const QPointF origin = mapFromScene(QPointF(0, 0));
  const double s = fitScale() * m_zoom;
  painter.translate(origin);
  painter.scale(s, s);
  paintScene(m_scene, painter);
}

void SceneView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_builder && hasSize(m_scene)) m_resizeSettle.start();
}

void SceneView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) {
    event->ignore();
    return;
  }
  zoomAt(std::pow(1.15, steps), event->position());
  event->accept();
}

void SceneView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_dragFrom = event->position();
    setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QWidget::mousePressEvent(event);
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragFrom) {
    panBy(event->position() - *m_dragFrom);
    m_dragFrom = event->position();
    event->accept();
    return;
  }
  QWidget::mouseMoveEvent(event);
}

void SceneView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_dragFrom) {
    m_dragFrom.reset();
    unsetCursor();
    event->accept();
    return;
  }
  QWidget::mouseReleaseEvent(event);
}

void SceneView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    resetView();
    event->accept();
    return;
  }
  QWidget::mouseDoubleClickEvent(event);
}

}  // namespace remat::vizqt
