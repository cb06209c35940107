#include "remat/studio/SolveRunner.hpp"

#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <utility>

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

SolveRunner::SolveRunner(QObject* parent) : QObject(parent) {}

SolveRunner::~SolveRunner() {
  // Join here, while this object is whole: a worker may still be posting a call to it.
  for (Job& job : m_jobs) job.thread.request_stop();
  for (Job& job : m_jobs)
    if (job.thread.joinable()) job.thread.join();
}

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
  cancel();
  const std::uint64_t run = ++m_run;
  std::vector<std::pair<const solvers::Solver*, bool>> jobs;  // (solver, under the pins)
  jobs.reserve(2 * chosen.size());
  for (const solvers::Solver* solver : chosen) jobs.emplace_back(solver, false);
  for (const solvers::Solver* solver : chosen)
    if (solvers::honoursAll(solver->info().pins, settings.pins)) jobs.emplace_back(solver, true);
  m_pending = static_cast<int>(jobs.size());
  for (const auto& job : jobs) {
    // Named variables, not a structured binding: the job's lambda captures them (clang 14 cannot).
    const solvers::Solver* solver = job.first;
    const bool pinned = job.second;
    const std::uint64_t serial = ++m_nextSerial;
    const std::string label = pinned ? viz::pinnedLabel(solver->info().id) : solver->info().id;
    const QString id = QString::fromStdString(label);
    auto body = [this, graph, solver, pinned, settings, serial, run, id, label](std::stop_token stop) {
      auto throttle = std::make_shared<ProgressThrottle>();
      solvers::ProgressSink sink = [this, throttle, id, run](double fraction, std::string_view stage) {
        if (!throttle->due(fraction)) return;
        const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        QMetaObject::invokeMethod(
            this,
            [this, id, run, fraction, text] {
              if (run == m_run) emit progressed(id, fraction, text);
            },
            Qt::QueuedConnection);
      };
      auto result =
          std::make_shared<solvers::SolveResult>(runJob(*graph, *solver, settings, pinned, stop, std::move(sink)));
      result->solver = label;
      QMetaObject::invokeMethod(
          this, [this, serial, run, result] { jobDone(serial, run, *result); }, Qt::QueuedConnection);
    };
    m_jobs.push_back({serial, run, std::jthread(std::move(body))});
  }
  if (chosen.empty()) emit runFinished();
}

void SolveRunner::cancel() {
  for (Job& job : m_jobs)
    if (job.run == m_run) job.thread.request_stop();
}

void SolveRunner::abandon() {
  cancel();
  ++m_run;
  m_pending = 0;
}

void SolveRunner::jobDone(std::uint64_t serial, std::uint64_t run, const solvers::SolveResult& result) {
  const auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [serial](const Job& j) { return j.serial == serial; });
  if (it != m_jobs.end()) {
    // The worker posted this call as its last act, so the join returns at once.
    if (it->thread.joinable()) it->thread.join();
    m_jobs.erase(it);
  }
  if (run != m_run) return;
  --m_pending;
  emit finished(QString::fromStdString(result.solver), result);
  if (m_pending == 0) emit runFinished();
}

}  // namespace remat::studio
