#include "remat/io/PlanJson.hpp"

#include <exception>
#include <utility>

#include "remat/graph/LowerSets.hpp"
#include "remat/io/PlanJsonValue.hpp"
#include "remat/io/detail/JsonSupport.hpp"
#include "remat/sim/Simulator.hpp"

namespace remat::io {

using nlohmann::json;
using solvers::callStatusName;
using solvers::dpModelFromName;
using solvers::DpModelKind;
using solvers::dpModelName;
using solvers::Pins;
using solvers::pinsJson;
using solvers::Plan;
using solvers::PlanMetrics;
using solvers::SolveResult;
using solvers::statusName;
using solvers::strategyName;

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
  j["call"] = std::string(callStatusName(r.call));
  j["status"] = std::string(statusName(r.status));
  j["budget_bytes"] = r.budget ? json(r.budget->value) : json(nullptr);
  j["message"] = r.message;
  j["metrics"] = metricsToJson(r.metrics, r.plan.has_value());
  j["overhead_lower_bound"] = r.overheadLowerBound ? json(r.overheadLowerBound->value) : json(nullptr);
  j["pins"] = r.pins.empty() ? json(nullptr) : json::parse(pinsJson(g, r.pins));
  // The pins the solver did not honour ("keep", "recompute", "keep and recompute"): such a plan does not
  // win a comparison.
  j["pins_ignored"] = r.pinsIgnored.empty() ? json(nullptr) : json(r.pinsIgnored);
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

namespace {

namespace jd = detail;

// The reader's state for one document: the graph, the collected errors, and whether the plan names
// another graph (then a node it lacks means "wrong graph", said once at /graph).
class PlanReader {
 public:
  PlanReader(const graph::ComputeGraph& g, const std::string& fileName) : m_graph(g), m_diag(fileName) {}

  Result<LoadedPlan> read(std::string_view text) {
    auto doc = jd::parseJson(jd::stripBom(text), m_diag);
    if (!doc) return m_diag.failure<LoadedPlan>();
    if (!doc->is_object())
      return fatal("", "expected a JSON object (a plan from 'remat solve -o'), got " + jd::describe(*doc));
    const jd::Json* format = jd::member(*doc, "format");
    if (!format || *format != "remat-plan")
      return fatal("/format",
                   "expected \"remat-plan\", got " + (format ? jd::describe(*format) : std::string("nothing")));
    const jd::Json* version = jd::member(*doc, "version");
    if (!version) return fatal("/version", "missing (this Remat reads version 1)");
    const auto v = jd::readInt(*version, "/version", m_diag, true);
    if (!v) return m_diag.failure<LoadedPlan>();
    if (*v != 1)
      return fatal("/version", "unsupported plan version " + std::to_string(*v) + " (this Remat reads version 1)");

    readString(*doc, "solver", m_out.solver);
    readString(*doc, "graph", m_out.graphName);
    m_otherGraph = !m_out.graphName.empty() && m_out.graphName != m_graph.name();
    if (const jd::Json* budget = jd::member(*doc, "budget_bytes"); budget && !budget->is_null()) {
      if (auto b = jd::readInt(*budget, "/budget_bytes", m_diag, false)) {
        if (*b > 0)
          m_out.budget = Bytes{*b};
        else
          m_diag.errorAtPath("/budget_bytes",
                             "the budget must be a positive number of bytes, got " + std::to_string(*b));
      }
    }
    if (!readSchedule(*doc) || !readLowerSets(*doc) || m_diag.hasErrors()) return m_diag.failure<LoadedPlan>();
    readPins(*doc);
    if (m_diag.hasErrors()) return m_diag.failure<LoadedPlan>();
    if (!simulate()) return m_diag.failure<LoadedPlan>();
    return Result<LoadedPlan>(std::move(m_out), m_diag.takeWarnings());
  }

 private:
  Result<LoadedPlan> fatal(const std::string& path, const std::string& message) {
    m_diag.errorAtPath(path, message);
    return m_diag.failure<LoadedPlan>();
  }

  void readString(const jd::Json& doc, const std::string& key, std::string& into) {
    const jd::Json* v = jd::member(doc, key);
    if (!v || v->is_null()) return;
    if (!v->is_string())
      m_diag.errorAtPath("/" + key, "expected a string, got " + jd::describe(*v));
    else
      into = v->get<std::string>();
  }

  // The node a plan names, or nullopt with the error recorded. Once the plan has shown it is for
  // another graph, its other unknown names add nothing.
  std::optional<graph::NodeId> node(const jd::Json& v, const std::string& path) {
    if (!v.is_string()) {
      m_diag.errorAtPath(path, "expected a node id (a string), got " + jd::describe(v));
      return std::nullopt;
    }
    const std::string& name = v.get_ref<const std::string&>();
    if (auto id = m_graph.find(name)) return id;
    if (m_otherGraph) {
      if (!m_reportedOtherGraph)
        m_diag.errorAtPath("/graph", "the plan is for graph '" + jd::printable(m_out.graphName) + "', not for '" +
                                         jd::printable(m_graph.name()) + "' (it names node '" + jd::printable(name) +
                                         "' at " + path + ", which this graph does not have)");
      m_reportedOtherGraph = true;
    } else {
      m_diag.errorAtPath(path,
                         "node '" + jd::printable(name) + "' is not in graph '" + jd::printable(m_graph.name()) + "'");
    }
    return std::nullopt;
  }

  // `pins`: null or absent, or {"keep": [names], "recompute": [names]} of the graph's operations.
  void readPins(const jd::Json& doc) {
    const jd::Json* pins = jd::member(doc, "pins");
    if (!pins || pins->is_null()) return;
    if (!pins->is_object()) {
      m_diag.errorAtPath("/pins",
                         "expected null or {\"keep\": [names], \"recompute\": [names]}, got " + jd::describe(*pins));
      return;
    }
    for (const char* key : {"keep", "recompute"}) {
      const jd::Json* list = jd::member(*pins, key);
      if (!list) continue;
      const std::string path = jd::childPath("/pins", key);
      if (!list->is_array()) {
        m_diag.errorAtPath(path, "expected an array of node ids, got " + jd::describe(*list));
        continue;
      }
      auto& into = std::string_view(key) == "keep" ? m_out.pins.keep : m_out.pins.recompute;
      for (std::size_t k = 0; k < list->size(); ++k) {
        const std::string at = jd::childPath(path, k);
        const auto id = node((*list)[k], at);
        if (!id) continue;
        if (!m_graph.isOp(*id))
          m_diag.errorAtPath(
              at, "'" + jd::printable(m_graph.node(*id).name) + "' is an input or a parameter, which cannot be pinned");
        else
          into.push_back(m_graph.opIndex(*id));
      }
    }
  }

  bool readSchedule(const jd::Json& doc) {
    const jd::Json* steps = jd::member(doc, "schedule");
    if (!steps || !steps->is_array()) {
      m_diag.errorAtPath("/schedule",
                         "expected an array of steps, got " + (steps ? jd::describe(*steps) : std::string("nothing")));
      return false;
    }
    m_out.plan.schedule.reserve(steps->size());
    for (std::size_t i = 0; i < steps->size() && !m_diag.full() && !m_reportedOtherGraph; ++i) {
      const std::string path = jd::childPath("/schedule", i);
      const jd::Json& s = (*steps)[i];
      if (!s.is_array() || s.size() != 2) {
        m_diag.errorAtPath(path, "expected [\"fwd\"|\"bwd\"|\"free\"|\"free-grad\", node id], got " + jd::describe(s));
        continue;
      }
      std::optional<sim::StepKind> kind;
      if (s[0].is_string()) kind = sim::stepKindFromName(s[0].get_ref<const std::string&>());
      if (!kind)
        m_diag.errorAtPath(path + "/0",
                           s[0].is_string()
                               ? "unknown step kind '" + jd::printable(s[0].get_ref<const std::string&>()) +
                                     "' (fwd, bwd, free or free-grad)"
                               : "expected a step kind (fwd, bwd, free or free-grad), got " + jd::describe(s[0]));
      const auto id = node(s[1], path + "/1");
      if (kind && id) m_out.plan.schedule.push_back({*kind, *id});
    }
    return !m_diag.hasErrors();
  }

  // Canonical plans: the segments (always written) or else the cumulative lower sets.
  bool readLowerSets(const jd::Json& doc) {
    const jd::Json* segments = jd::member(doc, "segments");
    const jd::Json* cumulative = jd::member(doc, "lower_sets");
    for (const auto& [key, v] : {std::pair{"segments", segments}, std::pair{"lower_sets", cumulative}})
      if (v && !v->is_null() && !v->is_array()) {
        m_diag.errorAtPath(std::string("/") + key,
                           "expected an array of arrays of node ids or null, got " + jd::describe(*v));
        return false;
      }
    const bool haveSegments = segments && segments->is_array();
    if (!haveSegments && !(cumulative && cumulative->is_array())) return true;
    const std::string key = haveSegments ? "/segments" : "/lower_sets";
    const jd::Json& list = haveSegments ? *segments : *cumulative;
    const graph::ComputeGraph& g = m_graph;
    std::vector<graph::NodeSet> sets;
    graph::NodeSet current = graph::emptySet(g);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = jd::childPath(key, i);
      if (!list[i].is_array()) {
        m_diag.errorAtPath(path, "expected an array of node ids, got " + jd::describe(list[i]));
        return false;
      }
      graph::NodeSet s = haveSegments ? current : graph::emptySet(g);
      for (std::size_t k = 0; k < list[i].size(); ++k) {
        const std::string at = jd::childPath(path, k);
        const auto id = node(list[i][k], at);
        if (!id) return false;
        if (!g.isOp(*id)) {
          m_diag.errorAtPath(at, "'" + jd::printable(g.node(*id).name) + "' is not an operation node");
          return false;
        }
        s.insert(g.opIndex(*id));
      }
      std::string problem;
      if (!graph::isLowerSet(g, s))
        problem = "not a lower set (a member's predecessor is missing)";
      else if (!sets.empty() && (!sets.back().subsetOf(s) || sets.back() == s))
        problem = "does not strictly contain the previous lower set";
      else if (sets.empty() && s.empty())
        problem = "the first lower set is empty";
      if (!problem.empty()) {
        m_diag.errorAtPath(path, problem);
        return false;
      }
      current = s;
      sets.push_back(std::move(s));
    }
    if (!sets.empty() && sets.back() != graph::fullSet(g)) {
      m_diag.errorAtPath(key, "the last lower set is not the whole graph");
      return false;
    }
    if (!sets.empty()) m_out.plan.lowerSets = std::move(sets);
    // The model whose lowering made the schedule; plans written before it was recorded used the paper's.
    m_out.plan.model = DpModelKind::Paper;
    if (const jd::Json* model = jd::member(doc, "model")) {
      const auto kind = model->is_string() ? dpModelFromName(model->get_ref<const std::string&>()) : std::nullopt;
      if (!kind) {
        m_diag.errorAtPath("/model", "expected \"simulator\" or \"paper\", got " + jd::describe(*model));
        return false;
      }
      m_out.plan.model = *kind;
    }
    return true;
  }

  // Every command uses a plan through the simulator; a schedule it rejects is refused here, at its step.
  bool simulate() {
    const auto& schedule = m_out.plan.schedule;
    try {
      const sim::SimulationResult r =
          sim::Simulator(m_graph, {.liveness = true, .requireComplete = true}).run(schedule);
      if (!r.error) return true;
      // Said first: it is the likely reason, and what to fix.
      if (m_otherGraph)
        m_diag.errorAtPath("/graph", "the plan is for graph '" + jd::printable(m_out.graphName) + "', not for '" +
                                         jd::printable(m_graph.name()) + "'");
      // The simulator's message names the step ("step 3 (fwd b): ...").
      if (r.error->step < schedule.size())
        m_diag.errorAtPath(jd::childPath("/schedule", r.error->step), "the simulator rejects " + r.error->message);
      else
        m_diag.errorAtPath("/schedule", "the simulator rejects the schedule: " + r.error->message);
    } catch (const std::exception& e) {
      m_diag.errorAtPath("/schedule", std::string("the schedule cannot be simulated: ") + e.what());
    }
    return false;
  }

  const graph::ComputeGraph& m_graph;
  jd::Diagnostics m_diag;
  LoadedPlan m_out;
  bool m_otherGraph = false;
  bool m_reportedOtherGraph = false;
};

}  // namespace

Result<LoadedPlan> readPlanJson(std::string_view text, const std::string& fileName, const graph::ComputeGraph& g) {
  try {
    return PlanReader(g, fileName).read(text);
  } catch (const std::exception& e) {
    // Firewall: nothing in a file may end the program.
    return Result<LoadedPlan>::failure(Diagnostic{{fileName, 0, {}}, std::string("cannot read the plan: ") + e.what()});
  }
}

Result<LoadedPlan> readPlanFile(const std::string& path, const graph::ComputeGraph& g) {
  auto fail = [&](const std::string& why) {
    return Result<LoadedPlan>::failure(Diagnostic{{path, 0, {}}, "cannot read plan file: " + why});
  };
  try {
    std::string why;
    const auto text = io::detail::readFileCapped(path, kMaxPlanFileBytes, "plan", why, true);
    if (!text) return fail(why);
    return readPlanJson(*text, path, g);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace remat::io
