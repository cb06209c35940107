// The memory layout's overlap check: the one translation unit that includes CGAL, so that its heavy
// headers stay out of everything else (docs/architecture.md section 10, Build).
#include <CGAL/box_intersection_d.h>

#include <algorithm>

#include "remat/viz/MemoryLayout.hpp"

namespace remat::viz {

std::vector<std::pair<std::size_t, std::size_t>> overlappingTensors(const MemoryLayout& layout) {
  // Doubles hold steps and byte offsets exactly below 2^53, far beyond any arena.
  using CgalBox = CGAL::Box_intersection_d::Box_with_info_d<double, 2, std::size_t>;
  std::vector<CgalBox> boxes;
  boxes.reserve(layout.tensors.size());
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const PlacedTensor& p = layout.tensors[i];
    // An empty range occupies no address; CGAL's sweep does not expect empty boxes.
    if (p.tensor.bytes.value <= 0) continue;
    double lo[2] = {static_cast<double>(p.tensor.first), static_cast<double>(p.offset.value)};
    double hi[2] = {static_cast<double>(p.tensor.last) + 1, static_cast<double>(p.offset.value + p.tensor.bytes.value)};
    boxes.emplace_back(lo, hi, i);
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  // Half-open boxes: a tensor freed after step s and one born at s + 1 touch but do not overlap, nor
  // do two tensors that meet at an address.
  CGAL::box_self_intersection_d(
      boxes.begin(), boxes.end(),
      [&pairs](const CgalBox& a, const CgalBox& b) {
        pairs.emplace_back(std::min(a.info(), b.info()), std::max(a.info(), b.info()));
      },
      std::ptrdiff_t{10}, CGAL::Box_intersection_d::HALF_OPEN);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace remat::viz
