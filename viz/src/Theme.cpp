#include "remat/viz/Theme.hpp"

#include <algorithm>

namespace remat::viz {

std::string_view categoryName(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::Params: return "parameters";
    case MemoryCategory::ParamGrads: return "parameter gradients";
    case MemoryCategory::Inputs: return "inputs";
    case MemoryCategory::Values: return "kept values";
    case MemoryCategory::Recomputed: return "recomputed values";
    case MemoryCategory::Grads: return "gradients";
    case MemoryCategory::Workspace: return "workspace";
  }
  return "?";
}

std::string_view roleName(NodeRole r) {
  switch (r) {
    case NodeRole::Kept: return "kept (segment boundary)";
    case NodeRole::Recomputed: return "recomputed";
    case NodeRole::NeverFreed: return "kept, never freed";
    case NodeRole::Other: return "other";
  }
  return "?";
}

Color textColorOn(Color fill, Color dark) { return fill.luminance() < 0.35 ? Color{255, 255, 255} : dark; }

std::optional<ThemeKind> themeFromName(std::string_view name) {
  if (name == "paper") return ThemeKind::Paper;
  if (name == "screen") return ThemeKind::Screen;
  return std::nullopt;
}

namespace {

// Okabe and Ito's palette, safe for the common colour-vision deficiencies.
constexpr Color kBlack{0, 0, 0};
constexpr Color kOrange{0xE6, 0x9F, 0x00};
constexpr Color kSkyBlue{0x56, 0xB4, 0xE9};
constexpr Color kGreen{0x00, 0x9E, 0x73};
constexpr Color kYellow{0xF0, 0xE4, 0x42};
constexpr Color kBlue{0x00, 0x72, 0xB2};
constexpr Color kVermillion{0xD5, 0x5E, 0x00};
constexpr Color kPurple{0xCC, 0x79, 0xA7};

Theme common() {
  Theme t;
  t.background = {255, 255, 255};
  t.foreground = {0x22, 0x22, 0x22};
  t.grid = {0xE3, 0xE3, 0xE3};
  t.budget = kBlack;
  t.peak = kVermillion;
  t.series = {kBlue, kVermillion, kGreen, kPurple, kOrange, kSkyBlue, kBlack};
  t.seriesDash = {Dash::Solid};
  t.categories = {Fill{{0xB8, 0xB8, 0xB8}},
                  Fill{{0xDD, 0xDD, 0xDD}},
                  Fill{kYellow},
                  Fill{kSkyBlue},
                  Fill{kVermillion},
                  Fill{kGreen},
                  Fill{kPurple}};
  t.roles = {kBlue, kVermillion, kOrange, Color{0xEE, 0xEE, 0xEE}};
  t.phases = {Color{0xEA, 0xF2, 0xFA}, Color{0xF7, 0xF1, 0xE6}, Color{0xFB, 0xE2, 0xD3}};
  return t;
}

}  // namespace

Theme Theme::screen() {
  Theme t = common();
  t.kind = ThemeKind::Screen;
  t.fontFamily = "DejaVu Sans";
  return t;
}

Theme Theme::paper() {
  Theme t = common();
  t.kind = ThemeKind::Paper;
  t.fontFamily = "DejaVu Serif";
  t.foreground = kBlack;
  t.grid = {0xE8, 0xE8, 0xE8};
  // In grey, series differ by dash as well; stacked areas by hatching on top of their lightness.
  t.seriesDash = {Dash::Solid, Dash::Dashed, Dash::Dotted};
  const Hatch hatches[kMemoryCategories] = {Hatch::Horizontal, Hatch::Vertical, Hatch::None, Hatch::None,
                                            Hatch::Forward,    Hatch::Backward, Hatch::Cross};
  for (std::size_t k = 0; k < kMemoryCategories; ++k) t.categories[k].hatch = hatches[k];
  t.phases = {Color{0xF4, 0xF4, 0xF4}, Color{0xFF, 0xFF, 0xFF}, Color{0xE4, 0xE4, 0xE4}};
  return t;
}

Stroke Theme::seriesStroke(std::size_t k, double width) const {
  if (k >= kPinnedStyle) {
    Stroke own = seriesStroke(k - kPinnedStyle, width);
    own.dash = own.dash == Dash::Dotted ? Dash::Dashed : Dash::Dotted;
    return own;
  }
  Dash dash = seriesDash[k % seriesDash.size()];
  // A colour's later uses (more series than colours: the registry has more solvers than the screen
  // theme has hues) take another dash than its first, so no two styles look alike.
  if (k >= series.size() && dash == seriesDash[(k % series.size()) % seriesDash.size()])
    dash = dash == Dash::Dashed ? Dash::Dotted : Dash::Dashed;
  return Stroke{seriesColor(k), width, dash};
}

Marker Theme::seriesMarker(std::size_t k) const {
  if (k >= kPinnedStyle) {
    Marker own = seriesMarker(k - kPinnedStyle);
    own.filled = !own.filled;
    return own;
  }
  constexpr MarkerShape kShapes[] = {MarkerShape::Circle, MarkerShape::Square, MarkerShape::Triangle,
                                     MarkerShape::Diamond};
  return Marker{kShapes[k % 4], (k / 4) % 2 == 0};
}

Theme Theme::withFontSize(double points) const {
  Theme t = *this;
  const double px = points * 96.0 / 72.0;
  const double scale = px / fontSize;
  constexpr double kMinPx = 6.0 * 96.0 / 72.0;
  t.fontSize = px;
  t.labelFontSize = std::max(kMinPx, labelFontSize * scale);
  t.titleFontSize = std::max(kMinPx, titleFontSize * scale);
  t.smallFontSize = std::max(kMinPx, smallFontSize * scale);
  return t;
}

}  // namespace remat::viz
