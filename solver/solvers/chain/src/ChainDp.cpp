#include "remat/solvers/ChainDp.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "remat/graph/ByteSize.hpp"
#include "remat/solvers/ChainDpTable.hpp"
#include "remat/solvers/GraphChain.hpp"

namespace remat::solvers {
namespace {

using Clock = std::chrono::steady_clock;

std::string bytesText(std::int64_t b) { return formatByteSize(Bytes{b}); }

// The answer of a run that `limit` stopped: cancelled, or out of time or work. Every poll of the limit
// charges one unit of work: a closure while finding the cuts, an interval of the table, a breakpoint.
SolverOutput interrupted(const TimeLimit& limit, const std::string& what) {
  if (limit.cancelled()) return {SolveStatus::Cancelled, std::nullopt, "cancelled"};
  return {SolveStatus::TimeLimit, std::nullopt, "time limit reached" + (what.empty() ? "" : " " + what)};
}

// The chain, its discretised model and the filled table.
struct Prepared {
  GraphChain chain;
  ChainModel model;  ///< in slots
  std::int64_t slots = 0;
  std::int64_t slotBytes = 1;
  std::optional<ChainDpTable> table;
  std::string setting;  ///< the chain and the slots, for every message
};

Prepared prepare(const graph::ComputeGraph& g, std::int64_t requestedSlots, const SolveRequest& request,
                 TimeLimit& limit) {
  Prepared p;
  // Without a table when stopped while finding the cuts.
  auto chain = linearizeGraph(g, ChainDp::kMaxStages, [&] { return limit.charge(); });
  if (!chain) return p;
  p.chain = std::move(*chain);
  const ChainModel& bytes = p.chain.model;
  const std::size_t length = bytes.length();
  const std::size_t intervals = length * (length + 1) / 2;
  const std::int64_t top = storeAllMemory(bytes);

  // Slots of ⌈top / slots⌉ bytes; fewer slots when the table would be too large.
  std::int64_t slots = std::max<std::int64_t>(requestedSlots, 1);
  ChainModel model;
  std::int64_t width = 0;
  for (int attempt = 0;; ++attempt) {
    p.slotBytes = std::max<std::int64_t>(1, (top + slots - 1) / slots);
    model = discretise(bytes, p.slotBytes);
    width = storeAllMemory(model) + 1;
    const auto cells = static_cast<double>(intervals) * static_cast<double>(width);
    if (cells <= double(ChainDp::kMaxTableCells) || slots <= 8 || attempt > 20) break;
    slots = std::max<std::int64_t>(8, std::int64_t(double(slots) * double(ChainDp::kMaxTableCells) / cells * 0.95));
  }
  p.slots = slots;
  p.model = model;

  if (p.chain.cuts == 0)
    p.setting =
        "the graph has no single-boundary cut, so it is one stage and the plan stores everything (as "
        "store-all)";
  else
    p.setting = "chain of " + std::to_string(length) + " stages at single-boundary cuts";
  if (p.chain.cuts + 1 > length)
    p.setting += " (the " + std::to_string(p.chain.cuts + 1) + " stages of its " + std::to_string(p.chain.cuts) +
                 " cuts merged to " + std::to_string(length) + ": not exact)";
  p.setting += "; memory discretised into " + std::to_string(slots) + " slots of " + bytesText(p.slotBytes);
  if (slots != requestedSlots) p.setting += " (reduced from " + std::to_string(requestedSlots) + " to bound the table)";

  ChainDpTable::Hooks hooks;
  hooks.interrupted = [&limit] { return limit.charge(); };
  if (request.progress) hooks.progress = [&](double f) { request.progress(0.8 * f, "chain DP"); };
  p.table.emplace(model, width - 1, hooks);
  return p;
}

// The least limit of each distinct optimum, by limit ascending (cost descending).
std::vector<std::pair<std::int64_t, std::int64_t>> breakpoints(const ChainDpTable& table) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const std::optional<std::int64_t> least = table.leastMemory();
  if (!least) return out;
  for (std::int64_t m = *least; m <= table.maxMemory(); ++m) {
    const std::int64_t c = *table.cost(m);
    if (out.empty() || c < out.back().second) out.emplace_back(m, c);
  }
  return out;
}

// A breakpoint lowered and simulated.
struct Candidate {
  std::int64_t limit = 0;
  std::int64_t cost = 0;
  Plan plan;
  sim::SimulationResult simulation;
};

Candidate evaluate(const Prepared& p, const sim::Simulator& simulator, std::pair<std::int64_t, std::int64_t> point) {
  Candidate c;
  c.limit = point.first;
  c.cost = point.second;
  const std::vector<ChainOp> ops = p.table->ops(point.first);
#ifdef REMAT_SANITY_CHECKS
  const ChainRun run = runChainOps(p.model, ops);
  if (!run.valid || std::min(run.time, ChainDpTable::kSaturated) != point.second || run.peak > point.first)
    throw std::logic_error("chain-dp: the DP's schedule does not replay in its model: " + run.error);
#endif
  c.plan.schedule = lowerChainOps(p.chain, ops);
  c.simulation = simulator.run(c.plan.schedule);
  // A legal schedule whose time passes 2^63 - 1 (stage times near the readers' cap, recomputed many
  // times) comes back with an error marked timeOverflow: the caller decides.
  if (!c.simulation.valid() && !c.simulation.error->timeOverflow)
    throw std::logic_error("chain-dp lowered an illegal schedule: " + c.simulation.error->message);
  return c;
}

std::string limitText(const Prepared& p, std::int64_t limit) {
  return "chain-model limit " + std::to_string(limit) + " slots (" + bytesText(limit * p.slotBytes) + ")";
}

}  // namespace

ChainDp::ChainDp(std::int64_t slots) : m_slots(slots) {
  if (slots < 1) throw std::invalid_argument("chain-dp needs at least one memory slot");
}

const SolverInfo& ChainDp::info() const {
  static const SolverInfo kInfo{
      .id = "chain-dp",
      .name = "Optimal heterogeneous-chain checkpointing (rotor)",
      .citation =
          "Beaumont et al., Optimal checkpointing for heterogeneous chains: how to train deep neural "
          "networks with limited memory, 2019 (rotor); Griewank and Walther, Algorithm 799: Revolve, ACM "
          "TOMS 2000",
      .problemClass = "chains, and DAGs linearized at single-boundary cuts",
      .exact = true,
      .budgetMeasure = BudgetMeasure::Simulated,
      .scheduleClass = ScheduleClass::ChainSegments,
      .figureSlot = 4,
  };
  return kInfo;
}

SolverOutput ChainDp::plan(const SolveRequest& request) const {
  const graph::ComputeGraph& g = *request.graph;
  TimeLimit limit = startLimit(request);
  const Prepared p = prepare(g, m_slots, request, limit);
  if (!p.table) return interrupted(limit, "while finding the single-boundary cuts");
  if (!p.table->complete()) return interrupted(limit, "while filling the chain DP table");
  const auto points = breakpoints(*p.table);
  if (points.empty()) throw std::logic_error("chain-dp: storing everything does not fit its own model");
  const std::int64_t storeAll = p.chain.model.storeAllTime();
  const sim::Simulator simulator(g, {.liveness = request.liveness, .requireComplete = true});

  auto answer = [&](Candidate c) {
    const bool optimal = c.cost == storeAll;
    std::string message = p.setting + "; " + limitText(p, c.limit);
    if (!optimal)
      message +=
          "; optimal in the chain model, whose memory differs from the simulator's (inputs, parameters, "
          "their gradients, liveness), so not proven optimal for the budget";
    return SolverOutput{optimal ? SolveStatus::Optimal : SolveStatus::Feasible, std::move(c.plan), message};
  };
  if (!request.budget) return answer(evaluate(p, simulator, points.back()));

  std::optional<Bytes> leastPeak;
  std::optional<std::string> uncounted;  // why the first schedule whose time cannot be counted failed
  for (std::size_t k = points.size(); k-- > 0;) {
    if (limit.charge()) return interrupted(limit, "while searching the chain-model memory limit");
    if (request.progress) request.progress(0.8 + 0.2 * double(points.size() - k) / double(points.size()), "limits");
    Candidate c = evaluate(p, simulator, points[k]);
    if (!c.simulation.valid()) {  // its time passes 2^63 - 1, and its peak is unknown: not an answer
      if (!uncounted) uncounted = c.simulation.error->message;
      continue;
    }
    if (c.simulation.peak <= *request.budget) return answer(std::move(c));
    if (!leastPeak || c.simulation.peak < *leastPeak) leastPeak = c.simulation.peak;
  }
  if (uncounted)
    return {SolveStatus::Limit, std::nullopt,
            "no chain-dp plan whose time can be counted fits the budget; a leaner one's cannot be: " + *uncounted +
                "; " + p.setting};
  return {SolveStatus::Infeasible, std::nullopt,
          "even the least-memory chain schedule does not fit: the least budget chain-dp reaches is " +
              bytesText(leastPeak->value) + " (" + std::to_string(leastPeak->value) + " bytes); " + p.setting};
}

Solver::MinBudget ChainDp::planMinBudget(const SolveRequest& request) const {
  const auto start = Clock::now();
  MinBudget out;
  auto finish = [&] {
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  };
  try {
    if (request.graph == nullptr) {
      out.call = CallStatus::Error;
      out.message = "no graph given";
      return finish();
    }
    const graph::ComputeGraph& g = *request.graph;
    TimeLimit limit = startLimit(request);
    const Prepared p = prepare(g, m_slots, request, limit);
    const sim::Simulator simulator(g, {.liveness = request.liveness, .requireComplete = true});
    std::optional<Candidate> best;
    if (p.table && p.table->complete()) {
      for (const auto& point : breakpoints(*p.table)) {
        if (limit.charge()) break;
        Candidate c = evaluate(p, simulator, point);
        if (!c.simulation.valid()) continue;  // its time cannot be counted, nor its peak
        if (!best || c.simulation.peak < best->simulation.peak) best = std::move(c);
      }
    }
    if (limit.reached()) {
      const SolverOutput stopped = interrupted(limit, "");
      out.call = stopped.call;
      out.status = stopped.status;
      out.message = stopped.message;
      return finish();
    }
    if (!best) throw std::logic_error("chain-dp: storing everything does not fit its own model");
    out.status = SolveStatus::Optimal;
    out.bytes = best->simulation.peak;
    out.message = p.setting + "; " + limitText(p, best->limit);
  } catch (const std::exception& e) {
    out.call = CallStatus::Error;
    out.status = SolveStatus::NotSolved;
    out.message = std::string("internal error in chain-dp: ") + e.what();
  }
  return finish();
}

}  // namespace remat::solvers
