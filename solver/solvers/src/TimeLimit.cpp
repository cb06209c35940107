#include "remat/solvers/TimeLimit.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>

namespace remat::solvers {

TimeLimit::TimeLimit(std::stop_token stop, std::optional<Clock::duration> wall, std::optional<std::uint64_t> work)
    : m_stop(std::move(stop)), m_workLimit(work) {
  if (wall) {
    // A limit too far ahead to add to now() is no limit (time_point would overflow).
    const auto now = Clock::now();
    if (*wall < Clock::time_point::max() - now) m_deadline = now + *wall;
  }
}

TimeLimit::TimeLimit(PartOf part, std::optional<Clock::time_point> deadline, std::optional<std::uint64_t> work)
    : m_parent(part.whole), m_stop(part.whole->m_stop), m_deadline(deadline), m_workLimit(work) {}

TimeLimit::~TimeLimit() = default;

std::unique_ptr<TimeLimit> TimeLimit::part(double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  std::optional<Clock::time_point> deadline;
  if (m_deadline) {
    const auto now = Clock::now();
    const auto left = std::max(Clock::duration::zero(), *m_deadline - now);
    deadline = now + std::chrono::duration_cast<Clock::duration>(left * fraction);
  }
  std::optional<std::uint64_t> work;
  if (m_workLimit) {
    const std::uint64_t left = *m_workLimit - std::min(*m_workLimit, this->work());
    work = static_cast<std::uint64_t>(std::floor(static_cast<double>(left) * fraction));
  }
  return std::unique_ptr<TimeLimit>(new TimeLimit(PartOf{this}, deadline, work));
}

bool TimeLimit::charge(std::uint64_t units) {
  const std::uint64_t total = m_work.fetch_add(units, std::memory_order_relaxed) + units;
  if (m_workLimit && total > *m_workLimit && !m_workOut.exchange(true)) fire();
  if (m_parent && m_parent->charge(units)) return true;
  return reached();
}

bool TimeLimit::expired() const {
  if (m_workOut.load(std::memory_order_relaxed)) return true;
  if (m_deadline && Clock::now() >= *m_deadline) return true;
  return m_parent != nullptr && m_parent->expired();
}

bool TimeLimit::reached() const { return cancelled() || expired(); }

void TimeLimit::fire() { m_source.request_stop(); }

std::stop_token TimeLimit::token() {
  if (!m_forward) {
    // The caller's stop (or the parent's end), forwarded; then the deadline, by a timer thread.
    std::stop_token outer = m_parent != nullptr ? m_parent->token() : m_stop;
    m_forward.emplace(std::move(outer), std::function<void()>([this] { fire(); }));
    if (m_workOut.load()) fire();
    if (m_deadline) {
      const auto deadline = *m_deadline;
      m_timer = std::jthread([this, deadline](std::stop_token self) {
        std::mutex mutex;
        std::condition_variable_any wake;
        std::unique_lock lock(mutex);
        // Returns at the deadline, or early when the destructor stops this thread.
        wake.wait_until(lock, self, deadline, [] { return false; });
        if (!self.stop_requested()) fire();
      });
    }
  }
  return m_source.get_token();
}

std::optional<SharedTime::Millis> SharedTime::left() const {
  if (!m_total) return std::nullopt;
  const auto spent = std::chrono::duration_cast<Millis>(Clock::now() - m_start);
  return spent >= *m_total ? Millis(0) : *m_total - spent;
}

bool SharedTime::spent() const {
  const auto rest = left();
  return rest && rest->count() == 0;
}

std::optional<SharedTime::Millis> SharedTime::next(std::size_t solvesLeft, std::optional<Millis> own) const {
  const auto rest = left();
  if (!rest) return own;
  const auto share = std::max(Millis(1), *rest / static_cast<std::int64_t>(std::max<std::size_t>(solvesLeft, 1)));
  return own ? std::min(*own, share) : share;
}

}  // namespace remat::solvers
