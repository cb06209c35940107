#pragma once

#include <string>
#include <string_view>

namespace remat::viz {

/// Text extents for laying out figures: the figure builders place labels, legends and margins with
/// it, so nothing is clipped or overlaps. viz/qt supplies the real font's metrics (the same ones it
/// paints with); ApproxTextMetrics is a font-free estimate for tests and for callers without Qt.
class TextMetrics {
 public:
  virtual ~TextMetrics() = default;
  /// Advance width of a UTF-8 string at a font size (scene units).
  [[nodiscard]] virtual double width(std::string_view text, double size, bool bold = false) const = 0;
  /// Line height (ascent + descent) at a font size.
  [[nodiscard]] virtual double height(double size) const { return 1.17 * size; }
};

/// Widths from DejaVu Sans's average advances per character class, rounded up: a slight overestimate,
/// so layouts made with it leave room for the real fonts (DejaVu Serif is narrower).
class ApproxTextMetrics final : public TextMetrics {
 public:
  [[nodiscard]] double width(std::string_view text, double size, bool bold = false) const override;
};

/// The text shortened to fit `maxWidth` at `size`, keeping its head and tail around an ellipsis (names
/// differ at either end: "layer3.conv" vs "layer3.relu"), cut only between UTF-8 code points; the text
/// itself when it fits, empty when not even the ellipsis does.
[[nodiscard]] std::string elideMiddle(const std::string& text, double maxWidth, double size, const TextMetrics& tm);

/// A shared ApproxTextMetrics.
[[nodiscard]] const TextMetrics& approxTextMetrics();

}  // namespace remat::viz
