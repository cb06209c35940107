#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/viz/Scene.hpp"

namespace remat::viz {

/// What a byte alive at some moment holds: the simulator's MemoryBreakdown fields, in stacking order.
enum class MemoryCategory : std::uint8_t { Params, ParamGrads, Inputs, Values, Recomputed, Grads, Workspace };
inline constexpr std::size_t kMemoryCategories = 7;
[[nodiscard]] std::string_view categoryName(MemoryCategory c);  ///< "parameters", "kept values", ...

/// The role of a forward node in a plan, for the checkpoint drawing and the schedule matrix.
enum class NodeRole : std::uint8_t {
  Kept,        ///< on a segment boundary: computed once and kept until its backward
  Recomputed,  ///< dropped after the forward and computed again in the backward
  NeverFreed,  ///< kept from its forward to its backward without being a boundary (store-all's nodes)
  Other,       ///< inputs, parameters, or nodes the plan does not say anything about
};
inline constexpr std::size_t kNodeRoles = 4;
[[nodiscard]] std::string_view roleName(NodeRole r);

/// The colour for text on a fill: white on dark fills, `dark` on light ones.
[[nodiscard]] Color textColorOn(Color fill, Color dark);

enum class ThemeKind : std::uint8_t { Paper, Screen };
[[nodiscard]] std::optional<ThemeKind> themeFromName(std::string_view name);  ///< "paper", "screen"

/// Colours, fonts and line styles of every figure. `paper` is for print: serif, white, and safe in
/// black and white (series differ in dash as well as colour, areas in lightness and hatching). `screen`
/// is sans-serif with the same colour-blind-safe hues (Okabe and Ito) and no hatching.
struct Theme {
  ThemeKind kind = ThemeKind::Screen;
  std::string fontFamily;
  double fontSize = 11;       ///< tick labels, legend
  double labelFontSize = 12;  ///< axis titles
  double titleFontSize = 14;
  double smallFontSize = 9;  ///< annotations, node labels
  Color background;
  Color foreground;  ///< text, axes
  Color grid;
  Color budget;               ///< the budget line
  Color peak;                 ///< the peak marker
  std::vector<Color> series;  ///< one per plan or solver, in order (cycled)
  std::vector<Dash> seriesDash;
  std::array<Fill, kMemoryCategories> categories;  ///< by MemoryCategory
  std::array<Color, kNodeRoles> roles;             ///< by NodeRole
  std::array<Color, 3> phases;                     ///< forward, backward, recompute shading

  [[nodiscard]] static Theme paper();
  [[nodiscard]] static Theme screen();
  [[nodiscard]] static Theme of(ThemeKind kind) { return kind == ThemeKind::Paper ? paper() : screen(); }

  /// Series styles from kPinnedStyle on are the pinned variants of the style k - kPinnedStyle (a plan
  /// a solver made under the user's pins): the same colour, another dash (dotted, or dashed where the
  /// solver's own is dotted), and in the Pareto figure the other marker fill. Odd, so the fill flips.
  static constexpr std::size_t kPinnedStyle = 1001;
  [[nodiscard]] Color seriesColor(std::size_t k) const {
    return series[(k >= kPinnedStyle ? k - kPinnedStyle : k) % series.size()];
  }
  [[nodiscard]] Stroke seriesStroke(std::size_t k, double width = 1.8) const;
  /// The point marker of series style k: shapes in turn (circle, square, triangle, diamond), solid for
  /// the first round and hollow for the next; a pinned variant (kPinnedStyle) has its own style's shape
  /// with the other fill. With seriesStroke's colour and dash, no two of the first eight styles look
  /// alike, in colour or in grey.
  [[nodiscard]] Marker seriesMarker(std::size_t k) const;
  /// The theme with its text at `points` (1/72 inch) for tick labels and legends, the other sizes in
  /// the same proportion (axis titles, titles, annotations), never under 6 pt.
  [[nodiscard]] Theme withFontSize(double points) const;
  [[nodiscard]] const Fill& category(MemoryCategory c) const { return categories[static_cast<std::size_t>(c)]; }
  [[nodiscard]] Color role(NodeRole r) const { return roles[static_cast<std::size_t>(r)]; }
};

}  // namespace remat::viz
