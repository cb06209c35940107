#pragma once

#include <QObject>
#include <QString>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::studio {

class JobRunner;
class StudioDocument;

/// Lets a job's progress through to the GUI thread at most every percent or on a new stage: a DP
/// reports thousands of times a second.
class ProgressGate {
 public:
  bool due(double fraction, const std::string& stage);

 private:
  double m_fraction = -1.0;
  std::string m_stage;
};

/// Studio's long jobs besides the solvers' (SolveRunner), each a small object over the window's
/// JobRunner in a slot of its own: it starts the work, follows its progress, and hands the answer to
/// the document or keeps it. None has widgets; the window wires their signals to its status bar, views
/// and messages. A job started again replaces the one running; a stop drops its answer at once (the
/// worker notices its stop token and ends on its own).

/// Solve > Compute Pareto front: viz::paretoInputs of the chosen solvers (under the pins too), into the
/// document (StudioDocument::setPareto, which drops pinned fronts whose pins moved meanwhile).
class ParetoJob : public QObject {
  Q_OBJECT

 public:
  static constexpr std::string_view kSlot = "pareto";
  /// The points each front is sampled at.
  static constexpr std::size_t kPoints = 20;

  ParetoJob(JobRunner& jobs, StudioDocument& document, QObject* parent = nullptr);
  /// Clears the document's fronts (they belong to other settings) and starts computing new ones.
  void start(std::shared_ptr<const graph::ComputeGraph> graph, std::vector<const solvers::Solver*> chosen,
             solvers::DpModelKind model, solvers::Pins pins);
  /// Drops the job in progress, if any.
  void stop();
  [[nodiscard]] bool running() const { return m_running; }
  /// How far it is (0 to 1) and what it runs ("exact-dp: DP over lower sets"), while it runs.
  [[nodiscard]] double fraction() const { return m_fraction; }
  [[nodiscard]] const QString& stage() const { return m_stage; }

 signals:
  void progressed(double fraction, const QString& stage);
  /// A solver that gave no front, and why.
  void skipped(const QString& what);
  /// The fronts are in the document.
  void finished();
  void failed(const QString& error);

 private:
  JobRunner& m_jobs;
  StudioDocument& m_document;
  bool m_running = false;
  double m_fraction = 0.0;
  QString m_stage;
};

/// The whole budget/overhead fronts of the DP solvers (solvers::Solver::tradeOff), one solver after the
/// other, each an equal share of the progress; once a solver's front is in, every budget is answered
/// from it (SolveRunner::Settings::fronts). Kept until clear(): they belong to one graph and DP model.
class BudgetFronts : public QObject {
  Q_OBJECT

 public:
  static constexpr std::string_view kSlot = "front";
  using Front = std::shared_ptr<const solvers::Solver::TradeOff>;

  explicit BudgetFronts(JobRunner& jobs, QObject* parent = nullptr);
  /// Starts computing the fronts of the solvers in `wanted` that have none yet; false when there is none
  /// to compute (or a computation runs).
  bool compute(const std::shared_ptr<const graph::ComputeGraph>& graph, std::vector<const solvers::Solver*> wanted,
               solvers::DpModelKind model);
  void stop();
  /// Stops and forgets every front (another graph or DP model).
  void clear();
  [[nodiscard]] bool running() const { return m_running; }
  [[nodiscard]] double fraction() const { return m_fraction; }
  [[nodiscard]] const QString& stage() const { return m_stage; }
  /// A solver's whole front, if computed.
  [[nodiscard]] Front front(const std::string& id) const;
  [[nodiscard]] const std::map<std::string, Front>& fronts() const { return m_fronts; }

 signals:
  void progressed(double fraction, const QString& stage);
  /// A solver's front is in (`front->whole`), or could not be had (its message says why).
  void frontDone(const QString& solver, const remat::studio::BudgetFronts::Front& front);
  /// Every front asked for has been tried.
  void finished();

 private:
  void next(const std::shared_ptr<const graph::ComputeGraph>& graph, const std::vector<const solvers::Solver*>& wanted,
            std::size_t k, solvers::DpModelKind model);

  JobRunner& m_jobs;
  std::map<std::string, Front> m_fronts;
  bool m_running = false;
  double m_fraction = 0.0;
  QString m_stage;
};

/// Solve > Largest batch: for each solver, solvers::maxBatch in `memory` bytes from the graph's batch.
class BatchSearch : public QObject {
  Q_OBJECT

 public:
  static constexpr std::string_view kSlot = "max-batch";

  /// One solver's answer.
  struct Answer {
    std::string solver;
    solvers::CallStatus call = solvers::CallStatus::Ok;
    solvers::SolveStatus status = solvers::SolveStatus::NotSolved;
    std::int64_t batch = 0;  ///< the largest batch that fits; 0 when none does
    std::string message;
  };

  explicit BatchSearch(JobRunner& jobs, QObject* parent = nullptr);
  void start(const std::shared_ptr<const graph::ComputeGraph>& graph, std::vector<const solvers::Solver*> chosen,
             std::int64_t baseBatch, Bytes memory, solvers::DpModelKind model);
  /// Drops the search in progress; false when none runs.
  bool cancel();
  [[nodiscard]] bool running() const { return m_running; }
  [[nodiscard]] const std::vector<Answer>& answers() const { return m_answers; }
  /// The memory of the last search.
  [[nodiscard]] Bytes memory() const { return m_memory; }

 signals:
  /// The fraction done (each solver an equal share) and what runs.
  void progressed(double fraction, const QString& stage);
  void finished();
  void failed(const QString& error);

 private:
  JobRunner& m_jobs;
  bool m_running = false;
  std::vector<Answer> m_answers;
  Bytes m_memory{0};
};

/// A graph file read on a worker (io::readGraphFile), so that a large ONNX model never freezes the window.
/// A read cannot stop half way: a cancel drops its answer, the file read to its end on the worker.
class GraphRead : public QObject {
  Q_OBJECT

 public:
  static constexpr std::string_view kSlot = "import";

  explicit GraphRead(JobRunner& jobs, QObject* parent = nullptr);
  /// Starts reading `path` (as the whole computation when `asGiven`: io::ReadOptions::asGiven), dropping
  /// a read in progress.
  void start(const QString& path, bool asGiven = false);
  /// Drops the read in progress; false when none runs.
  bool cancel();
  [[nodiscard]] bool running() const { return m_running; }
  [[nodiscard]] const QString& path() const { return m_path; }
  /// Seconds since the read started.
  [[nodiscard]] double seconds() const;

 signals:
  /// The read ended: the graph or its error (never for a dropped read).
  void read(const QString& path, remat::Result<remat::graph::ComputeGraph>& result);
  /// The reader threw.
  void failed(const QString& path, const QString& error);

 private:
  JobRunner& m_jobs;
  bool m_running = false;
  QString m_path;
  std::chrono::steady_clock::time_point m_started;
};

}  // namespace remat::studio
