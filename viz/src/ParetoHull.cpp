// The only translation unit of viz that includes CGAL's convex hull (heavy headers stay here).
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/convex_hull_2.h>

#include <algorithm>
#include <iterator>

#include "remat/viz/Pareto.hpp"

namespace remat::viz {

std::vector<TradeOffPoint> lowerConvexHull(const std::vector<TradeOffPoint>& points) {
  using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
  std::vector<Kernel::Point_2> in;
  in.reserve(points.size());
  for (const TradeOffPoint& p : points) in.emplace_back(p.memory, p.overhead);
  std::vector<Kernel::Point_2> hull;
  if (in.size() <= 1) {
    hull = in;
  } else {
    CGAL::lower_hull_points_2(in.begin(), in.end(), std::back_inserter(hull));
  }
  // CGAL gives the lower hull from the leftmost point counterclockwise, ending before the rightmost;
  // the rightmost lowest point closes it. With the overhead falling as memory grows, the hull usually
  // ends at the vanilla point.
  std::vector<TradeOffPoint> out;
  for (const auto& p : hull) out.push_back({p.x(), p.y()});
  if (in.size() > 1) {
    const auto rightmost = *std::max_element(in.begin(), in.end(), [](const auto& a, const auto& b) {
      return a.x() < b.x() || (a.x() == b.x() && a.y() > b.y());
    });
    if (out.empty() || out.back() != TradeOffPoint{rightmost.x(), rightmost.y()})
      out.push_back({rightmost.x(), rightmost.y()});
  }
  return out;
}

}  // namespace remat::viz
