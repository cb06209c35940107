#include "remat/studio/SolveRunner.hpp"

#include <chrono>
#include <exception>
#include <mutex>
#include <utility>

#include "remat/studio/JobRunner.hpp"
#include "remat/viz/PlanFigures.hpp"

namespace remat::studio {

namespace {

// Solvers may report progress thousands of times a second; the GUI needs a few updates a second.
class ProgressThrottle {
 public:
  bool due(double fraction) {
    const auto now = std::chrono::steady_clock::now();
    const std::lock_guard lock(m_mutex);
    if (fraction < 1.0 && fraction - m_lastFraction < 0.01 && now - m_lastTime < std::chrono::milliseconds(100))
      return false;
    m_lastFraction = fraction;
    m_lastTime = now;
    return true;
  }

 private:
  std::mutex m_mutex;
  double m_lastFraction = -1.0;
  std::chrono::steady_clock::time_point m_lastTime;
};

// A job whose call failed (an exception escaped the solver's own firewall).
solvers::SolveResult failed(const solvers::Solver& s, std::string message) {
  solvers::SolveResult r;
  r.solver = s.info().id;
  r.call = solvers::CallStatus::Error;
  r.message = std::move(message);
  return r;
}

// The job body: the solve of the command line's compare, "least" included. Nothing may escape a thread.
solvers::SolveResult runJob(const graph::ComputeGraph& g, const solvers::Solver& s,
                            const SolveRunner::Settings& settings, bool pinned, std::stop_token stop,
                            solvers::ProgressSink progress) {
  try {
    solvers::SolveRequest request{.graph = &g,
                                  .strategy = settings.strategy,
                                  .stop = stop,
                                  .progress = std::move(progress),
                                  .timeLimit = settings.timeLimit,
                                  .model = settings.model};
    if (settings.budget.kind == BudgetChoice::Kind::Fixed) request.budget = settings.budget.bytes;
    if (pinned)
      request.pins = settings.pins;  // the fronts are unpinned: this one solves
    else if (const auto it = settings.fronts.find(s.info().id); it != settings.fronts.end() && it->second) {
      const solvers::Solver::TradeOff& front = *it->second;
      solvers::SolveRequest at = request;
      // The front's first plan needs the least budget of the model, the one "least" asks for.
      if (settings.budget.kind == BudgetChoice::Kind::Least && !front.plans.empty())
        at.budget = front.plans.front().budget;
      if (auto answered = solvers::solveFromFront(s, front, at)) {
        if (answered->message.empty()) answered->message = "answered from its whole budget/overhead front";
        return std::move(*answered);
      }
    }
    if (settings.budget.kind == BudgetChoice::Kind::Least) return solvers::solveAtLeastBudget(s, request);
    return s.solve(request);
  } catch (const std::exception& e) {
    return failed(s, e.what());
  } catch (...) {
    return failed(s, "unknown error");
  }
}

}  // namespace

SolveRunner::SolveRunner(JobRunner& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

SolveRunner::~SolveRunner() { abandon(); }

std::vector<std::string> SolveRunner::labels(const std::vector<const solvers::Solver*>& chosen,
                                             const solvers::Pins& pins) {
  std::vector<std::string> out;
  out.reserve(2 * chosen.size());
  for (const solvers::Solver* s : chosen) out.push_back(s->info().id);
  for (const solvers::Solver* s : chosen)
    if (solvers::honoursAll(s->info().pins, pins)) out.push_back(viz::pinnedLabel(s->info().id));
  return out;
}

void SolveRunner::start(const std::shared_ptr<const graph::ComputeGraph>& graph,
                        const std::vector<const solvers::Solver*>& chosen, const Settings& settings) {
  // A new generation of the slot: the run before is asked to stop, and what it still reports dropped.
  m_jobs.cancel(kSlot);
  std::vector<std::pair<const solvers::Solver*, bool>> jobs;  // (solver, under the pins)
  jobs.reserve(2 * chosen.size());
  for (const solvers::Solver* solver : chosen) jobs.emplace_back(solver, false);
  for (const solvers::Solver* solver : chosen)
    if (solvers::honoursAll(solver->info().pins, settings.pins)) jobs.emplace_back(solver, true);
  for (const auto& job : jobs) {
    // Named variables, not a structured binding: the job's lambda captures them (clang 14 cannot).
    const solvers::Solver* solver = job.first;
    const bool pinned = job.second;
    const std::string label = pinned ? viz::pinnedLabel(solver->info().id) : solver->info().id;
    const QString id = QString::fromStdString(label);
    auto body = [graph, solver, pinned, settings, label](std::stop_token stop, const JobProgress& report) {
      auto throttle = std::make_shared<ProgressThrottle>();
      solvers::ProgressSink sink = [throttle, report](double fraction, std::string_view stage) {
        if (throttle->due(fraction)) report(fraction, stage);
      };
      solvers::SolveResult result = runJob(*graph, *solver, settings, pinned, std::move(stop), std::move(sink));
      result.solver = label;
      return result;
    };
    m_jobs.add(kSlot, std::move(body),
               {.progress = [this, id](double fraction, const QString& stage) { emit progressed(id, fraction, stage); },
                .done =
                    [this, id](const solvers::SolveResult& result) {
                      emit finished(id, result);
                      if (!running()) emit runFinished();
                    },
                .failed = {}});
  }
  if (jobs.empty()) emit runFinished();
}

void SolveRunner::cancel() { m_jobs.requestStop(kSlot); }

void SolveRunner::abandon() { m_jobs.cancel(kSlot); }

bool SolveRunner::running() const { return m_jobs.running(kSlot) > 0; }

}  // namespace remat::studio
