#pragma once

#include <QImage>
#include <QPoint>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <thread>

#include "remat/viz/Scene.hpp"

class QPainter;

namespace remat::vizqt {

/// A widget that shows a viz::Scene, painted by paintScene: scaled to fit and centred, the mouse wheel
/// zooms about the cursor, dragging pans and a double click resets the view. Figures lay out for their
/// canvas, so the owner may give a builder that draws the figure at the widget's size; it is called again
/// whenever that size changes or the owner invalidates the figure.
///
/// The scene's hotspots answer the mouse: hovering one shows its tip as a tool tip and tells the hover
/// handler; a click (a left press and release less than kClickSlop pixels apart, which does not pan)
/// on one tells the click handler. Both find the hotspot within kHoverTolerance pixels of the cursor.
class SceneView : public QWidget {
 public:
  /// Draws the figure for a canvas of `width` x `height` scene units. A scene without size means
  /// "nothing to show": the placeholder text is shown instead.
  using SceneBuilder = std::function<viz::Scene(double width, double height)>;
  /// Called when the hotspot under the cursor changes, with nullptr when it leaves every hotspot (or the
  /// scene it was in is replaced). The pointer is valid until the scene changes.
  using HoverHandler = std::function<void(const viz::Hotspot*)>;
  /// Called on a click on a hotspot; the reference is valid during the call.
  using ClickHandler = std::function<void(const viz::Hotspot&)>;
  /// Called on a context-menu request (right click, the menu key) over a hotspot, with the point in
  /// global screen coordinates where a menu should open; the reference is valid during the call.
  using ContextMenuHandler = std::function<void(const viz::Hotspot&, QPoint globalPos)>;

  /// The work of an asynchronous build: runs on a worker thread, so it may only use what it owns
  /// (copies of the figure's inputs). It may throw; the message is shown as the placeholder.
  using SceneJob = std::function<viz::Scene()>;
  /// Runs on the GUI thread and returns the build for a canvas of `width` x `height`; an empty job
  /// means "nothing to show" (the owner sets the placeholder text).
  using AsyncSceneBuilder = std::function<SceneJob(double width, double height)>;

  explicit SceneView(QWidget* parent = nullptr);
  /// Waits for a build in flight (see waitForBuild).
  ~SceneView() override;
  SceneView(const SceneView&) = delete;
  SceneView& operator=(const SceneView&) = delete;

  /// Shows a fixed scene (and drops any builder).
  void setScene(viz::Scene scene);
  /// Draws through the builder at the widget's size, from the next paint on, on the GUI thread.
  void setSceneBuilder(SceneBuilder builder);
  /// Draws through the builder's jobs on a worker thread, so that a slow figure (a Graphviz layout of a
  /// large graph) never holds up the event loop: paints show the figure they have, scaled, until the
  /// new one arrives (one build at a time; changes meanwhile start one more when it ends).
  void setAsyncSceneBuilder(AsyncSceneBuilder builder);
  /// Whether a build runs on the worker now.
  [[nodiscard]] bool building() const { return m_building; }
  /// Blocks until the build in flight, if any, has ended (its result is then delivered by the event
  /// loop). An owner whose jobs use its own state calls it before that state goes away.
  void waitForBuild();
  /// The figure's inputs changed: rebuild at the next paint.
  void invalidate();
  /// The text shown while there is no scene (for example why the figure cannot be drawn).
  void setPlaceholderText(const QString& text);
  [[nodiscard]] const QString& placeholderText() const { return m_placeholder; }

  /// The scene as it is shown now, built first when a builder is set and the scene is out of date (an
  /// asynchronous builder's job then runs here, on the calling thread). Empty (no size) when there is
  /// nothing to show.
  [[nodiscard]] const viz::Scene& currentScene();

  /// The view's zoom factor over "fit to the widget" (1 after a reset).
  [[nodiscard]] double zoom() const { return m_zoom; }
  /// The view's offset from the centred position, in widget pixels.
  [[nodiscard]] QPointF panOffset() const { return m_pan; }
  /// Zooms by `factor` keeping the scene point under `anchor` (widget coordinates) where it is.
  void zoomAt(double factor, QPointF anchor);
  void panBy(QPointF delta);
  /// Back to "fit to the widget, centred".
  void resetView();
  /// Where a scene point lands in the widget at the current fit, zoom and pan.
  [[nodiscard]] QPointF mapFromScene(QPointF scenePoint) const;
  /// The scene point shown at a widget point: the inverse of mapFromScene.
  [[nodiscard]] QPointF mapToScene(QPointF widgetPoint) const;

  void setHoverHandler(HoverHandler handler);
  /// Called on a click (press and release within a few pixels) on a hotspot, once the double-click
  /// interval has passed without a second press: a double click only fits the view.
  void setClickHandler(ClickHandler handler);
  /// Called on a context-menu request over a hotspot (elsewhere the request goes to the parent).
  void setContextMenuHandler(ContextMenuHandler handler);
  /// The hotspot under the cursor, nullptr when none.
  [[nodiscard]] const viz::Hotspot* hoveredHotspot() const;

  static constexpr double kMinZoom = 0.1;
  static constexpr double kMaxZoom = 50.0;
  /// How far from a hotspot the cursor may be and still hit it, in widget pixels.
  static constexpr double kHoverTolerance = 4.0;
  /// A press and release of the left button closer than this, in widget pixels, is a click, not a drag.
  static constexpr double kClickSlop = 4.0;

  /// What a painted picture of the scene was drawn for: the scene (by version), the widget's size,
  /// device pixel ratio and font resolution, the zoom and the pan.
  struct RasterKey {
    std::uint64_t version = 0;
    QSize size;
    qreal dpr = 1.0;
    int dpiX = 96;
    int dpiY = 96;
    double zoom = 1.0;
    QPointF pan;
    bool operator==(const RasterKey&) const = default;
  };

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void leaveEvent(QEvent* event) override;
  /// A tooltip over a hotspot is the hotspot's tip, never the view's own (its gesture hint, shown elsewhere).
  bool event(QEvent* event) override;

 private:
  /// Brings the scene up to date: at once, or for an asynchronous builder without `now`, by starting
  /// a build on the worker.
  void rebuildIfNeeded(bool now = true);
  void startBuild();
  void onBuilt(std::uint64_t generation, std::optional<viz::Scene> scene, const QString& error, QImage picture,
               RasterKey key);
  [[nodiscard]] RasterKey currentRasterKey() const;
  [[nodiscard]] double fitScale() const;
  /// The hotspot of the current scene at a widget point, within kHoverTolerance pixels.
  [[nodiscard]] const viz::Hotspot* hotspotUnder(QPointF widgetPoint);
  /// Makes `hotspot` (of the current scene, or nullptr) the hovered one: tip and handler if it changed.
  void setHovered(const viz::Hotspot* hotspot, QPointF widgetPoint);
  /// The scene was replaced: the hovered hotspot is gone.
  void dropHover();

  SceneBuilder m_builder;
  AsyncSceneBuilder m_async;
  std::jthread m_worker;
  std::uint64_t m_generation = 0;  ///< of the latest build started; results of older ones are dropped
  bool m_building = false;
  viz::Scene m_scene;
  std::uint64_t m_sceneVersion = 0;  ///< counts the changes of m_scene
  struct Raster {
    QImage image;
    RasterKey key;
  };
  Raster m_raster;  ///< the scene as last painted (see paintEvent)
  bool m_dirty = false;
  QSize m_builtFor;
  QString m_placeholder;
  double m_zoom = 1.0;
  QPointF m_pan;
  std::optional<QPointF> m_dragFrom;  ///< the last position of a left-button press, while it is held
  QPointF m_pressAt;                  ///< where that press began
  bool m_panning = false;             ///< it has moved kClickSlop or more: a drag, not a click
  HoverHandler m_onHover;
  ClickHandler m_onClick;
  ContextMenuHandler m_onContextMenu;
  std::optional<std::size_t> m_hovered;  ///< index into m_scene.hotspots
  // While the user drags the window edge, the old figure is scaled and the rebuild waits for a pause.
  QTimer m_resizeSettle;
  // A click is reported once the double-click interval has passed without a second press: a double
  // click fits the view and selects nothing.
  QTimer m_clickDelay;
  std::optional<viz::Hotspot> m_pendingClick;
};

}  // namespace remat::vizqt
