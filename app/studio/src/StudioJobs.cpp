#include "remat/studio/StudioJobs.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "remat/io/GraphReader.hpp"
#include "remat/solvers/MaxBatch.hpp"
#include "remat/studio/JobRunner.hpp"
#include "remat/studio/StudioDocument.hpp"
#include "remat/viz/Pareto.hpp"

namespace remat::studio {

namespace {

// A job's progress over `count` solvers, the k-th an equal share, each stage named by its solver, gated.
class SharedProgress {
 public:
  SharedProgress(std::stop_token stop, const JobProgress& report, std::size_t k, std::size_t count, std::string id)
      : m_stop(std::move(stop)), m_report(report), m_k(k), m_count(count), m_id(std::move(id)) {}
  void operator()(double f, std::string_view stage) {
    const double fraction = (double(m_k) + std::clamp(f, 0.0, 1.0)) / double(m_count);
    const std::string what = m_id + ": " + std::string(stage);
    if (m_stop.stop_requested() || !m_gate.due(fraction, what)) return;
    m_report(fraction, what);
  }

 private:
  std::stop_token m_stop;
  const JobProgress& m_report;
  std::size_t m_k;
  std::size_t m_count;
  std::string m_id;
  ProgressGate m_gate;
};

}  // namespace

bool ProgressGate::due(double fraction, const std::string& stage) {
  if (fraction - m_fraction < 0.01 && stage == m_stage) return false;
  m_fraction = fraction;
  m_stage = stage;
  return true;
}

ParetoJob::ParetoJob(JobRunner& jobs, StudioDocument& document, QObject* parent)
    : QObject(parent), m_jobs(jobs), m_document(document) {}

void ParetoJob::start(std::shared_ptr<const graph::ComputeGraph> graph, std::vector<const solvers::Solver*> chosen,
                      solvers::DpModelKind model, solvers::Pins pins) {
  stop();
  m_running = true;
  m_document.clearPareto();  // the fronts of other settings; the view says what is being computed instead
  m_fraction = 0.0;
  m_stage = tr("starting");
  auto work = [graph = std::move(graph), chosen = std::move(chosen), model, pins](std::stop_token stop,
                                                                                  const JobProgress& report) {
    ProgressGate gate;
    auto progress = [&](double fraction, std::string_view stage) {
      if (stop.stop_requested() || !gate.due(fraction, std::string(stage))) return;
      report(fraction, stage);
    };
    return viz::paretoInputs(*graph, chosen, kPoints, stop, model, progress, pins);
  };
  m_jobs.start(kSlot, std::move(work),
               {.progress =
                    [this](double fraction, const QString& text) {
                      m_fraction = fraction;
                      m_stage = text;
                      emit progressed(fraction, text);
                    },
                .done =
                    [this, pins = std::move(pins)](viz::ParetoInputs out) {
                      m_running = false;
                      for (const auto& s : out.skipped) emit skipped(QString::fromStdString(s));
                      // Made under the pins of its start: the document drops its pinned fronts if they moved.
                      m_document.setPareto(std::move(out.data), std::move(out.plans), pins);
                      emit finished();
                    },
                .failed =
                    [this](const QString& error) {
                      m_running = false;
                      emit failed(error);
                    }});
}

void ParetoJob::stop() {
  // The DP notices the stop within one lower set's work, which on a large graph can be longer than a
  // cancel may take: nothing waits for it.
  m_jobs.cancel(kSlot);
  m_running = false;
  if (!m_document.pareto()) m_stage.clear();
}

BudgetFronts::BudgetFronts(JobRunner& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

bool BudgetFronts::compute(const std::shared_ptr<const graph::ComputeGraph>& graph,
                           std::vector<const solvers::Solver*> wanted, solvers::DpModelKind model) {
  if (!graph || m_running) return false;
  std::erase_if(wanted, [this](const solvers::Solver* s) { return m_fronts.contains(s->info().id); });
  if (wanted.empty()) return false;
  m_running = true;
  m_fraction = 0.0;
  m_stage = tr("starting");
  next(graph, wanted, 0, model);
  return true;
}

void BudgetFronts::next(const std::shared_ptr<const graph::ComputeGraph>& graph,
                        const std::vector<const solvers::Solver*>& wanted, std::size_t k, solvers::DpModelKind model) {
  if (k == wanted.size()) {
    m_running = false;
    m_fraction = 1.0;
    emit finished();
    return;
  }
  const solvers::Solver* s = wanted[k];
  const std::string id = s->info().id;
  auto work = [graph, s, id, k, count = wanted.size(), model](std::stop_token stop, const JobProgress& report) {
    SharedProgress progress(stop, report, k, count, id);
    progress(0.0, "starting");
    auto front = std::make_shared<solvers::Solver::TradeOff>();
    try {
      *front = s->tradeOff({.graph = graph.get(), .stop = stop, .progress = std::ref(progress), .model = model}, 0);
    } catch (const std::exception& e) {
      front->call = solvers::CallStatus::Error;
      front->status = solvers::SolveStatus::NotSolved;
      front->message = e.what();
    }
    return Front(std::move(front));
  };
  m_jobs.start(kSlot, std::move(work),
               {.progress =
                    [this](double fraction, const QString& text) {
                      m_fraction = fraction;
                      m_stage = text;
                      emit progressed(fraction, text);
                    },
                .done =
                    [this, graph, wanted, k, model, id](const Front& front) {
                      if (front->whole) m_fronts[id] = front;
                      if (front->status != solvers::SolveStatus::Cancelled)
                        emit frontDone(QString::fromStdString(id), front);
                      next(graph, wanted, k + 1, model);
                    },
                .failed = {}});
}

void BudgetFronts::stop() {
  m_jobs.cancel(kSlot);  // never waits: the job is left to notice its stop, its answer dropped
  m_running = false;
}

void BudgetFronts::clear() {
  stop();
  m_fronts.clear();
}

BudgetFronts::Front BudgetFronts::front(const std::string& id) const {
  const auto it = m_fronts.find(id);
  return it == m_fronts.end() ? nullptr : it->second;
}

BatchSearch::BatchSearch(JobRunner& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

void BatchSearch::start(const std::shared_ptr<const graph::ComputeGraph>& graph,
                        std::vector<const solvers::Solver*> chosen, std::int64_t baseBatch, Bytes memory,
                        solvers::DpModelKind model) {
  m_running = true;
  m_answers.clear();
  m_memory = memory;
  auto work = [graph, chosen = std::move(chosen), baseBatch, memory, model](std::stop_token stop,
                                                                            const JobProgress& report) {
    std::vector<Answer> answers;
    for (std::size_t k = 0; k < chosen.size() && !stop.stop_requested(); ++k) {
      const std::string id = chosen[k]->info().id;
      SharedProgress progress(stop, report, k, chosen.size(), id);
      progress(0.0, "starting");
      Answer answer{id, solvers::CallStatus::Error, solvers::SolveStatus::NotSolved, 0, {}};
      try {
        const solvers::MaxBatchResult r =
            solvers::maxBatch(*chosen[k], *graph, baseBatch, memory, stop, std::ref(progress), model);
        answer.call = r.call;
        answer.status = r.status;
        answer.batch = r.batch;
        answer.message = r.message;
      } catch (const std::exception& e) {
        answer.message = e.what();
      }
      answers.push_back(std::move(answer));
    }
    return answers;
  };
  m_jobs.start(kSlot, std::move(work),
               {.progress = [this](double fraction, const QString& text) { emit progressed(fraction, text); },
                .done =
                    [this](std::vector<Answer> answers) {
                      m_running = false;
                      m_answers = std::move(answers);
                      emit finished();
                    },
                .failed =
                    [this](const QString& error) {
                      m_running = false;
                      emit failed(error);
                    }});
}

bool BatchSearch::cancel() {
  if (!m_running) return false;
  m_jobs.cancel(kSlot);  // the job stops at its next check; its answer is dropped
  m_running = false;
  return true;
}

GraphRead::GraphRead(JobRunner& jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

void GraphRead::start(const QString& path, bool asGiven) {
  cancel();
  m_running = true;
  m_path = path;
  m_started = std::chrono::steady_clock::now();
  m_jobs.start(kSlot,
               [path, asGiven](std::stop_token, const JobProgress&) {
                 return io::readGraphFile(path.toStdString(), io::GraphFormat::Auto, {.asGiven = asGiven});
               },
               {.progress = {},
                .done =
                    [this, path](Result<graph::ComputeGraph> result) {
                      m_running = false;
                      emit read(path, result);
                    },
                .failed =
                    [this, path](const QString& error) {
                      m_running = false;
                      emit failed(path, error);
                    }});
}

bool GraphRead::cancel() {
  if (!m_running) return false;
  m_jobs.cancel(kSlot);  // the read goes on to its end on the job; its answer is dropped
  m_running = false;
  return true;
}

double GraphRead::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
}

}  // namespace remat::studio
