#pragma once

#include <string>

#include "remat/viz/TextMetrics.hpp"

namespace remat::vizqt {

/// The real metrics of a font family as ScenePainter will paint it (needs a QGuiApplication), so that
/// figure layouts fit their labels exactly.
class QtTextMetrics final : public viz::TextMetrics {
 public:
  explicit QtTextMetrics(std::string family) : m_family(std::move(family)) {}
  [[nodiscard]] double width(std::string_view text, double size, bool bold = false) const override;
  [[nodiscard]] double height(double size) const override;

 private:
  std::string m_family;
};

}  // namespace remat::vizqt
