#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <thread>

namespace remat::solvers {

/// When a solve must end, as one object (OR-Tools' TimeLimit is the model): the caller's stop token, a
/// wall-clock deadline, and a limit on deterministic work. A solver counts its work in units at fixed
/// points of its search (a lower set enumerated, a front point visited, a DTR step, a chain cell) with
/// charge(); the same request then stops at the same point on any machine, under any load, which the
/// deadline cannot promise. Tests stop solvers by work; users give seconds; both may be set.
///
/// Stopping is sticky: once the stop token fired, the deadline passed or the work passed its limit,
/// every later check says so. charge() may be called from several threads. A solver whose parallel
/// part stops mid-way keeps only what finished before the parallel part began (a DP layer, a bounds
/// pass), so its answer stays the same whichever thread crossed the limit.
class TimeLimit {
 public:
  using Clock = std::chrono::steady_clock;

  /// No limit at all: only charge()'s count runs.
  TimeLimit() = default;
  /// Starts now: ends when `stop` fires, after `wall` has passed, or once more than `work` units are
  /// charged; an absent limit never ends it.
  TimeLimit(std::stop_token stop, std::optional<Clock::duration> wall, std::optional<std::uint64_t> work);
  ~TimeLimit();
  TimeLimit(const TimeLimit&) = delete;
  TimeLimit& operator=(const TimeLimit&) = delete;

  /// A limit for the first part of a run: `fraction` (0 to 1) of the time and of the work left to
  /// this one, ending also when this one ends; the part's work counts here too. This one must outlive it.
  [[nodiscard]] std::unique_ptr<TimeLimit> part(double fraction);

  /// Counts `units` of work; true when the run must stop now (cancelled, past the deadline, or more
  /// than the work limit charged in all).
  bool charge(std::uint64_t units = 1);
  /// Whether the run must stop, without counting work.
  [[nodiscard]] bool reached() const;
  /// The stop token fired (a cancel, not a limit).
  [[nodiscard]] bool cancelled() const { return m_stop.stop_requested(); }
  /// The deadline passed or the work ran out (whether or not the token fired too).
  [[nodiscard]] bool expired() const;
  /// Units charged so far.
  [[nodiscard]] std::uint64_t work() const { return m_work.load(std::memory_order_relaxed); }

  /// A token that fires when the run must stop, for code that only polls a token: it fires on a cancel,
  /// when charge() passes the work limit, and at the deadline (a timer thread, started by the first
  /// call and stopped with this object).
  [[nodiscard]] std::stop_token token();

 private:
  struct PartOf {
    explicit PartOf(TimeLimit* of) : whole(of) {}
    TimeLimit* whole;
  };
  TimeLimit(PartOf part, std::optional<Clock::time_point> deadline, std::optional<std::uint64_t> work);
  void fire();

  TimeLimit* m_parent = nullptr;
  std::stop_token m_stop;
  std::optional<Clock::time_point> m_deadline;
  std::optional<std::uint64_t> m_workLimit;
  std::atomic<std::uint64_t> m_work{0};
  std::atomic<bool> m_workOut{false};
  std::stop_source m_source;  ///< what token() hands out
  std::optional<std::stop_callback<std::function<void()>>> m_forward;
  std::jthread m_timer;  ///< last: stopped and joined first
};

/// A whole command's time limit, shared by the solves it runs one after another (a sweep's budgets,
/// max-batch's batches, the rows of a comparison, the tasks of a study shard). Each solve is given what is
/// left divided among the solves still to run, so one slow solve cannot take the time of the rest, and a
/// solve that ends early leaves its time to them; never more than the solve's own limit, when it has one.
/// The total is met as closely as each solve meets its own limit. No total: every solve keeps its own
/// limit (none without one).
class SharedTime {
 public:
  using Clock = std::chrono::steady_clock;
  using Millis = std::chrono::milliseconds;

  /// Starts now.
  explicit SharedTime(std::optional<Millis> total) : m_total(total), m_start(Clock::now()) {}

  /// The limit of the next solve, when `solvesLeft` (at least 1, that one included) remain: the time
  /// left divided among them, at most `own`, at least 1 ms; `own` when there is no total.
  [[nodiscard]] std::optional<Millis> next(std::size_t solvesLeft = 1, std::optional<Millis> own = {}) const;
  /// Whether the total is spent (never without one).
  [[nodiscard]] bool spent() const;
  /// The time left (none without a total; zero once spent).
  [[nodiscard]] std::optional<Millis> left() const;
  [[nodiscard]] std::optional<Millis> total() const { return m_total; }

 private:
  std::optional<Millis> m_total;
  Clock::time_point m_start;
};

}  // namespace remat::solvers
