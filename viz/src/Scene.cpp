#include "remat/viz/Scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace remat::viz {

Color mix(Color a, Color b, double t) {
  const auto channel = [t](std::uint8_t x, std::uint8_t y) {
    return static_cast<std::uint8_t>(
        std::lround(static_cast<double>(x) + (static_cast<double>(y) - static_cast<double>(x)) * t));
  };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), 255};
}

double Color::luminance() const {
  auto linear = [](std::uint8_t c) {
    const double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

std::string Color::hex() const {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

const Hotspot* Scene::hotspotAt(Point p, double tolerance) const {
  tolerance = std::max(0.0, tolerance);
  const Hotspot* nearest = nullptr;
  double nearestDistance = std::numeric_limits<double>::infinity();
  for (std::size_t i = hotspots.size(); i-- > 0;) {  // the last added first
    const Hotspot& h = hotspots[i];
    const double dx = std::max({h.x - p.x, 0.0, p.x - (h.x + h.w)});
    const double dy = std::max({h.y - p.y, 0.0, p.y - (h.y + h.h)});
    if (dx == 0 && dy == 0) return &h;  // the last added of those containing p itself
    if (dx <= tolerance && dy <= tolerance) {
      const double d = std::hypot(dx, dy);
      if (d < nearestDistance) {  // strict: the last added wins a tie, as the scan runs backwards
        nearest = &h;
        nearestDistance = d;
      }
    }
  }
  return nearest;
}

}  // namespace remat::viz
