#pragma once

// The Boost.Graph form of a ComputeGraph's edges. Include only where a Boost algorithm is used: the
// adjacency_list headers are heavy, so ComputeGraph.hpp keeps them out of every other translation unit.

#include <boost/graph/adjacency_list.hpp>

#include "remat/graph/ComputeGraph.hpp"

namespace remat::graph::detail {

/// Vertex i is NodeId i; an edge u -> v says v consumes u (parallel edges merged).
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

struct Topology {
  BoostGraph graph;
};

}  // namespace remat::graph::detail
