#pragma once

class QPainter;
class QFont;
class QPaintDevice;

#include <string>

#include "remat/viz/Scene.hpp"

namespace remat::vizqt {

/// Paints a scene with the painter, whose coordinates are scene units (the caller sets the scale from
/// scene units to the device). Used alike by the desktop widget and by every export. `viewScale` is
/// how many units of what the reader sees (widget pixels; 1 for a file) a scene unit makes: text under
/// viz::kMinTextSize there is not painted.
void paintScene(const viz::Scene& scene, QPainter& painter, double viewScale = 1.0);

/// The font of a text item: the family at `size` scene units on a device (QPainter sizes fonts by the
/// device's logical DPI; this undoes it, so that the size is in scene units everywhere).
[[nodiscard]] QFont sceneFont(const std::string& family, double size, bool bold, const QPaintDevice& device);

}  // namespace remat::vizqt
