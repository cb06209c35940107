#include "remat/vizqt/QtTextMetrics.hpp"

#include <QFontMetricsF>
#include <QImage>

#include "remat/graph/PrintableText.hpp"
#include "remat/vizqt/ScenePainter.hpp"

namespace remat::vizqt {

namespace {
// A 96-DPI device to measure on: scene units are CSS pixels.
const QImage& measuringDevice() {
  static const QImage kImage = [] {
    QImage image(1, 1, QImage::Format_ARGB32);
    image.setDotsPerMeterX(3780);  // 96 DPI
    image.setDotsPerMeterY(3780);
    return image;
  }();
  return kImage;
}
}  // namespace

double QtTextMetrics::width(std::string_view text, double size, bool bold) const {
  const QImage& device = measuringDevice();
  const QFontMetricsF metrics(sceneFont(m_family, size, bold, device), &device);
  // What the painter draws (ScenePainter escapes control characters), so that layouts leave it room.
  const std::string shown = graph::printableText(text);
  return metrics.horizontalAdvance(QString::fromUtf8(shown.data(), static_cast<qsizetype>(shown.size())));
}

double QtTextMetrics::height(double size) const {
  const QImage& device = measuringDevice();
  const QFontMetricsF metrics(sceneFont(m_family, size, false, device), &device);
  return metrics.ascent() + metrics.descent();
}

}  // namespace remat::vizqt
