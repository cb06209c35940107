#pragma once

#include <QObject>
#include <QString>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/studio/BudgetEditor.hpp"

namespace remat::studio {

/// Runs solvers side by side, each as a job on its own worker thread, and reports their progress and
/// results on the thread the runner lives in (the GUI thread), through queued calls. Each run may be
/// cancelled; a new run cancels the one before it, whose late results are dropped.
class SolveRunner : public QObject {
  Q_OBJECT

 public:
  struct Settings {
    BudgetChoice budget;
    solvers::Strategy strategy = solvers::Strategy::Time;
    solvers::DpModelKind model = solvers::DpModelKind::Simulator;
    std::optional<std::chrono::milliseconds> timeLimit;  ///< per solver; none means no limit
    /// Whole budget/overhead fronts by solver id: a solver with one answers from it when it can
    /// (solvers::solveFromFront: the time-centric strategy, or auto where a plan fits) instead of
    /// solving again; the others solve.
    std::map<std::string, std::shared_ptr<const solvers::Solver::TradeOff>> fronts;
    /// The user's pins: every solver that honours them all (solvers::honoursAll) also runs under them,
    /// as a job of its own whose result is labelled viz::pinnedLabel(id) (never from a front).
    solvers::Pins pins;
  };

  /// What a run reports: each solver's id, then the pinned labels of those that also run under the pins.
  [[nodiscard]] static std::vector<std::string> labels(const std::vector<const solvers::Solver*>& chosen,
                                                       const solvers::Pins& pins);

  explicit SolveRunner(QObject* parent = nullptr);
  /// Requests every job to stop and waits for them (solvers poll their stop token).
  ~SolveRunner() override;
  SolveRunner(const SolveRunner&) = delete;
  SolveRunner& operator=(const SolveRunner&) = delete;

  /// Starts one job per solver on the graph (and one more under the pins for each that honours them),
  /// which the jobs share and keep alive.
  void start(const std::shared_ptr<const graph::ComputeGraph>& graph, const std::vector<const solvers::Solver*>& chosen,
             const Settings& settings);
  /// Asks the current run's jobs to stop; each still reports its (cancelled) result.
  void cancel();
  /// Cancels the current run and drops whatever its jobs still report (a new graph was opened).
  void abandon();
  /// Whether jobs of the current run are still working.
  [[nodiscard]] bool running() const { return m_pending > 0; }

 signals:
  void progressed(const QString& solver, double fraction, const QString& stage);
  void finished(const QString& solver, const remat::solvers::SolveResult& result);
  /// Every job of the current run has reported.
  void runFinished();

 private:
  struct Job {
    std::uint64_t serial = 0;
    std::uint64_t run = 0;
    std::jthread thread;
  };
  void jobDone(std::uint64_t serial, std::uint64_t run, const solvers::SolveResult& result);

  std::vector<Job> m_jobs;
  std::uint64_t m_run = 0;
  std::uint64_t m_nextSerial = 0;
  int m_pending = 0;
};

}  // namespace remat::studio
