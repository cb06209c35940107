#pragma once

#include <QObject>
#include <QString>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/studio/BudgetChoice.hpp"

namespace remat::studio {

class JobRunner;

/// Runs solvers side by side, each as a job of the window's JobRunner (slot kSlot, one generation per
/// run), and reports their progress and results on the GUI thread. Each run may be cancelled; a new run
/// cancels the one before it, whose late results are dropped.
class SolveRunner : public QObject {
  Q_OBJECT

 public:
  /// The JobRunner slot the solver jobs run in.
  static constexpr std::string_view kSlot = "solve";

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

  /// Runs its jobs on `jobs`, which must outlive it.
  explicit SolveRunner(JobRunner& jobs, QObject* parent = nullptr);
  /// Abandons the current run: its jobs are asked to stop and nothing they report reaches this object.
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
  [[nodiscard]] bool running() const;

 signals:
  void progressed(const QString& solver, double fraction, const QString& stage);
  void finished(const QString& solver, const remat::solvers::SolveResult& result);
  /// Every job of the current run has reported.
  void runFinished();

 private:
  JobRunner& m_jobs;
};

}  // namespace remat::studio
