#include "remat/vizqt/FigureFile.hpp"

#include <QFont>
#include <QFontInfo>
#include <QString>

#include <stdexcept>

#include "remat/vizqt/OffscreenGui.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"

namespace remat::vizqt {

const std::vector<FigureSize>& figureSizes() {
  static const std::vector<FigureSize> kSizes = {
      {"column", "one column of a two-column paper, 3.3 x 2.2 in", 3.3 * 96, 2.2 * 96},
      {"two-columns", "across both columns, 7 x 3 in", 7.0 * 96, 3.0 * 96},
      {"slide", "a 16:9 slide, 13.33 x 7.5 in", 1280, 720},
      {"screen", "the command line's default canvas, 10 x 5.6 in", 960, 540},
  };
  return kSizes;
}

std::optional<FigureSize> figureSizeFromName(std::string_view name) {
  for (const FigureSize& s : figureSizes())
    if (s.name == name) return s;
  return std::nullopt;
}

PreparedStyle prepareStyle(const FigureOptions& o) {
  const auto theme = viz::themeFromName(o.theme);
  if (!theme) throw std::invalid_argument("unknown theme '" + o.theme + "' (paper, screen)");
  if (!(o.width >= 100 && o.width <= 20000 && o.height >= 100 && o.height <= 20000))
    throw std::invalid_argument("--width and --height must be between 100 and 20000");
  if (!(o.dpi >= 10 && o.dpi <= 2400)) throw std::invalid_argument("--dpi must be between 10 and 2400");
  if (o.fontSize != 0 && !(o.fontSize >= 4 && o.fontSize <= 72))
    throw std::invalid_argument("--font-size must be between 4 and 72 points");
  ensureGuiApplication();
  PreparedStyle out;
  out.style.width = o.width;
  out.style.height = o.height;
  out.style.theme = viz::Theme::of(*theme);
  if (o.fontSize > 0) out.style.theme = out.style.theme.withFontSize(o.fontSize);
  out.style.title = o.title;
  if (!o.font.empty()) out.style.theme.fontFamily = o.font;
  const QFont requested(QString::fromStdString(out.style.theme.fontFamily));
  const QString actual = QFontInfo(requested).family();
  if (actual.compare(requested.family(), Qt::CaseInsensitive) != 0)
    out.warnings.push_back("font '" + out.style.theme.fontFamily + "' is not installed; drawing with '" +
                           actual.toStdString() + "'");
  out.metrics = std::make_shared<QtTextMetrics>(out.style.theme.fontFamily);
  out.style.metrics = out.metrics.get();
  return out;
}

EncodedFigure encodeFigure(const viz::FigureRequest& request, const PreparedStyle& style, ImageFormat format,
                           double dpi) {
  EncodedFigure out;
  viz::FigureResult figure = viz::buildFigure(request, style.style);
  out.warnings = std::move(figure.warnings);
  if (!figure.scene) {
    out.error = figure.error;
    out.tooLarge = figure.tooLarge;
    return out;
  }
  if (auto error = encodeScene(*figure.scene, format, out.bytes, ExportOptions{dpi})) {
    out.bytes.clear();
    out.error = *error;
    out.encoding = true;
  }
  return out;
}

}  // namespace remat::vizqt
