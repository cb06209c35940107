#include "remat/viz/MemoryLayout.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <string>

#include "remat/viz/Chart.hpp"
#include "remat/viz/NodeLabel.hpp"

namespace remat::viz {

using sim::TensorLifetime;
using Kind = TensorLifetime::Kind;

MemoryCategory memoryCategory(Kind kind) {
  switch (kind) {
    case Kind::Param: return MemoryCategory::Params;
    case Kind::Input: return MemoryCategory::Inputs;
    case Kind::Value: return MemoryCategory::Values;
    case Kind::Recomputed: return MemoryCategory::Recomputed;
    case Kind::Grad: return MemoryCategory::Grads;
    case Kind::ParamGrad: return MemoryCategory::ParamGrads;
    case Kind::Workspace: return MemoryCategory::Workspace;
  }
  return MemoryCategory::Values;
}

namespace {

bool isResident(Kind k) { return k == Kind::Param || k == Kind::Input; }

// An address range [begin, end).
struct Range {
  std::int64_t begin;
  std::int64_t end;
};

// A union of address ranges as disjoint, non-touching ranges in ascending order. Placement only ever
// adds, and tensors packed side by side merge into one range, so a set is usually far shorter than
// the list of its tensors.
class RangeSet {
 public:
  void insert(Range r) {
    // The first range that ends at or after r.begin and the first that starts after r.end: everything
    // between them touches r and merges into it.
    auto lo = std::lower_bound(m_ranges.begin(), m_ranges.end(), r.begin,
                               [](const Range& x, std::int64_t v) { return x.end < v; });
    auto hi = std::upper_bound(lo, m_ranges.end(), r.end, [](std::int64_t v, const Range& x) { return v < x.begin; });
    if (lo == hi) {
      m_ranges.insert(lo, r);
      return;
    }
    lo->begin = std::min(lo->begin, r.begin);
    lo->end = std::max((hi - 1)->end, r.end);
    m_ranges.erase(lo + 1, hi);
  }
  [[nodiscard]] const std::vector<Range>& ranges() const { return m_ranges; }

 private:
  std::vector<Range> m_ranges;
};

// The busy addresses of the placed tensors over any window of steps, without visiting the tensors one
// by one: a segment tree over the steps, where a tensor's lifetime is tiled by O(log steps) canonical
// nodes. Each node keeps the union of the tensors tiling it (`cover`) and of the tensors tiling it or
// any node below it (`below`). The tensors alive during a window are those tiling a canonical node of
// the window or something below it, plus those tiling an ancestor of one: O(log steps) sets to read.
class BusyIndex {
 public:
  explicit BusyIndex(std::size_t steps) {
    while (m_leaves < steps) m_leaves *= 2;
    m_cover.resize(2 * m_leaves);
    m_below.resize(2 * m_leaves);
    m_stamp.assign(2 * m_leaves, 0);
  }

  void insert(std::size_t first, std::size_t last, Range r) {
    ++m_clock;
    forCanonical(first, last, [&](std::size_t node) {
      m_cover[node].insert(r);
      for (std::size_t n = node; n >= 1 && m_stamp[n] != m_clock; n /= 2) {
        m_stamp[n] = m_clock;
        m_below[n].insert(r);
      }
    });
  }

  /// The busy ranges during steps first..last: sets, each ascending, that may overlap one another.
  void collect(std::size_t first, std::size_t last, std::vector<std::span<const Range>>& out) {
    ++m_clock;
    auto append = [&out](const RangeSet& set) {
      if (!set.ranges().empty()) out.emplace_back(set.ranges());
    };
    forCanonical(first, last, [&](std::size_t node) {
      append(m_below[node]);
      for (std::size_t n = node / 2; n >= 1 && m_stamp[n] != m_clock; n /= 2) {
        m_stamp[n] = m_clock;
        append(m_cover[n]);
      }
    });
  }

 private:
  // The canonical nodes of [first, last + 1) in the bottom-up segment tree.
  template <class F>
  void forCanonical(std::size_t first, std::size_t last, F&& f) const {
    for (std::size_t lo = first + m_leaves, hi = last + 1 + m_leaves; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) f(lo++);
      if (hi & 1) f(--hi);
    }
  }

  std::size_t m_leaves = 1;
  std::vector<RangeSet> m_cover;
  std::vector<RangeSet> m_below;
  std::vector<std::uint64_t> m_stamp;  // visited marks of the current update or query
  std::uint64_t m_clock = 0;
};

// How many leading ranges of an ascending set end at or below `reached`. Galloping: the answer is
// usually 1, and a binary search from the front would pay log n cache misses for it.
std::size_t skipBelow(std::span<const Range> set, std::int64_t reached) {
  std::size_t lo = 0;  // set[lo - 1] (if any) ends at or below `reached`
  std::size_t step = 1;
  while (lo + step <= set.size() && set[lo + step - 1].end <= reached) {
    lo += step;
    step *= 2;
  }
  const auto rest = set.subspan(lo, std::min(step, set.size() - lo));
  const auto next =
      std::upper_bound(rest.begin(), rest.end(), reached, [](std::int64_t v, const Range& x) { return v < x.end; });
  return lo + static_cast<std::size_t>(next - rest.begin());
}

// Where greedy by size puts a tensor of `bytes`: the lowest of the smallest gaps that fit it in the
// union of the busy sets above `floor`, else the top of that union. The sets are swept together through
// a heap of cursors ordered by where their next range begins, `reached` being the top of the union so
// far; a set skips its ranges that end below `reached` at once (ends ascend within a set).
std::int64_t bestFit(std::vector<std::span<const Range>>& sets, std::int64_t floor, std::int64_t bytes) {
  auto later = [](const std::span<const Range>& x, const std::span<const Range>& y) {
    return x.front().begin > y.front().begin;
  };
  std::make_heap(sets.begin(), sets.end(), later);
  std::int64_t reached = floor;
  std::int64_t best = -1;
  std::int64_t bestGap = std::numeric_limits<std::int64_t>::max();
  for (auto heapEnd = sets.end(); heapEnd != sets.begin();) {
    std::pop_heap(sets.begin(), heapEnd, later);
    std::span<const Range>& cursor = *(heapEnd - 1);
    const Range r = cursor.front();
    if (r.end > reached) {
      const std::int64_t gap = r.begin - reached;
      if (gap >= bytes && gap < bestGap) {
        best = reached;
        bestGap = gap;
        if (gap == bytes) return best;  // nothing fits tighter
      }
      reached = r.end;
    }
    cursor = cursor.subspan(skipBelow(cursor, reached));
    if (cursor.empty())
      --heapEnd;
    else
      std::push_heap(sets.begin(), heapEnd, later);
  }
  return best >= 0 ? best : reached;
}

Bytes peakLive(const std::vector<TensorLifetime>& lifetimes, std::size_t steps) {
  std::vector<std::int64_t> delta(steps + 1, 0);
  for (const TensorLifetime& t : lifetimes) {
    delta[t.first] += t.bytes.value;
    delta[t.last + 1] -= t.bytes.value;
  }
  std::int64_t live = 0;
  std::int64_t peak = 0;
  for (std::size_t s = 0; s < steps; ++s) peak = std::max(peak, live += delta[s]);
  return Bytes{peak};
}

}  // namespace

MemoryLayout planMemoryLayout(const std::vector<TensorLifetime>& lifetimes, std::size_t steps) {
  if (lifetimes.size() >= std::numeric_limits<std::uint32_t>::max())
    throw InvalidLifetime("too many tensors for a memory layout");
  for (std::size_t i = 0; i < lifetimes.size(); ++i) {
    const TensorLifetime& t = lifetimes[i];
    if (t.first > t.last || t.last >= steps || t.bytes.value < 0)
      throw InvalidLifetime("tensor " + std::to_string(i) + " lives over steps " + std::to_string(t.first) + ".." +
                            std::to_string(t.last) + " with " + std::to_string(t.bytes.value) +
                            " bytes, outside a schedule of " + std::to_string(steps) + " steps");
  }
  MemoryLayout layout;
  layout.steps = steps;
  layout.tensors.reserve(lifetimes.size());
  for (const TensorLifetime& t : lifetimes) layout.tensors.push_back({t, Bytes{0}});

  // Parameters, then inputs, as two contiguous blocks at the bottom: the figure draws each as one.
  std::int64_t top = 0;
  for (Kind kind : {Kind::Param, Kind::Input})
    for (PlacedTensor& p : layout.tensors)
      if (p.tensor.kind == kind) {
        p.offset = Bytes{top};
        top += p.tensor.bytes.value;
      }
  const std::int64_t residentTop = top;

  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < lifetimes.size(); ++i)
    if (!isResident(lifetimes[i].kind) && lifetimes[i].bytes.value > 0) order.push_back(static_cast<std::uint32_t>(i));
  // Largest first; among equals the longer-lived first, as they are the harder to fit, then by
  // position, so that the layout does not depend on the sort's whims.
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const TensorLifetime& x = lifetimes[a];
    const TensorLifetime& y = lifetimes[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.last - x.first != y.last - y.first) return x.last - x.first > y.last - y.first;
    return a < b;
  });

  BusyIndex busy(steps);
  std::vector<std::span<const Range>> sets;
  for (std::uint32_t id : order) {
    const TensorLifetime& t = lifetimes[id];
    sets.clear();
    busy.collect(t.first, t.last, sets);
    const std::int64_t offset = bestFit(sets, residentTop, t.bytes.value);
    layout.tensors[id].offset = Bytes{offset};
    busy.insert(t.first, t.last, {offset, offset + t.bytes.value});
    top = std::max(top, offset + t.bytes.value);
  }

  layout.arenaBytes = Bytes{top};
  layout.peakLiveBytes = peakLive(lifetimes, steps);
  layout.fragmentation =
      top > 0 ? 1.0 - static_cast<double>(layout.peakLiveBytes.value) / static_cast<double>(top) : 0.0;
  return layout;
}

namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100);
  return buf;
}

}  // namespace

Scene memoryLayoutScene(const MemoryLayout& layout, const graph::ComputeGraph& g, const FigureStyle& style) {
  const Theme& th = style.theme;
  const TextMetrics& tm = style.text();
  Scene scene = makeScene(style);

  std::array<bool, kMemoryCategories> present{};
  for (const PlacedTensor& p : layout.tensors)
    if (p.tensor.bytes.value > 0) present[static_cast<std::size_t>(memoryCategory(p.tensor.kind))] = true;
  std::vector<LegendEntry> legend;
  for (std::size_t c = 0; c < kMemoryCategories; ++c)
    if (present[c]) {
      const auto category = static_cast<MemoryCategory>(c);
      legend.push_back({std::string(categoryName(category)), LegendEntry::Kind::Swatch, th.category(category), {}});
    }
  // The numbers go with the peak line's legend entry: above the plot, so they never hide a tensor.
  const Stroke peakStroke{th.peak, 1.4, Dash::Dashed};
  legend.push_back({"peak live " + formatBytes(static_cast<double>(layout.peakLiveBytes.value)) + " (arena " +
                        formatBytes(static_cast<double>(layout.arenaBytes.value)) + ", fragmentation " +
                        percent(layout.fragmentation) + ")",
                    LegendEntry::Kind::Line,
                    {},
                    peakStroke});

  const double steps = static_cast<double>(std::max<std::size_t>(layout.steps, 1));
  const double arena = static_cast<double>(std::max<std::int64_t>(layout.arenaBytes.value, 1));
  Chart chart(scene, style, Axis{0, steps, "step", AxisFormat::Integer}, Axis{0, arena, "address", AxisFormat::Bytes},
              std::move(legend));
  chart.background();
  chart.pushClip();

  auto rect = [&](double x0, double x1, double lo, double hi, const Fill& fill, bool outline) {
    const double top = chart.y(hi);
    RectItem r{chart.x(x0), top, chart.x(x1) - chart.x(x0), chart.y(lo) - top, fill, std::nullopt};
    // An outline parts neighbours of one colour, but on a sliver it would hide the fill.
    constexpr double kOutlineMin = 3;
    if (outline && r.w >= kOutlineMin && r.h >= kOutlineMin) r.stroke = Stroke{th.background, 0.5};
    scene.add(r);
    return r;
  };

  // The resident blocks, one rectangle per kind: thousands of weights need not be thousands of items.
  for (Kind kind : {Kind::Param, Kind::Input}) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = 0;
    std::size_t first = layout.steps;
    std::size_t last = 0;
    for (const PlacedTensor& p : layout.tensors)
      if (p.tensor.kind == kind && p.tensor.bytes.value > 0) {
        lo = std::min(lo, p.offset.value);
        hi = std::max(hi, p.offset.value + p.tensor.bytes.value);
        first = std::min(first, p.tensor.first);
        last = std::max(last, p.tensor.last);
      }
    if (hi > lo)
      rect(static_cast<double>(first), static_cast<double>(last + 1), static_cast<double>(lo), static_cast<double>(hi),
           th.category(memoryCategory(kind)), true);
  }

  const double labelSize = th.smallFontSize;
  const double labelHeight = tm.height(labelSize);
  constexpr std::size_t kMaxLabels = 200;  // beyond this the figure is too dense for names anyway
  std::vector<TextItem> labels;
  for (const PlacedTensor& p : layout.tensors) {
    if (isResident(p.tensor.kind) || p.tensor.bytes.value <= 0) continue;
    const Fill& fill = th.category(memoryCategory(p.tensor.kind));
    const RectItem r = rect(static_cast<double>(p.tensor.first), static_cast<double>(p.tensor.last + 1),
                            static_cast<double>(p.offset.value),
                            static_cast<double>(p.offset.value + p.tensor.bytes.value), fill, true);
    if (labels.size() < kMaxLabels && p.tensor.node.valid() && p.tensor.node.value < g.size() &&
        r.h >= labelHeight + 2) {
      const std::string name = nodeLabel(g.node(p.tensor.node).name);
      if (tm.width(name, labelSize) + 6 <= r.w)
        labels.push_back(TextItem{{r.x + r.w / 2, r.y + r.h / 2},
                                  name,
                                  labelSize,
                                  textColorOn(fill.color, Color{0, 0, 0}),
                                  Anchor::Middle,
                                  Baseline::Middle});
    }
  }
  // Names after every rectangle, so that no later neighbour paints over one.
  for (TextItem& t : labels) scene.add(std::move(t));
  chart.popClip();

  // The peak line outside the clip: at the top of a tight arena half of it would be cut away.
  const double peakY = chart.y(static_cast<double>(layout.peakLiveBytes.value));
  scene.add(PolylineItem{{{chart.plot().x, peakY}, {chart.plot().right(), peakY}}, peakStroke});
  chart.foreground();
  return scene;
}

}  // namespace remat::viz
