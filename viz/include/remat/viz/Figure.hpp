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

  [[nodiscard]] const TextMetrics& text() const { return metrics ? *metrics : approxTextMetrics(); }
};

}  // namespace remat::viz
