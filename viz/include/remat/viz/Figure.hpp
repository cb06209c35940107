#pragma once

#include <string>

#include "remat/viz/TextMetrics.hpp"
#include "remat/viz/Theme.hpp"

namespace remat::viz {

/// How a figure is drawn: canvas size in scene units (CSS pixels, 1/96 inch), theme, the metrics of
/// the font it will be painted with, and an optional title.
struct FigureStyle {
  double width = 960;
  double height = 540;
  Theme theme = Theme::screen();
  const TextMetrics* metrics = nullptr;  ///< approxTextMetrics() when null
  std::string title;
  /// How far the figure may be magnified where it is shown (an interactive view's zoom; 1 for a file):
  /// labels under kMinTextSize at the canvas size but readable at this zoom are kept, and the painter
  /// shows them once the zoom makes them so (the checkpoint drawing's node names on a large graph).
  double maxZoom = 1;

  [[nodiscard]] const TextMetrics& text() const { return metrics ? *metrics : approxTextMetrics(); }
};

}  // namespace remat::viz
