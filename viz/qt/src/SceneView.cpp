#include "remat/vizqt/SceneView.hpp"

#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QHelpEvent>
#include <QImage>
#include <QLineF>
#include <QMetaObject>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QStyleHints>
#include <QToolTip>
#include <QWheelEvent>
#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>

#include "remat/vizqt/ScenePainter.hpp"

namespace remat::vizqt {

namespace {
constexpr int kResizeSettleMs = 150;
bool hasSize(const viz::Scene& s) { return s.width > 0 && s.height > 0; }

double fitScaleFor(const viz::Scene& scene, QSize widget) {
  if (!hasSize(scene)) return 1.0;
  return std::min(widget.width() / scene.width, widget.height() / scene.height);
}

// Where the scene's origin lands in a widget of `widget`'s size at `zoom` and `pan` (see mapFromScene).
QPointF originFor(const viz::Scene& scene, QSize widget, double zoom, QPointF pan) {
  const double s = fitScaleFor(scene, widget) * zoom;
  const QPointF centre(widget.width() / 2.0, widget.height() / 2.0);
  const QPointF sceneCentre(scene.width / 2.0, scene.height / 2.0);
  return centre + pan - sceneCentre * s;
}

// The widget's picture of the scene: what paintEvent shows, drawn into an image of the widget's size in
// device pixels, with the widget's font resolution, so that text and lines come out as on the widget.
// Safe on any thread (QPainter on a QImage).
QImage renderView(const viz::Scene& scene, const SceneView::RasterKey& key) {
  const QSize pixels(static_cast<int>(std::ceil(key.size.width() * key.dpr)),
                     static_cast<int>(std::ceil(key.size.height() * key.dpr)));
  QImage image(pixels.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(key.dpr);
  image.setDotsPerMeterX(static_cast<int>(std::lround(key.dpiX / 0.0254)));
  image.setDotsPerMeterY(static_cast<int>(std::lround(key.dpiY / 0.0254)));
  const auto& bg = scene.background;
  image.fill(QColor(bg.r, bg.g, bg.b, bg.a));
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  const double s = fitScaleFor(scene, key.size) * key.zoom;
  painter.translate(originFor(scene, key.size, key.zoom, key.pan));
  painter.scale(s, s);
  paintScene(scene, painter, s);
  return image;
}

// The handlers are the owner's code; an exception must not cross the event loop.
template <class Call>
void guarded(const char* what, Call&& call) {
  try {
    call();
  } catch (const std::exception& e) {
    qWarning("SceneView: the %s handler failed: %s", what, e.what());
  } catch (...) {
    qWarning("SceneView: the %s handler failed", what);
  }
}
}  // namespace

SceneView::SceneView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);  // hover over hotspots without a button held
  setFocusPolicy(Qt::WheelFocus);
  setMinimumSize(120, 80);
  m_resizeSettle.setSingleShot(true);
  m_resizeSettle.setInterval(kResizeSettleMs);
  connect(&m_resizeSettle, &QTimer::timeout, this, [this] { update(); });
  m_clickDelay.setSingleShot(true);
  m_clickDelay.setInterval(QGuiApplication::styleHints()->mouseDoubleClickInterval());
  connect(&m_clickDelay, &QTimer::timeout, this, [this] {
    if (!m_pendingClick || !m_onClick) return;
    // A copy: the handler may replace the scene the hotspot came from.
    const viz::Hotspot clicked = *m_pendingClick;
    m_pendingClick.reset();
    guarded("click", [&] { m_onClick(clicked); });
  });
}

SceneView::~SceneView() { waitForBuild(); }

void SceneView::waitForBuild() {
  if (m_worker.joinable()) m_worker.join();
}

void SceneView::setScene(viz::Scene scene) {
  m_builder = nullptr;
  m_async = nullptr;
  ++m_generation;
  dropHover();
  m_scene = std::move(scene);
  ++m_sceneVersion;
  m_dirty = false;
  update();
}

void SceneView::setSceneBuilder(SceneBuilder builder) {
  m_builder = std::move(builder);
  m_async = nullptr;
  invalidate();
}

void SceneView::setAsyncSceneBuilder(AsyncSceneBuilder builder) {
  m_async = std::move(builder);
  // The same jobs, run on the calling thread, serve currentScene().
  m_builder = [async = m_async](double w, double h) {
    const SceneJob job = async(w, h);
    return job ? job() : viz::Scene{};
  };
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
  if (m_building) m_dirty = true;  // the figure of the build in flight is wanted now: build it here
  rebuildIfNeeded();
  return m_scene;
}

void SceneView::rebuildIfNeeded(bool now) {
  if (!m_builder || (!m_dirty && m_builtFor == size())) return;
  if (m_async && !now) {
    if (!m_building) startBuild();  // else onBuilt looks again when the build in flight ends
    return;
  }
  ++m_generation;  // a build in flight is overtaken
  m_dirty = false;
  m_builtFor = size();
  dropHover();
  // The builder is the owner's code; an exception must not cross the event loop from paintEvent.
  ++m_sceneVersion;
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

SceneView::RasterKey SceneView::currentRasterKey() const {
  return {m_sceneVersion, size(), devicePixelRatioF(), logicalDpiX(), logicalDpiY(), m_zoom, m_pan};
}

void SceneView::startBuild() {
  m_dirty = false;
  m_builtFor = size();
  SceneJob job;
  try {
    job = m_async(std::max(1, width()), std::max(1, height()));
  } catch (const std::exception& e) {
    onBuilt(++m_generation, std::nullopt, QString::fromUtf8(e.what()), {}, {});
    return;
  }
  if (!job) {
    onBuilt(++m_generation, viz::Scene{}, {}, {}, {});
    return;
  }
  const std::uint64_t generation = ++m_generation;
  m_building = true;
  // The worker also paints the figure as it will first be shown, unzoomed at this size, so that the GUI
  // thread only copies the picture (painting a large figure takes tens of milliseconds).
  RasterKey key = currentRasterKey();
  key.zoom = 1.0;
  key.pan = {};
  waitForBuild();  // the previous worker has ended: it delivered its result
  m_worker = std::jthread([this, job = std::move(job), generation, key] {
    auto scene = std::make_shared<std::optional<viz::Scene>>();
    auto error = std::make_shared<QString>();
    auto picture = std::make_shared<QImage>();
    try {
      *scene = job();
      if (hasSize(**scene)) *picture = renderView(**scene, key);
    } catch (const std::exception& e) {
      scene->reset();
      *error = QString::fromUtf8(e.what());
    } catch (...) {
      scene->reset();
      *error = QStringLiteral("the figure could not be drawn");
    }
    // Delivered on the GUI thread; dropped by Qt if this view is gone (its destructor joins us first).
    QMetaObject::invokeMethod(
        this,
        [this, generation, scene, error, picture, key] {
          onBuilt(generation, std::move(*scene), *error, std::move(*picture), key);
        },
        Qt::QueuedConnection);
  });
}

void SceneView::onBuilt(std::uint64_t generation, std::optional<viz::Scene> scene, const QString& error, QImage picture,
                        RasterKey key) {
  m_building = false;                // at most one worker is in flight, and this was its result
  if (generation == m_generation) {  // not overtaken by a build on the GUI thread since
    dropHover();
    ++m_sceneVersion;
    if (scene) {
      m_scene = std::move(*scene);
      if (!picture.isNull()) {
        key.version = m_sceneVersion;
        m_raster = {std::move(picture), key};
      }
    } else {
      m_scene = {};
      m_placeholder = error;
    }
  }
  update();  // paints the new figure, and starts the next build if the inputs changed meanwhile
}

double SceneView::fitScale() const { return fitScaleFor(m_scene, size()); }

QPointF SceneView::mapFromScene(QPointF p) const {
  const double s = fitScale() * m_zoom;
  const QPointF centre(width() / 2.0, height() / 2.0);
  const QPointF sceneCentre(m_scene.width / 2.0, m_scene.height / 2.0);
  return centre + m_pan + (p - sceneCentre) * s;
}

QPointF SceneView::mapToScene(QPointF p) const {
  const double s = fitScale() * m_zoom;
  const QPointF centre(width() / 2.0, height() / 2.0);
  const QPointF sceneCentre(m_scene.width / 2.0, m_scene.height / 2.0);
  if (!(s > 0)) return sceneCentre;  // a widget of no size shows no point of the scene
  return sceneCentre + (p - centre - m_pan) / s;
}

void SceneView::setHoverHandler(HoverHandler handler) { m_onHover = std::move(handler); }

void SceneView::setClickHandler(ClickHandler handler) { m_onClick = std::move(handler); }

void SceneView::setContextMenuHandler(ContextMenuHandler handler) { m_onContextMenu = std::move(handler); }

void SceneView::contextMenuEvent(QContextMenuEvent* event) {
  const viz::Hotspot* hotspot = m_onContextMenu ? hotspotUnder(QPointF(event->pos())) : nullptr;
  if (!hotspot) {
    event->ignore();
    return;
  }
  // A copy: the handler may open a menu whose event loop replaces the scene.
  const viz::Hotspot spot = *hotspot;
  event->accept();
  m_onContextMenu(spot, event->globalPos());
}

const viz::Hotspot* SceneView::hoveredHotspot() const {
  return m_hovered && *m_hovered < m_scene.hotspots.size() ? &m_scene.hotspots[*m_hovered] : nullptr;
}

const viz::Hotspot* SceneView::hotspotUnder(QPointF widgetPoint) {
  // What is on screen: while a resize settles, that is the old figure, as paintEvent shows it.
  if (!m_resizeSettle.isActive()) rebuildIfNeeded();
  const viz::Scene& scene = m_scene;
  if (!hasSize(scene) || scene.hotspots.empty()) return nullptr;
  const double s = fitScale() * m_zoom;
  const QPointF p = mapToScene(widgetPoint);
  return scene.hotspotAt({p.x(), p.y()}, s > 0 ? kHoverTolerance / s : 0);
}

void SceneView::setHovered(const viz::Hotspot* hotspot, QPointF widgetPoint) {
  const std::optional<std::size_t> index =
      hotspot ? std::optional<std::size_t>(static_cast<std::size_t>(hotspot - m_scene.hotspots.data())) : std::nullopt;
  if (index == m_hovered) return;
  m_hovered = index;
  if (hotspot && !hotspot->tip.empty())
    QToolTip::showText(mapToGlobal(widgetPoint.toPoint()), QString::fromStdString(hotspot->tip), this);
  else
    QToolTip::hideText();
  if (m_onHover) guarded("hover", [&] { m_onHover(hotspot); });
}

bool SceneView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    if (const viz::Hotspot* spot = hotspotUnder(help->pos()); spot && !spot->tip.empty()) {
      QToolTip::showText(help->globalPos(), QString::fromStdString(spot->tip), this);
      return true;
    }
  }
  return QWidget::event(event);
}

void SceneView::dropHover() {
  if (!m_hovered) return;
  m_hovered.reset();
  QToolTip::hideText();
  if (m_onHover) guarded("hover", [&] { m_onHover(nullptr); });
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
  if (!m_resizeSettle.isActive() || !hasSize(m_scene)) rebuildIfNeeded(false);
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  if (!hasSize(m_scene)) {
    painter.fillRect(rect(), palette().window());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                     m_building ? tr("Drawing the figure\u2026") : m_placeholder);
    return;
  }
  // The picture is kept until the scene, the size, the zoom or the pan changes: a repaint (the tab shown
  // again, a window over it, a tool tip) copies it instead of painting every item again.
  const RasterKey key = currentRasterKey();
  if (m_raster.image.isNull() || !(m_raster.key == key)) m_raster = {renderView(m_scene, key), key};
  painter.drawImage(QPointF(0, 0), m_raster.image);
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
    m_pressAt = event->position();
    m_panning = false;
    setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QWidget::mousePressEvent(event);
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragFrom) {
    // Small jitter while pressing is still a click; the pan, once it starts, catches up with it.
    if (!m_panning && QLineF(m_pressAt, event->position()).length() >= kClickSlop) m_panning = true;
    if (m_panning) {
      panBy(event->position() - *m_dragFrom);
      m_dragFrom = event->position();
    }
    event->accept();
    return;
  }
  setHovered(hotspotUnder(event->position()), event->position());
  QWidget::mouseMoveEvent(event);
}

void SceneView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_dragFrom) {
    const bool click = !m_panning && QLineF(m_pressAt, event->position()).length() < kClickSlop;
    m_dragFrom.reset();
    m_panning = false;
    unsetCursor();
    event->accept();
    const viz::Hotspot* hotspot = hotspotUnder(event->position());
    setHovered(hotspot, event->position());
    if (click && hotspot && m_onClick) {
      m_pendingClick = *hotspot;  // reported unless a double click follows (m_clickDelay)
      m_clickDelay.start();
    }
    return;
  }
  QWidget::mouseReleaseEvent(event);
}

void SceneView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_clickDelay.stop();
    m_pendingClick.reset();
    resetView();
    event->accept();
    return;
  }
  QWidget::mouseDoubleClickEvent(event);
}

void SceneView::leaveEvent(QEvent* event) {
  dropHover();
  QWidget::leaveEvent(event);
}

}  // namespace remat::vizqt
