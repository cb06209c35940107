#include "remat/solvers/PlanJson.hpp"

#include "remat/graph/LowerSets.hpp"
#include "remat/solvers/PlanJsonValue.hpp"

namespace remat::solvers {

using nlohmann::json;

namespace {
// Beyond this many node ids in all cumulative lower sets together, only the segments are written.
constexpr std::size_t kMaxLowerSetIds = 1'000'000;
}  // namespace

json metricsToJson(const PlanMetrics& m, bool hasPlan) {
  json j;
  j["model_peak_bytes"] = m.modelPeak ? json(m.modelPeak->value) : json(nullptr);
  j["model_overhead"] = m.modelOverhead ? json(m.modelOverhead->value) : json(nullptr);
  j["simulated_peak_bytes"] = hasPlan ? json(m.simulatedPeak.value) : json(nullptr);
  j["peak_step"] = hasPlan ? json(m.peakStep) : json(nullptr);
  j["overhead"] = hasPlan ? json(m.overhead.value) : json(nullptr);
  j["total_time"] = hasPlan ? json(m.totalTime.value) : json(nullptr);
  j["recomputed_nodes"] = hasPlan ? json(m.recomputedNodes) : json(nullptr);
  j["recomputations"] = hasPlan ? json(m.recomputations) : json(nullptr);
  j["solve_seconds"] = m.solveSeconds;
  return j;
}

json planToJson(const graph::ComputeGraph& g, const SolveResult& r) {
  json j;
  j["format"] = "remat-plan";
  j["version"] = 1;
  j["graph"] = g.name();
  j["solver"] = r.solver;
  j["strategy"] = std::string(strategyName(r.strategy));
  j["status"] = std::string(statusName(r.status));
  j["budget_bytes"] = r.budget ? json(r.budget->value) : json(nullptr);
  j["message"] = r.message;
  j["metrics"] = metricsToJson(r.metrics, r.plan.has_value());
  j["overhead_lower_bound"] = r.overheadLowerBound ? json(r.overheadLowerBound->value) : json(nullptr);
  auto names = [&g](const graph::NodeSet& s) {
    json list = json::array();
    s.forEach([&](graph::OpIndex i) { list.push_back(g.node(g.opNode(i)).name); });
    return list;
  };
  if (r.plan && r.plan->lowerSets) {
    // Segments V_i = L_i \ L_{i-1} take linear space; the cumulative lower sets take quadratic space,
    // so they are written only while that stays reasonable (readers rebuild them from the segments).
    json segments = json::array();
    graph::NodeSet kept = graph::emptySet(g);
    graph::NodeSet previous = graph::emptySet(g);
    std::size_t cumulative = 0;
    for (const auto& l : *r.plan->lowerSets) {
      segments.push_back(names(l - previous));
      kept |= graph::boundary(g, l);
      cumulative += l.count();
      previous = l;
    }
    if (cumulative <= kMaxLowerSetIds) {
      json sets = json::array();
      for (const auto& l : *r.plan->lowerSets) sets.push_back(names(l));
      j["lower_sets"] = std::move(sets);
    } else {
      j["lower_sets"] = nullptr;
    }
    j["segments"] = std::move(segments);
    j["checkpoints"] = names(kept);
    j["model"] = std::string(dpModelName(r.plan->model));
  } else {
    j["lower_sets"] = nullptr;
    j["segments"] = nullptr;
    j["checkpoints"] = nullptr;
  }
  if (r.plan) {
    json steps = json::array();
    for (const sim::Step& s : r.plan->schedule)
      steps.push_back(json::array({std::string(sim::stepKindName(s.kind)), g.node(s.node).name}));
    j["schedule"] = std::move(steps);
  } else {
    j["schedule"] = nullptr;
  }
  return j;
}

std::string writePlanJson(const graph::ComputeGraph& g, const SolveResult& result) {
  return planToJson(g, result).dump(1) + "\n";
}

Result<LoadedPlan> readPlanJson(std::string_view text, const std::string& fileName, const graph::ComputeGraph& g) {
  auto fail = [&](const std::string& path, const std::string& message, std::size_t line = 0) {
    return Result<LoadedPlan>::failure(Diagnostic{{fileName, line, path}, message});
  };
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann reports "... at line L, column C: ..."; keep its text, which carries the position.
    return fail("", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) return fail("", "expected a JSON object");
  if (!doc.contains("format") || doc["format"] != "remat-plan") return fail("/format", "expected \"remat-plan\"");
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<std::int64_t>() != 1)
    return fail("/version", "unsupported plan version (this Remat reads version 1)");
  LoadedPlan out;
  if (doc.contains("solver") && doc["solver"].is_string()) out.solver = doc["solver"].get<std::string>();
  if (doc.contains("graph") && doc["graph"].is_string()) out.graphName = doc["graph"].get<std::string>();

  auto lookup = [&](const json& v, const std::string& path) -> std::optional<graph::NodeId> {
    if (!v.is_string()) return std::nullopt;
    auto id = g.find(v.get<std::string>());
    (void)path;
    return id;
  };
  if (!doc.contains("schedule") || !doc["schedule"].is_array()) return fail("/schedule", "expected an array of steps");
  const json& steps = doc["schedule"];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string path = "/schedule/" + std::to_string(i);
    const json& s = steps[i];
    if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_string())
      return fail(path, "expected [\"fwd\"|\"bwd\"|\"free\"|\"free-grad\", node id]");
    auto kind = sim::stepKindFromName(s[0].get<std::string>());
    if (!kind) return fail(path + "/0", "unknown step kind '" + s[0].get<std::string>() + "'");
    auto id = lookup(s[1], path);
    if (!id) return fail(path + "/1", "node '" + s[1].get<std::string>() + "' is not in graph '" + g.name() + "'");
    out.plan.schedule.push_back({*kind, *id});
  }
  // Canonical plans: the segments (always written) or else the cumulative lower sets.
  const bool haveSegments = doc.contains("segments") && doc["segments"].is_array();
  const bool haveSets = doc.contains("lower_sets") && doc["lower_sets"].is_array();
  if (haveSegments || haveSets) {
    const std::string key = haveSegments ? "segments" : "lower_sets";
    const json& list = doc[key];
    std::vector<graph::NodeSet> sets;
    graph::NodeSet current = graph::emptySet(g);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "/" + key + "/" + std::to_string(i);
      if (!list[i].is_array()) return fail(path, "expected an array of node ids");
      graph::NodeSet s = haveSegments ? current : graph::emptySet(g);
      for (std::size_t k = 0; k < list[i].size(); ++k) {
        auto id = lookup(list[i][k], path);
        if (!id || !g.isOp(*id)) return fail(path + "/" + std::to_string(k), "not an operation node of this graph");
        s.insert(g.opIndex(*id));
      }
      if (!graph::isLowerSet(g, s)) return fail(path, "not a lower set (a member's predecessor is missing)");
      if (!sets.empty() && (!sets.back().subsetOf(s) || sets.back() == s))
        return fail(path, "does not strictly contain the previous lower set");
      if (sets.empty() && s.empty()) return fail(path, "the first lower set is empty");
      current = s;
      sets.push_back(std::move(s));
    }
    if (!sets.empty() && sets.back() != graph::fullSet(g)) return fail("/" + key, "the last lower set is not the whole graph");
    if (!sets.empty()) out.plan.lowerSets = std::move(sets);
    // The model whose lowering made the schedule; plans written before it was recorded used the paper's.
    out.plan.model = DpModelKind::Paper;
    if (doc.contains("model")) {
      const auto model = doc["model"].is_string() ? dpModelFromName(doc["model"].get<std::string>()) : std::nullopt;
      if (!model) return fail("/model", "expected \"simulator\" or \"paper\"");
      out.plan.model = *model;
    }
  }
  return out;
}

}  // namespace remat::solvers
