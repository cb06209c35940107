#include "remat/solvers/ChenCuts.hpp"

#include <algorithm>
#include <numeric>

#include "remat/graph/LowerSets.hpp"

namespace remat::solvers {

std::vector<graph::NodeSet> chenCutChain(const graph::ComputeGraph& g) {
  return *chenCutChain(g, [] { return false; });
}

std::optional<std::vector<graph::NodeSet>> chenCutChain(const graph::ComputeGraph& g,
                                                        const std::function<bool()>& stopped) {
  const graph::NodeSet all = graph::fullSet(g);
  std::vector<graph::NodeSet> cuts;
  for (std::uint32_t v = 0; v < g.opCount(); ++v) {
    if (stopped()) return std::nullopt;
    graph::NodeSet closure = graph::ancestorClosure(g, graph::OpIndex{v});
    if (closure == all) continue;
    const graph::NodeSet border = graph::boundary(g, closure);
    if (border.count() == 1 && border.contains(graph::OpIndex{v})) cuts.push_back(std::move(closure));
  }
  if (cuts.empty()) return cuts;

  // Longest chain under inclusion: sets sorted by size, then a longest-path DP over the inclusion order.
  std::vector<std::size_t> bySize(cuts.size());
  std::iota(bySize.begin(), bySize.end(), 0);
  std::vector<std::size_t> sizes(cuts.size());
  for (std::size_t i = 0; i < cuts.size(); ++i) sizes[i] = cuts[i].count();
  std::stable_sort(bySize.begin(), bySize.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  std::vector<std::size_t> length(cuts.size(), 1);
  std::vector<std::size_t> parent(cuts.size(), SIZE_MAX);
  std::size_t best = 0;
  for (std::size_t j = 0; j < bySize.size(); ++j) {
    if (stopped()) return std::nullopt;
    for (std::size_t i = 0; i < j; ++i) {
      if (sizes[bySize[i]] == sizes[bySize[j]]) break;
      if (length[i] + 1 > length[j] && cuts[bySize[i]].subsetOf(cuts[bySize[j]])) {
        length[j] = length[i] + 1;
        parent[j] = i;
      }
    }
    if (length[j] > length[best]) best = j;
  }
  std::vector<graph::NodeSet> chain;
  for (std::size_t j = best; j != SIZE_MAX; j = parent[j]) chain.push_back(cuts[bySize[j]]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace remat::solvers
