// remat._remat: the engine for Python (pybind11). Every figure comes from the library the command line
// uses: graphs are read by the same readers, plans are solved, simulated and judged by the same calls, and
// plans come back as the plan JSON `remat solve --json` prints (io::writePlanJson), parsed into dicts, so
// that Python never counts a byte or a tick itself.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/LowerSets.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/NativeJson.hpp"
#include "remat/io/PlanJson.hpp"
#include "remat/sim/MemoryBounds.hpp"
#include "remat/sim/Schedule.hpp"
#include "remat/solvers/Comparison.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace py = pybind11;

namespace {

using remat::Bytes;
using remat::graph::ComputeGraph;
namespace solvers = remat::solvers;

py::object parseJson(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string dumpJson(const py::handle& obj) {
  return py::module_::import("json").attr("dumps")(obj).cast<std::string>();
}

/// A graph read once and shared by every call on it (Python holds it by shared_ptr).
struct Graph {
  ComputeGraph g;
  std::vector<std::string> warnings;
};

template <class T>
T unwrap(remat::Result<T> r) {
  if (!r.ok()) throw py::value_error(r.errorText());
  return std::move(r).value();
}

std::shared_ptr<Graph> readGraph(const std::string& path, std::optional<std::int64_t> batch) {
  remat::io::ReadOptions options;
  options.batch = batch;
  auto result = remat::io::readGraphFile(path, remat::io::GraphFormat::Auto, options);
  std::vector<std::string> warnings;
  for (const auto& w : result.warnings()) warnings.push_back(w.toString());
  return std::make_shared<Graph>(Graph{unwrap(std::move(result)), std::move(warnings)});
}

std::shared_ptr<Graph> graphFromJson(const py::handle& obj, const std::string& label) {
  const std::string text = py::isinstance<py::str>(obj) ? obj.cast<std::string>() : dumpJson(obj);
  auto result = remat::io::readNativeJson(text, label);
  std::vector<std::string> warnings;
  for (const auto& w : result.warnings()) warnings.push_back(w.toString());
  return std::make_shared<Graph>(Graph{unwrap(std::move(result)), std::move(warnings)});
}

/// A budget as Python gives it: None, a number of bytes, or a size such as "2GiB".
std::optional<Bytes> budgetOf(const py::object& budget) {
  if (budget.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(budget)) {
    const auto text = budget.cast<std::string>();
    const auto bytes = remat::parseByteSize(text);
    if (!bytes || bytes->value <= 0) throw py::value_error("budget '" + text + "' is not a size such as 2GiB or 500MB");
    return bytes;
  }
  const auto bytes = budget.cast<std::int64_t>();
  if (bytes <= 0) throw py::value_error("budget must be a positive number of bytes, not " + std::to_string(bytes));
  return Bytes{bytes};
}

const solvers::Solver& solverOf(const std::string& id) {
  const auto* solver = solvers::SolverRegistry::builtin().find(id);
  if (solver == nullptr) {
    std::string known;
    for (const auto& k : solvers::SolverRegistry::builtin().ids()) known += (known.empty() ? "" : ", ") + k;
    throw py::value_error("no solver '" + id + "' (solvers: " + known + ")");
  }
  return *solver;
}

struct RequestOptions {
  std::string strategy = "time";
  std::string model = "simulator";
  std::optional<double> timeLimit;
  std::optional<std::uint64_t> workLimit;
  bool liveness = true;
  std::vector<std::string> keep;       ///< operations pinned keep (docs/pins.md)
  std::vector<std::string> recompute;  ///< operations pinned recompute
};

solvers::SolveRequest requestOf(const Graph& graph, std::optional<Bytes> budget, const RequestOptions& o) {
  solvers::SolveRequest r{.graph = &graph.g, .budget = budget};
  const auto strategy = solvers::strategyFromName(o.strategy);
  if (!strategy) throw py::value_error("strategy must be time, memory or auto, not '" + o.strategy + "'");
  r.strategy = *strategy;
  const auto model = solvers::dpModelFromName(o.model);
  if (!model) throw py::value_error("model must be simulator or paper, not '" + o.model + "'");
  r.model = *model;
  if (o.timeLimit) {
    if (!(*o.timeLimit > 0)) throw py::value_error("time_limit must be a positive number of seconds");
    r.timeLimit = std::chrono::milliseconds(std::llround(*o.timeLimit * 1000.0));
  }
  r.workLimit = o.workLimit;
  r.liveness = o.liveness;
  // The graph's own pins (its "pins", docs/pins.md) and then the caller's.
  std::vector<std::string> keep;
  std::vector<std::string> recompute;
  solvers::addGraphPinNames(graph.g, keep, recompute);
  keep.insert(keep.end(), o.keep.begin(), o.keep.end());
  recompute.insert(recompute.end(), o.recompute.begin(), o.recompute.end());
  r.pins = unwrap(solvers::pinsFromNames(graph.g, keep, recompute));
  return r;
}

/// The plan JSON of a result, with the simulated timeline when asked (`timeline`: one entry per schedule
/// step, the memory while it runs by category and in all, the total after its frees, the time at its end).
py::object resultToPython(const ComputeGraph& g, const solvers::SolveResult& r, bool timeline) {
  py::object out = parseJson(remat::io::writePlanJson(g, r));
  if (timeline) {
    py::list points;
    for (const auto& p : r.simulation.timeline.points()) {
      py::dict d;
      d["params"] = p.during.params.value;
      d["param_grads"] = p.during.paramGrads.value;
      d["inputs"] = p.during.inputs.value;
      d["values"] = p.during.values.value;
      d["recomputed"] = p.during.recomputed.value;
      d["grads"] = p.during.grads.value;
      d["workspace"] = p.during.workspace.value;
      d["during"] = p.during.total().value;
      d["after"] = p.after.value;
      d["end_time"] = p.endTime.value;
      points.append(d);
    }
    out["timeline"] = points;
  }
  return out;
}

py::dict infoOf(const Graph& graph) {
  const ComputeGraph& g = graph.g;
  const auto vanilla = solvers::SolverRegistry::builtin().plainRun().solve({.graph = &g});
  if (vanilla.call == solvers::CallStatus::Error) throw std::runtime_error(vanilla.message);
  const auto lowerSets = remat::graph::countLowerSets(g, 10'000'000);
  py::dict d;
  d["graph"] = g.name();
  d["nodes"] = g.size();
  d["op_nodes"] = g.opCount();
  d["activation_bytes"] = g.opBytes().value;
  d["param_bytes"] = g.paramBytes().value;
  d["input_bytes"] = g.inputBytes().value;
  d["forward_time"] = g.totalForwardTime().value;
  d["time_unit"] = g.timeUnit();
  d["cost_model"] = g.costModel();
  d["pins"] = parseJson(solvers::pinsJson(g, solvers::graphPins(g)));  // the graph's own (docs/pins.md)
  d["lower_sets"] = lowerSets ? py::object(py::int_(*lowerSets)) : py::object(py::none());
  d["vanilla_peak_bytes"] = vanilla.metrics.simulatedPeak.value;
  d["memory_lower_bound_bytes"] = remat::sim::memoryLowerBound(g).value;
  d["warnings"] = graph.warnings;
  return d;
}

/// A plan given as Python has it: a plan dict (plan JSON) or a list of segments (lists of node ids).
solvers::Plan planOf(const Graph& graph, const py::object& plan, const std::string& modelName) {
  const ComputeGraph& g = graph.g;
  if (py::isinstance<py::dict>(plan) || py::isinstance<py::str>(plan)) {
    const std::string text = py::isinstance<py::str>(plan) ? plan.cast<std::string>() : dumpJson(plan);
    return unwrap(remat::io::readPlanJson(text, "<plan>", g)).plan;
  }
  const auto model = solvers::dpModelFromName(modelName);
  if (!model) throw py::value_error("model must be simulator or paper, not '" + modelName + "'");
  std::vector<remat::graph::NodeSet> lowerSets;
  remat::graph::NodeSet running(g.opCount());
  std::size_t index = 0;
  for (const auto& segment : plan) {
    for (const auto& item : segment) {
      const auto name = item.cast<std::string>();
      const auto id = g.find(name);
      if (!id || !g.isOp(*id))
        throw py::value_error("segment " + std::to_string(index + 1) + ": '" + name + "' is not an operation of " +
                              g.name());
      running.insert(g.opIndex(*id));
    }
    lowerSets.push_back(running);
    ++index;
  }
  try {
    return solvers::chainPlan(g, std::move(lowerSets), *model);
  } catch (const std::exception& e) {
    throw py::value_error(std::string("the segments are not an increasing chain of lower sets: ") + e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_remat, m) {
  m.doc() = "Remat's engine: graphs, solvers, the simulator (Kusumoto et al., NeurIPS 2019)";

  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph", "A computation graph, read by Remat's readers")
      .def_static("read", &readGraph, py::arg("path"), py::arg("batch") = py::none(),
                  "Reads a graph file of any format Remat reads (native JSON, ONNX, PFN cg, Checkmate)")
      .def_static("from_json", &graphFromJson, py::arg("graph"), py::arg("label") = "<graph>",
                  "A graph from native JSON: a dict (as remat.torch.capture makes) or its text")
      .def_property_readonly("name", [](const Graph& gr) { return gr.g.name(); })
      .def_property_readonly("warnings", [](const Graph& gr) { return gr.warnings; })
      .def_property_readonly("op_ids",
                             [](const Graph& gr) {
                               std::vector<std::string> ids;
                               for (auto v = gr.g.firstOp(); v < gr.g.size(); ++v)
                                 ids.push_back(gr.g.node(remat::graph::NodeId{v}).name);
                               return ids;
                             })
      .def("info", &infoOf, "Sizes, lower sets, the plain run's peak and the memory lower bound (remat info)")
      .def("__repr__", [](const Graph& gr) {
        return "<remat.Graph '" + gr.g.name() + "': " + std::to_string(gr.g.opCount()) + " operations>";
      });

  m.def(
      "solvers",
      [] {
        py::list out;
        for (const auto& s : solvers::SolverRegistry::builtin().solvers()) {
          const auto& info = s->info();
          py::dict d;
          d["id"] = info.id;
          d["name"] = info.name;
          d["citation"] = info.citation;
          d["exact"] = info.exact;
          d["schedule_class"] = std::string(solvers::scheduleClassName(info.scheduleClass));
          d["makes_plans"] = info.makesPlans;
          d["plain_run"] = info.plainRun;
          d["wants_time_limit"] = info.wantsTimeLimit;
          d["as_given"] = info.asGiven;
          out.append(d);
        }
        return out;
      },
      "Every solver Remat ships, as `remat solvers` lists them");

  m.def(
      "solve",
      [](const Graph& graph, const std::string& solver, const py::object& budget, const std::string& strategy,
         const std::string& model, std::optional<double> timeLimit, std::optional<std::uint64_t> workLimit,
         bool timeline, const std::vector<std::string>& keep, const std::vector<std::string>& recompute) {
        const auto request =
            requestOf(graph, budgetOf(budget), {strategy, model, timeLimit, workLimit, true, keep, recompute});
        solvers::SolveResult r;
        {
          py::gil_scoped_release release;
          r = solverOf(solver).solve(request);
        }
        return resultToPython(graph.g, r, timeline);
      },
      py::arg("graph"), py::arg("solver"), py::arg("budget") = py::none(), py::arg("strategy") = "time",
      py::arg("model") = "simulator", py::arg("time_limit") = py::none(), py::arg("work_limit") = py::none(),
      py::arg("timeline") = false, py::arg("keep") = std::vector<std::string>{},
      py::arg("recompute") = std::vector<std::string>{},
      "One solver at a budget (bytes or a size such as '2GiB'), with operations pinned keep or recompute by name "
      "(docs/pins.md); the plan JSON of `remat solve --json` as a dict");

  m.def(
      "min_budget",
      [](const Graph& graph, const std::string& solver, const std::string& model, std::optional<double> timeLimit,
         const std::vector<std::string>& keep, const std::vector<std::string>& recompute) {
        const auto request =
            requestOf(graph, std::nullopt, {"time", model, timeLimit, std::nullopt, true, keep, recompute});
        solvers::Solver::MinBudget r;
        {
          py::gil_scoped_release release;
          r = solverOf(solver).minBudget(request);
        }
        py::dict d;
        d["call"] = std::string(solvers::callStatusName(r.call));
        d["status"] = std::string(solvers::statusName(r.status));
        d["min_budget_bytes"] = r.bytes ? py::object(py::int_(r.bytes->value)) : py::object(py::none());
        d["message"] = r.message;
        d["solve_seconds"] = r.seconds;
        return d;
      },
      py::arg("graph"), py::arg("solver"), py::arg("model") = "simulator", py::arg("time_limit") = py::none(),
      py::arg("keep") = std::vector<std::string>{}, py::arg("recompute") = std::vector<std::string>{},
      "The least budget the solver can meet (exact to the byte for the DPs), under pins by name, as `remat "
      "min-budget --json`");

  m.def(
      "compare",
      [](const Graph& graph, const py::object& budget, std::optional<std::vector<std::string>> ids,
         const std::string& strategy, std::optional<double> timeLimit, bool timeline,
         const std::vector<std::string>& keep, const std::vector<std::string>& recompute) {
        const bool least = py::isinstance<py::str>(budget) && budget.cast<std::string>() == "least";
        const auto request = requestOf(graph, least ? std::nullopt : budgetOf(budget),
                                       {strategy, "simulator", timeLimit, std::nullopt, true, keep, recompute});
        std::vector<const solvers::Solver*> chosen;
        if (ids) {
          for (const auto& id : *ids) chosen.push_back(&solverOf(id));
        } else {
          for (const auto& s : solvers::SolverRegistry::builtin().solvers()) chosen.push_back(s.get());
        }
        solvers::Comparison c;
        {
          py::gil_scoped_release release;
          c = solvers::compareSolvers(chosen, request, least);
        }
        py::dict d;
        d["vanilla"] = resultToPython(graph.g, c.vanilla, timeline);
        py::list rows;
        for (const auto& r : c.rows) {
          py::object row = resultToPython(graph.g, r, timeline);
          row["fits"] = solvers::fitsBudget(r);
          row["overhead_percent"] = c.overheadPercent(r);
          rows.append(row);
        }
        d["rows"] = rows;
        d["least_budgets"] = c.leastBudgets;
        d["best"] = c.best ? py::object(py::int_(*c.best)) : py::object(py::none());
        d["winner"] = c.best ? py::object(py::str(c.rows[*c.best].solver)) : py::object(py::none());
        return d;
      },
      py::arg("graph"), py::arg("budget") = py::none(), py::arg("solvers") = py::none(), py::arg("strategy") = "time",
      py::arg("time_limit") = py::none(), py::arg("timeline") = false, py::arg("keep") = std::vector<std::string>{},
      py::arg("recompute") = std::vector<std::string>{},
      "Solvers side by side at one budget (or 'least': each at its own least budget), judged by the simulator "
      "as `remat compare` judges them, under pins by name (docs/pins.md): rows (plan dicts with `fits` and "
      "`overhead_percent`), best, winner");

  m.def(
      "simulate",
      [](const Graph& graph, const py::object& plan, const py::object& budget, const std::string& model,
         const std::string& label, bool timeline) {
        solvers::Plan p = planOf(graph, plan, model);
        const auto r = solvers::judgePlan(graph.g, label, std::move(p), budgetOf(budget));
        if (r.call == solvers::CallStatus::Error) throw py::value_error(r.message);
        return resultToPython(graph.g, r, timeline);
      },
      py::arg("graph"), py::arg("plan"), py::arg("budget") = py::none(), py::arg("model") = "simulator",
      py::arg("label") = "plan", py::arg("timeline") = false,
      "Simulates a plan (a plan dict, or segments: lists of operation ids whose running unions are the lower "
      "sets, lowered as `model` lowers them) and judges it against the budget; the plan JSON as a dict");
}
