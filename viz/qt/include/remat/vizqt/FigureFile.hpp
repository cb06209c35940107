#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/viz/Figure.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/viz/TextMetrics.hpp"
#include "remat/vizqt/Export.hpp"

namespace remat::vizqt {

/// How a figure file looks: what `remat render` (and `compare --figures`) take as --size, --width,
/// --height, --dpi, --font, --font-size, --theme and --title, and what Studio's export dialog sets. One
/// request with the same options gives the same bytes from either.
struct FigureOptions {
  double width = 960;   ///< CSS pixels (1/96 inch)
  double height = 540;  ///< CSS pixels
  double dpi = 96;      ///< PNG only: pixels = size x dpi / 96
  std::string font;     ///< empty: the theme's
  double fontSize = 0;  ///< points (1/72 inch) of tick labels and legends, the rest in proportion; 0: the theme's
  std::string theme = "screen";
  std::string title;
};

/// A canvas size papers and talks use: `name` as --size takes it, what it is for, and its size.
struct FigureSize {
  std::string_view name;
  std::string_view description;
  double width;  ///< CSS pixels
  double height;
};
/// column (3.3 x 2.2 in, one column of a two-column paper), two-columns (7 x 3 in, a figure across
/// both), slide (13.33 x 7.5 in, 16:9) and screen (10 x 5.6 in, the command line's default canvas).
[[nodiscard]] const std::vector<FigureSize>& figureSizes();
[[nodiscard]] std::optional<FigureSize> figureSizeFromName(std::string_view name);

/// The style, laid out with the real metrics of the font it will be painted with (which it owns; keep
/// the object alive while the style is used), and what differs from the request (a font that is not
/// installed). Starts the offscreen Qt application when none runs.
struct PreparedStyle {
  viz::FigureStyle style;
  std::shared_ptr<const viz::TextMetrics> metrics;
  std::vector<std::string> warnings;
};
/// Throws std::invalid_argument naming the option for a value out of range (an unknown theme, a size
/// outside 100..20000 px, a dpi outside 10..2400, a font size outside 4..72 pt).
[[nodiscard]] PreparedStyle prepareStyle(const FigureOptions& options);

/// A figure file's bytes, or why there are none.
struct EncodedFigure {
  std::string bytes;
  std::string error;                  ///< empty when there are bytes
  bool tooLarge = false;              ///< the error is the figure's size limit (FigureResult::tooLarge)
  bool encoding = false;              ///< the figure was built; encoding it failed
  std::vector<std::string> warnings;  ///< FigureResult::warnings
};
/// Builds the figure (viz::buildFigure) and encodes it (encodeScene) at the options' dpi.
[[nodiscard]] EncodedFigure encodeFigure(const viz::FigureRequest& request, const PreparedStyle& style,
                                         ImageFormat format, double dpi);

}  // namespace remat::vizqt
