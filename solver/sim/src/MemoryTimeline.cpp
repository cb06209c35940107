#include "remat/sim/MemoryTimeline.hpp"

namespace remat::sim {

Bytes MemoryTimeline::peak() const {
  Bytes best{0};
  for (const auto& p : m_points) best = std::max(best, p.during.total());
  return best;
}

std::size_t MemoryTimeline::peakStep() const {
  Bytes best{-1};
  std::size_t at = 0;
  for (std::size_t s = 0; s < m_points.size(); ++s)
    if (m_points[s].during.total() > best) {
      best = m_points[s].during.total();
      at = s;
    }
  return at;
}

}  // namespace remat::sim
