#pragma once

#include <QString>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

class QObject;

namespace remat::studio {

/// How a job reports its progress: the fraction done (0 to 1) and the stage it is in. Called on the job's
/// own thread; every call becomes one delivery on the GUI thread, so a job that reports thousands of times
/// a second gates its reports itself.
using JobProgress = std::function<void(double fraction, std::string_view stage)>;

/// What the GUI thread is handed of a job of type `Result`: its progress in the order the job reported it,
/// then its result, or what it threw. None is called for a job that was superseded or cancelled.
template <class Result>
struct JobHandlers {
  std::function<void(double fraction, const QString& stage)> progress;  ///< optional
  std::function<void(Result result)> done;
  std::function<void(const QString& error)> failed;  ///< optional: without it a throw is only logged
};

/// Studio's one way to run long work (Graphia's pattern: a command on a worker thread with progress,
/// cancel and a result for the GUI thread). Each job runs on a std::jthread of its own and gets a
/// std::stop_token and a JobProgress sink; its progress and its result are delivered, through queued
/// calls, on the thread that made the runner (the GUI thread).
///
/// Jobs live in named slots ("solve", "front", "pareto", "import", "max-batch"), each with a generation:
/// starting a job in a slot, or cancelling the slot, asks the slot's jobs to stop and makes a new
/// generation, and whatever an older generation still reports is dropped. Nothing waits for a job to
/// notice its stop: a cancel returns at once, and a job that ended is joined when its last report
/// arrives. Destroying the runner asks every job to stop and joins them all; jobs never wait for the GUI
/// thread, so that cannot deadlock, and nothing they report afterwards is delivered.
class JobRunner {
 public:
  /// How one job ended, as the GUI thread saw it.
  enum class Outcome { Pending, Delivered, Dropped };

  /// One job as its starter (and a test) may watch it, also after it ended.
  class Watch {
   public:
    /// Whether the job's stop token was asked to stop (a cancel, a newer job in its slot, the runner's end).
    [[nodiscard]] bool stopRequested() const { return m_state->stop.stop_requested(); }
    /// Whether the job's work has returned on its thread.
    [[nodiscard]] bool workReturned() const { return m_state->returned.load(); }
    /// Whether its result was delivered, dropped (superseded or cancelled), or neither yet.
    [[nodiscard]] Outcome outcome() const { return m_state->outcome.load(); }
    /// The number of progress reports delivered to the GUI thread.
    [[nodiscard]] int progressDelivered() const { return m_state->progressDelivered.load(); }

   private:
    friend class JobRunner;
    struct State {
      std::stop_source stop;
      std::atomic<bool> returned = false;
      std::atomic<Outcome> outcome = Outcome::Pending;
      std::atomic<int> progressDelivered = 0;
    };
    explicit Watch(std::shared_ptr<State> state) : m_state(std::move(state)) {}
    std::shared_ptr<State> m_state;
  };

  /// Delivers to the thread it is made on.
  JobRunner();
  /// Asks every job to stop and joins them; what they report after is not delivered.
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  /// Starts `work(std::stop_token, const JobProgress&)` in `slot` on a thread of its own, superseding the
  /// slot's earlier jobs (asked to stop, their reports dropped). `handlers` are called on the GUI thread.
  template <class Work>
  Watch start(std::string_view slot, Work work,
              JobHandlers<std::invoke_result_t<Work&, std::stop_token, const JobProgress&>> handlers) {
    return launch(slot, true, erase(std::move(work), std::move(handlers.done), std::move(handlers.failed)),
                  std::move(handlers.progress));
  }
  /// start without superseding: the job joins the slot's current generation, beside its running jobs
  /// (the solvers of one run).
  template <class Work>
  Watch add(std::string_view slot, Work work,
            JobHandlers<std::invoke_result_t<Work&, std::stop_token, const JobProgress&>> handlers) {
    return launch(slot, false, erase(std::move(work), std::move(handlers.done), std::move(handlers.failed)),
                  std::move(handlers.progress));
  }

  /// Asks the slot's current jobs to stop and drops whatever they still report. Never waits for them.
  void cancel(std::string_view slot);
  /// Asks the slot's current jobs to stop but still delivers what they answer (a solver's cancelled
  /// result with the best plan it had). Never waits for them.
  void requestStop(std::string_view slot);
  /// The slot's current jobs whose result has not been delivered yet.
  [[nodiscard]] int running(std::string_view slot) const;
  /// The latest job started in the slot, if any.
  [[nodiscard]] std::optional<Watch> latest(std::string_view slot) const;
  /// Threads not joined yet: running jobs, and superseded or cancelled ones still finishing.
  [[nodiscard]] std::size_t threads() const { return m_jobs.size(); }

 private:
  using Delivery = std::function<void()>;
  using ErasedWork = std::function<Delivery(std::stop_token, const JobProgress&)>;

  struct Slot {
    std::uint64_t generation = 0;
    int running = 0;
    std::optional<Watch> latest;
  };
  struct Job {
    std::uint64_t id = 0;
    std::string slot;
    std::shared_ptr<Watch::State> state;
    std::jthread thread;
  };

  template <class Work, class Result = std::invoke_result_t<Work&, std::stop_token, const JobProgress&>>
  static ErasedWork erase(Work work, std::function<void(Result)> done, std::function<void(const QString&)> failed) {
    static_assert(!std::is_void_v<Result>, "a job returns its result");
    // Runs on the job's thread; what it returns runs on the GUI thread, if the job is still current.
    return [work = std::move(work), done = std::move(done), failed = std::move(failed)](
               std::stop_token stop, const JobProgress& progress) mutable -> Delivery {
      try {
        auto result = std::make_shared<Result>(work(std::move(stop), progress));
        return [done = std::move(done), result] {
          if (done) done(std::move(*result));
        };
      } catch (const std::exception& e) {
        return failure(std::move(failed), QString::fromUtf8(e.what()));
      } catch (...) {
        return failure(std::move(failed), QStringLiteral("unknown error"));
      }
    };
  }
  static Delivery failure(std::function<void(const QString&)> failed, const QString& error);

  Watch launch(std::string_view slot, bool supersede, ErasedWork work,
               std::function<void(double, const QString&)> progress);
  Slot& slotOf(std::string_view slot);
  [[nodiscard]] bool current(std::string_view slot, std::uint64_t generation) const;
  void stopSlot(std::string_view slot);
  /// Joins a job whose last report arrived, and forgets it.
  void ended(std::uint64_t id);

  std::unique_ptr<QObject> m_inbox;  ///< the context of every delivery; lives on the GUI thread
  std::map<std::string, Slot, std::less<>> m_slots;
  std::vector<Job> m_jobs;
  std::uint64_t m_nextId = 0;
};

}  // namespace remat::studio
