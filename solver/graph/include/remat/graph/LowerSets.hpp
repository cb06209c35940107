#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/NodeSet.hpp"

namespace remat::graph {

/// Lower-set utilities over the operation nodes V (Kusumoto et al. 2019, Section 3). A lower set L
/// contains every operation predecessor of each of its members; inputs and parameters are not in V.

/// The empty set and the full set V.
[[nodiscard]] NodeSet emptySet(const ComputeGraph& g);
[[nodiscard]] NodeSet fullSet(const ComputeGraph& g);

/// True when every operation predecessor of every member is a member.
[[nodiscard]] bool isLowerSet(const ComputeGraph& g, const NodeSet& s);

/// The smallest lower set containing `s`: s plus all of its operation ancestors.
[[nodiscard]] NodeSet ancestorClosure(const ComputeGraph& g, const NodeSet& s);
/// The ancestors of v plus v itself (the approximate DP's lower sets).
[[nodiscard]] NodeSet ancestorClosure(const ComputeGraph& g, OpIndex v);

/// ∂(L): the members of L with a successor outside L.
[[nodiscard]] NodeSet boundary(const ComputeGraph& g, const NodeSet& l);
/// δ+(S): the operation successors of members of S (may intersect S).
[[nodiscard]] NodeSet successorsOf(const ComputeGraph& g, const NodeSet& s);
/// δ−(S): the operation predecessors of members of S (may intersect S).
[[nodiscard]] NodeSet predecessorsOf(const ComputeGraph& g, const NodeSet& s);

/// Sum of M_v and of T_v over a set.
[[nodiscard]] Bytes bytesOf(const ComputeGraph& g, const NodeSet& s);
[[nodiscard]] Ticks timeOf(const ComputeGraph& g, const NodeSet& s);

/// Enumerates every lower set (including ∅ and V) exactly once, without a hash table: a lower set's
/// parent is itself minus its maximal element of highest topological index, and the search only
/// extends a set by an element that becomes that highest maximal element. Stops early and returns
/// nullopt once more than `limit` sets were found, or when `visit` returns false. Returns the count.
[[nodiscard]] std::optional<std::uint64_t> enumerateLowerSets(const ComputeGraph& g, std::uint64_t limit,
                                                              const std::function<bool(const NodeSet&)>& visit);

/// The number of lower sets, or nullopt when it exceeds `limit`.
[[nodiscard]] std::optional<std::uint64_t> countLowerSets(const ComputeGraph& g, std::uint64_t limit);

}  // namespace remat::graph
