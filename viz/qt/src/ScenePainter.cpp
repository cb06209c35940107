#include "remat/vizqt/ScenePainter.hpp"

#include <QFont>
#include <QFontMetricsF>
#include <QPaintDevice>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

#include <cmath>
#include <string>

#include "remat/graph/PrintableText.hpp"

namespace remat::vizqt {

using namespace remat::viz;

namespace {

QColor qcolor(const Color& c) { return QColor(c.r, c.g, c.b, c.a); }

QPen qpen(const std::optional<Stroke>& s) {
  if (!s) return Qt::NoPen;
  QPen pen(qcolor(s->color));
  pen.setWidthF(s->width);
  pen.setCapStyle(Qt::FlatCap);
  pen.setJoinStyle(Qt::MiterJoin);
  // Dash lengths in units of the pen width, so thin and thick lines keep their rhythm.
  if (s->dash == Dash::Dashed)
    pen.setDashPattern({5, 3});
  else if (s->dash == Dash::Dotted)
    pen.setDashPattern({1, 2.5});
  return pen;
}

// Hatching drawn as lines clipped to the shape, not as a pattern brush: pattern brushes are device
// pixels in a PNG and do not survive SVG export, and the figure must look the same everywhere.
void hatch(QPainter& p, const QPainterPath& shape, const Fill& fill) {
  if (fill.hatch == Hatch::None) return;
  const QRectF box = shape.boundingRect();
  if (box.isEmpty()) return;
  constexpr double kSpacing = 5;
  p.save();
  p.setClipPath(shape, Qt::IntersectClip);
  QPen pen(qcolor(fill.hatchColor));
  pen.setWidthF(0.6);
  p.setPen(pen);
  auto diagonal = [&](double sign) {
    const double span = box.width() + box.height();
    for (double d = 0; d <= span; d += kSpacing) {
      if (sign > 0)
        p.drawLine(QPointF(box.left() + d - box.height(), box.bottom()), QPointF(box.left() + d, box.top()));
      else
        p.drawLine(QPointF(box.left() + d - box.height(), box.top()), QPointF(box.left() + d, box.bottom()));
    }
  };
  switch (fill.hatch) {
    case Hatch::Forward: diagonal(1); break;
    case Hatch::Backward: diagonal(-1); break;
    case Hatch::Cross:
      diagonal(1);
      diagonal(-1);
      break;
    case Hatch::Horizontal:
      for (double y = box.top() + kSpacing / 2; y < box.bottom(); y += kSpacing)
        p.drawLine(QPointF(box.left(), y), QPointF(box.right(), y));
      break;
    case Hatch::Vertical:
      for (double x = box.left() + kSpacing / 2; x < box.right(); x += kSpacing)
        p.drawLine(QPointF(x, box.top()), QPointF(x, box.bottom()));
      break;
    case Hatch::None: break;
  }
  p.restore();
}

void fillAndStroke(QPainter& p, const QPainterPath& path, const std::optional<Fill>& fill,
                   const std::optional<Stroke>& stroke) {
  if (fill) {
    p.fillPath(path, qcolor(fill->color));
    hatch(p, path, *fill);
  }
  if (stroke) p.strokePath(path, qpen(stroke));
}

QPolygonF polygon(const std::vector<Point>& points) {
  QPolygonF out;
  out.reserve(static_cast<qsizetype>(points.size()));
  for (const Point& q : points) out << QPointF(q.x, q.y);
  return out;
}

void arrowHead(QPainter& p, const Point& from, const Point& to, const Stroke& stroke) {
  const double dx = to.x - from.x;
  const double dy = to.y - from.y;
  const double len = std::hypot(dx, dy);
  if (len <= 0) return;
  const double ux = dx / len;
  const double uy = dy / len;
  const double size = 4 + 2 * stroke.width;
  QPolygonF head;
  head << QPointF(to.x, to.y) << QPointF(to.x - size * ux + size * 0.45 * uy, to.y - size * uy - size * 0.45 * ux)
       << QPointF(to.x - size * ux - size * 0.45 * uy, to.y - size * uy + size * 0.45 * ux);
  QPainterPath path;
  path.addPolygon(head);
  path.closeSubpath();
  p.fillPath(path, qcolor(stroke.color));
}

}  // namespace

QFont sceneFont(const std::string& family, double size, bool bold, const QPaintDevice& device) {
  QFont font(QString::fromStdString(family));
  font.setPointSizeF(std::max(0.5, size * 72.0 / device.logicalDpiY()));
  font.setBold(bold);
  font.setHintingPreference(QFont::PreferNoHinting);  // widths scale linearly, as the layout assumed
  font.setKerning(true);
  return font;
}

void paintScene(const Scene& scene, QPainter& p, double viewScale) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setRenderHint(QPainter::TextAntialiasing, true);
  p.fillRect(QRectF(0, 0, scene.width, scene.height), qcolor(scene.background));
  const QPaintDevice& device = *p.device();
  int clips = 0;
  for (const Item& item : scene.items) {
    if (const auto* r = std::get_if<RectItem>(&item)) {
      const QRectF box(r->x, r->y, r->w, r->h);
      if (r->radius > 0) {
        QPainterPath path;
        path.addRoundedRect(box, r->radius, r->radius);
        fillAndStroke(p, path, r->fill, r->stroke);
        continue;
      }
      // A plain rectangle takes the paint engines' rectangle calls, several times faster than a path
      // (a schedule or timeline has thousands), and exports as an SVG rect: the same pixels either way.
      if (r->fill) {
        p.fillRect(box, qcolor(r->fill->color));
        if (r->fill->hatch != Hatch::None) {
          QPainterPath path;
          path.addRect(box);
          hatch(p, path, *r->fill);
        }
      }
      if (r->stroke) {
        p.setPen(qpen(r->stroke));
        p.setBrush(Qt::NoBrush);
        p.drawRect(box);
      }
    } else if (const auto* l = std::get_if<PolylineItem>(&item)) {
      if (l->points.size() < 2) continue;
      p.setPen(qpen(l->stroke));
      p.setBrush(Qt::NoBrush);
      p.drawPolyline(polygon(l->points));
    } else if (const auto* g = std::get_if<PolygonItem>(&item)) {
      if (g->points.size() < 3) continue;
      QPainterPath path;
      path.addPolygon(polygon(g->points));
      path.closeSubpath();
      fillAndStroke(p, path, g->fill, g->stroke);
    } else if (const auto* e = std::get_if<EllipseItem>(&item)) {
      QPainterPath path;
      path.addEllipse(QPointF(e->center.x, e->center.y), e->rx, e->ry);
      fillAndStroke(p, path, e->fill, e->stroke);
    } else if (const auto* s = std::get_if<SplineItem>(&item)) {
      if (s->points.size() < 4) continue;
      QPainterPath path(QPointF(s->points[0].x, s->points[0].y));
      for (std::size_t k = 1; k + 2 < s->points.size(); k += 3)
        path.cubicTo(QPointF(s->points[k].x, s->points[k].y), QPointF(s->points[k + 1].x, s->points[k + 1].y),
                     QPointF(s->points[k + 2].x, s->points[k + 2].y));
      p.strokePath(path, qpen(s->stroke));
      if (s->arrow) arrowHead(p, s->points[s->points.size() - 2], s->points.back(), s->stroke);
    } else if (const auto* t = std::get_if<TextItem>(&item)) {
      if (t->size * viewScale < kMinTextSize) continue;  // a smudge at this zoom (FigureStyle::maxZoom)
      const QFont font = sceneFont(scene.fontFamily, t->size, t->bold, device);
      const QFontMetricsF metrics(font, &device);
      // The figure builders escape the names they place; this catches any other text (a title, a plan
      // file's name), since one control character makes an SVG file invalid XML.
      const std::string shown = graph::printableText(t->text);
      const QString text = QString::fromUtf8(shown.data(), static_cast<qsizetype>(shown.size()));
      const double w = metrics.horizontalAdvance(text);
      const double dx = t->anchor == Anchor::Start ? 0 : t->anchor == Anchor::Middle ? -w / 2 : -w;
      const double dy = t->baseline == Baseline::Top      ? metrics.ascent()
                        : t->baseline == Baseline::Bottom ? -metrics.descent()
                                                          : (metrics.ascent() - metrics.descent()) / 2;
      p.save();
      p.translate(t->at.x, t->at.y);
      if (t->rotation != 0) p.rotate(-t->rotation);  // counter-clockwise on screen
      p.setFont(font);
      p.setPen(qcolor(t->color));
      p.drawText(QPointF(dx, dy), text);
      p.restore();
    } else if (const auto* c = std::get_if<PushClipItem>(&item)) {
      p.save();
      p.setClipRect(QRectF(c->x, c->y, c->w, c->h), p.hasClipping() ? Qt::IntersectClip : Qt::ReplaceClip);
      ++clips;
    } else if (std::holds_alternative<PopClipItem>(item)) {
      if (clips > 0) {
        p.restore();
        --clips;
      }
    }
  }
  while (clips-- > 0) p.restore();
  p.restore();
}

}  // namespace remat::vizqt
