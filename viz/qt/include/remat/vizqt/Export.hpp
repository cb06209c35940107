#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "remat/viz/Scene.hpp"

namespace remat::vizqt {

enum class ImageFormat { Svg, Pdf, Png };

/// The format named by a file's extension (.svg, .pdf, .png; any case), if one of those.
[[nodiscard]] std::optional<ImageFormat> formatFromPath(std::string_view path);

struct ExportOptions {
  /// PNG only: pixels per inch; the image is the scene's size times dpi / 96 (scene units are CSS px).
  double dpi = 96;
};

/// Encodes the scene in memory as the bytes of an SVG (viewBox in scene units), PDF (a page of the
/// scene's size, vectors and embedded fonts) or PNG file into `bytes`. Needs a QGuiApplication
/// (OffscreenGui). Returns an error message on failure.
[[nodiscard]] std::optional<std::string> encodeScene(const viz::Scene& scene, ImageFormat format, std::string& bytes,
                                                     const ExportOptions& options = {});

/// Encodes the scene (encodeScene) and writes the file whole or not at all (io::writeFileAtomically:
/// a failed export leaves no partial file, and a path that is not a regular file is refused). Returns
/// an error message naming the path on failure.
[[nodiscard]] std::optional<std::string> exportScene(const viz::Scene& scene, const std::string& path,
                                                     ImageFormat format, const ExportOptions& options = {});

}  // namespace remat::vizqt
