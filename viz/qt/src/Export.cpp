#include "remat/vizqt/Export.hpp"

#include <QBuffer>
#include <QByteArray>
#include <QDateTime>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "remat/io/OutputFile.hpp"
#include "remat/vizqt/ScenePainter.hpp"

namespace remat::vizqt {

namespace {

// Qt dates every PDF it writes, so that the same figure would give other bytes each second. The entry is
// overwritten in place (the same length: the cross-reference offsets stay right): blanked, or with the
// date SOURCE_DATE_EPOCH gives (the reproducible-builds convention) when it is set.
void stampPdfDate(QByteArray& pdf) {
  const QByteArray key = QByteArrayLiteral("/CreationDate (");
  const qsizetype at = pdf.indexOf(key);
  if (at < 0) return;
  const qsizetype end = pdf.indexOf(')', at + key.size());
  if (end < 0) return;
  const qsizetype length = end + 1 - at;
  QByteArray entry;
  bool ok = false;
  const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
  if (ok && epoch >= 0) {
    const QDateTime when = QDateTime::fromSecsSinceEpoch(epoch, QTimeZone::utc());
    entry = key + "D:" + when.toString(QStringLiteral("yyyyMMddHHmmss")).toLatin1() + "Z)";
  }
  if (entry.size() > length) entry.clear();
  entry.append(QByteArray(length - entry.size(), ' '));
  pdf.replace(at, length, entry);
}

}  // namespace

std::optional<ImageFormat> formatFromPath(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "svg") return ImageFormat::Svg;
  if (ext == "pdf") return ImageFormat::Pdf;
  if (ext == "png") return ImageFormat::Png;
  return std::nullopt;
}

std::optional<std::string> encodeScene(const viz::Scene& scene, ImageFormat format, std::string& bytes,
                                       const ExportOptions& options) {
  if (!(scene.width > 0 && scene.height > 0)) return std::string("the figure has no size");
  // Painted into memory, so that a file is only ever written whole (exportScene).
  QByteArray data;
  QBuffer buffer(&data);
  buffer.open(QIODevice::WriteOnly);
  switch (format) {
    case ImageFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&buffer);
      svg.setResolution(96);  // one scene unit per SVG user unit
      svg.setSize(QSize(static_cast<int>(std::ceil(scene.width)), static_cast<int>(std::ceil(scene.height))));
      svg.setViewBox(QRectF(0, 0, scene.width, scene.height));
      svg.setTitle(QStringLiteral("Remat figure"));
      QPainter painter;
      if (!painter.begin(&svg)) return std::string("cannot paint the SVG");
      paintScene(scene, painter);
      painter.end();
      break;
    }
    case ImageFormat::Pdf: {
      QPdfWriter pdf(&buffer);
      constexpr int kResolution = 1200;
      pdf.setResolution(kResolution);
      pdf.setCreator(QStringLiteral("Remat"));
      // The page is the figure: its size in points (scene units are 1/96 inch), no margins.
      const QSizeF points(scene.width * 72.0 / 96.0, scene.height * 72.0 / 96.0);
      pdf.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                                    QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
      QPainter painter;
      if (!painter.begin(&pdf)) return std::string("cannot paint the PDF");
      painter.scale(kResolution / 96.0, kResolution / 96.0);
      paintScene(scene, painter);
      painter.end();
      buffer.close();
      stampPdfDate(data);
      break;
    }
    case ImageFormat::Png: {
      if (!(options.dpi > 0 && options.dpi <= 2400))
        return std::string("the resolution must be between 1 and 2400 dpi");
      const double scale = options.dpi / 96.0;
      const auto w = static_cast<int>(std::lround(scene.width * scale));
      const auto h = static_cast<int>(std::lround(scene.height * scale));
      if (w <= 0 || h <= 0 || double(w) * double(h) > 400e6) return std::string("the image would be too large");
      QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
      if (image.isNull()) return std::string("out of memory for the image");
      const int dotsPerMeter = static_cast<int>(std::lround(options.dpi / 0.0254));
      image.setDotsPerMeterX(dotsPerMeter);
      image.setDotsPerMeterY(dotsPerMeter);
      image.fill(Qt::white);
      QPainter painter(&image);
      painter.scale(scale, scale);
      paintScene(scene, painter);
      painter.end();
      if (!image.save(&buffer, "PNG")) return std::string("cannot encode the PNG");
      break;
    }
  }
  buffer.close();
  bytes.assign(data.constData(), static_cast<std::size_t>(data.size()));
  return std::nullopt;
}

std::optional<std::string> exportScene(const viz::Scene& scene, const std::string& path, ImageFormat format,
                                       const ExportOptions& options) {
  std::string bytes;
  if (auto error = encodeScene(scene, format, bytes, options)) return "cannot write '" + path + "': " + *error;
  if (auto error = io::writeFileAtomically(path, bytes)) return error->message;
  return std::nullopt;
}

}  // namespace remat::vizqt
