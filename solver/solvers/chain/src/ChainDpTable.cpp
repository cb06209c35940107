#include "remat/solvers/ChainDpTable.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "remat/graph/Units.hpp"

namespace remat::solvers {
namespace {

// Unreachable entries. Every sum the DP forms reads only entries at or above an interval's least
// memory, which are finite, so this is never added to anything.
constexpr std::int64_t kInfinity = std::numeric_limits<std::int64_t>::max();
// Finite entries saturate at kSaturated: an entry's true value can pass 2^63 on graphs near the
// readers' cap. Sums of two entries and an advance (at most 2^60) stay below 2^62 + 2^60 and cannot
// wrap; the plan chosen is simulated anyway.
constexpr std::int64_t kSaturated = ChainDpTable::kSaturated;
static_assert(2 * kSaturated + kMaxGraphTotal < kInfinity);

// row[m] = min(row[m], advance + right[m] + left[m], kSaturated): the DP's inner loop, over distinct
// intervals' rows (never aliased), written so that the compiler vectorises it.
void relaxRow(std::int64_t* __restrict row, const std::int64_t* __restrict right, const std::int64_t* __restrict left,
              std::int64_t advance, std::size_t count) {
  for (std::size_t m = 0; m < count; ++m) {
    std::int64_t candidate = advance + right[m] + left[m];
    candidate = candidate < kSaturated ? candidate : kSaturated;
    row[m] = candidate < row[m] ? candidate : row[m];
  }
}

}  // namespace

ChainDpTable::ChainDpTable(const ChainModel& model, std::int64_t maxMemory, const Hooks& hooks)
    : m_model(model), m_maxMemory(std::max<std::int64_t>(maxMemory, 0)) {
  const std::size_t length = m_model.length();
  m_width = static_cast<std::size_t>(m_maxMemory) + 1;
  const std::size_t intervals = length * (length + 1) / 2;
  m_values.assign(intervals * m_width, kInfinity);
  m_least.assign(intervals, std::int64_t(m_width));
  const auto width = std::int64_t(m_width);

  // prefix[j] = uf_1 + ... + uf_j
  std::vector<std::int64_t> prefix(length + 1, 0);
  for (std::size_t j = 1; j <= length; ++j) prefix[j] = prefix[j - 1] + m_model.stage(j).forwardTime;

  for (std::size_t d = 0; d < length; ++d) {
    if (hooks.progress) hooks.progress(double(d) / double(length));
    for (std::size_t s = 1; s + d <= length; ++s) {
      if (hooks.interrupted && hooks.interrupted()) return;
      const std::size_t t = s + d;
      const ChainStage& first = m_model.stage(s);
      const std::int64_t heldGrad = m_model.stage(t).outputGrad;
      std::int64_t* row = m_values.data() + index(s, t) * m_width;

      // F_all^s, the rest of the interval, then B^s.
      const std::int64_t both = first.forwardTime + first.backwardTime;
      const std::int64_t chainNeed = std::max(heldGrad + first.forwardAllPeak, first.backwardPeak);
      if (s == t) {
        for (std::int64_t m = std::max<std::int64_t>(chainNeed, 0); m < width; ++m) row[m] = std::min(both, kSaturated);
      } else {
        const std::int64_t* rest = m_values.data() + index(s + 1, t) * m_width;
        const std::int64_t shift = first.tape;
        const std::int64_t lo = std::max({chainNeed, m_least[index(s + 1, t)] + shift, std::int64_t{0}});
        for (std::int64_t m = lo; m < width; ++m) row[m] = std::min(both + rest[m - shift], kSaturated);
      }

      // F_ck^s, F_∅ up to stage s' - 1, keep a^{s'-1}; solve s'..t, drop a^{s'-1}, solve s..s'-1.
      std::int64_t forwardNeed = heldGrad + first.forwardPeak;
      for (std::size_t split = s + 1; split <= t; ++split) {
        if (split - 1 > s)
          forwardNeed =
              std::max(forwardNeed, heldGrad + m_model.stage(split - 2).output + m_model.stage(split - 1).forwardPeak);
        const std::int64_t advance = prefix[split - 1] - prefix[s - 1];
        const std::int64_t kept = m_model.stage(split - 1).output;
        const std::int64_t lo =
            std::max({forwardNeed, m_least[index(split, t)] + kept, m_least[index(s, split - 1)], std::int64_t{0}});
        if (lo >= width) continue;
        relaxRow(row + lo, m_values.data() + index(split, t) * m_width + (lo - kept),
                 m_values.data() + index(s, split - 1) * m_width + lo, advance, std::size_t(width - lo));
      }

      std::int64_t least = 0;
      while (least < width && row[least] == kInfinity) ++least;
      m_least[index(s, t)] = least;
    }
  }
  if (hooks.progress) hooks.progress(1.0);
  m_complete = true;
}

std::size_t ChainDpTable::index(std::size_t s, std::size_t t) const {
  // Intervals by first stage: s = 1 holds t = 1..L, s = 2 holds t = 2..L, ...
  const std::size_t length = m_model.length();
  const std::size_t before = (s - 1) * length - (s - 1) * (s - 2) / 2;
  return before + (t - s);
}

std::int64_t ChainDpTable::at(std::size_t s, std::size_t t, std::int64_t m) const {
  return m_values[index(s, t) * m_width + static_cast<std::size_t>(m)];
}

std::optional<std::int64_t> ChainDpTable::cost(std::size_t s, std::size_t t, std::int64_t memory) const {
  if (!m_complete || s < 1 || t > m_model.length() || s > t || memory < 0) return std::nullopt;
  const std::int64_t v = at(s, t, std::min(memory, m_maxMemory));
  if (v == kInfinity) return std::nullopt;
  return v;
}

std::optional<std::int64_t> ChainDpTable::cost(std::int64_t memory) const {
  if (m_model.length() == 0) return std::int64_t{0};
  return cost(1, m_model.length(), memory);
}

std::optional<std::int64_t> ChainDpTable::leastMemory() const {
  if (m_model.length() == 0) return std::int64_t{0};
  if (!m_complete) return std::nullopt;
  const std::int64_t least = m_least[index(1, m_model.length())];
  if (least >= std::int64_t(m_width)) return std::nullopt;
  return least;
}

std::vector<ChainOp> ChainDpTable::ops(std::int64_t memory) const {
  std::vector<ChainOp> out;
  if (m_model.length() == 0) return out;
  if (!cost(memory)) throw std::logic_error("chain DP: no schedule within the requested memory");
  build(1, m_model.length(), std::min(memory, m_maxMemory), out);
  return out;
}

// Re-derives the argmin of C(s, t, m) in the order the fill preferred it and emits its operations.
void ChainDpTable::build(std::size_t s, std::size_t t, std::int64_t m, std::vector<ChainOp>& out) const {
  const std::int64_t value = at(s, t, m);
  const ChainStage& first = m_model.stage(s);
  const std::int64_t heldGrad = m_model.stage(t).outputGrad;
  const auto stage = [](std::size_t i) { return static_cast<std::uint32_t>(i); };

  const std::int64_t both = first.forwardTime + first.backwardTime;
  if (m >= std::max(heldGrad + first.forwardAllPeak, first.backwardPeak)) {
    const bool fits = s == t ? value == std::min(both, kSaturated)
                             : m - first.tape >= m_least[index(s + 1, t)] &&
                                   value == std::min(both + at(s + 1, t, m - first.tape), kSaturated);
    if (fits) {
      out.push_back({ChainOpKind::ForwardAll, stage(s)});
      if (s < t) build(s + 1, t, m - first.tape, out);
      out.push_back({ChainOpKind::Backward, stage(s)});
      return;
    }
  }
  std::int64_t forwardNeed = heldGrad + first.forwardPeak;
  std::int64_t advance = 0;
  for (std::size_t split = s + 1; split <= t; ++split) {
    if (split - 1 > s)
      forwardNeed =
          std::max(forwardNeed, heldGrad + m_model.stage(split - 2).output + m_model.stage(split - 1).forwardPeak);
    advance += m_model.stage(split - 1).forwardTime;
    const std::int64_t kept = m_model.stage(split - 1).output;
    if (m < forwardNeed || m - kept < m_least[index(split, t)] || m < m_least[index(s, split - 1)]) continue;
    if (value != std::min(advance + at(split, t, m - kept) + at(s, split - 1, m), kSaturated)) continue;
    out.push_back({ChainOpKind::ForwardCheck, stage(s)});
    for (std::size_t j = s + 1; j < split; ++j) out.push_back({ChainOpKind::ForwardDrop, stage(j)});
    build(split, t, m - kept, out);
    out.push_back({ChainOpKind::Discard, stage(split - 1)});
    build(s, split - 1, m, out);
    return;
  }
  throw std::logic_error("chain DP: the table has no argmin for stages " + std::to_string(s) + ".." +
                         std::to_string(t));
}

}  // namespace remat::solvers
