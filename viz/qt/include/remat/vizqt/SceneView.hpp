#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <optional>

#include "remat/viz/Scene.hpp"

class QPainter;

namespace remat::vizqt {

/// A widget that shows a viz::Scene, painted by paintScene: scaled to fit and centred, the mouse wheel
/// zooms about the cursor, dragging pans and a double click resets the view. Figures lay out for their
/// canvas, so the owner may give a builder that draws the figure at the widget's size; it is called again
/// whenever that size changes or the owner invalidates the figure.
class SceneView : public QWidget {
 public:
  /// Draws the figure for a canvas of `width` x `height` scene units. A scene without size means
  /// "nothing to show": the placeholder text is shown instead.
  using SceneBuilder = std::function<viz::Scene(double width, double height)>;

  explicit SceneView(QWidget* parent = nullptr);

  /// Shows a fixed scene (and drops any builder).
  void setScene(viz::Scene scene);
  /// Draws through the builder at the widget's size, from the next paint on.
  void setSceneBuilder(SceneBuilder builder);
  /// The figure's inputs changed: rebuild at the next paint.
  void invalidate();
  /// The text shown while there is no scene (for example why the figure cannot be drawn).
  void setPlaceholderText(const QString& text);
  [[nodiscard]] const QString& placeholderText() const { return m_placeholder; }

  /// The scene as it is shown now, built first when a builder is set and the scene is out of date.
  /// Empty (no size) when there is nothing to show.
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

  static constexpr double kMinZoom = 0.1;
  static constexpr double kMaxZoom = 50.0;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void rebuildIfNeeded();
  [[nodiscard]] double fitScale() const;

  SceneBuilder m_builder;
  viz::Scene m_scene;
  bool m_dirty = false;
  QSize m_builtFor;
  QString m_placeholder;
  double m_zoom = 1.0;
  QPointF m_pan;
  std::optional<QPointF> m_dragFrom;
  // While the user drags the window edge, the old figure is scaled and the rebuild waits for a pause.
  QTimer m_resizeSettle;
};

}  // namespace remat::vizqt
