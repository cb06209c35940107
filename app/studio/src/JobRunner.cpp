#include "remat/studio/JobRunner.hpp"

#include <QMetaObject>
#include <QObject>
#include <QtGlobal>

#include <algorithm>

namespace remat::studio {

JobRunner::JobRunner() : m_inbox(std::make_unique<QObject>()) {}

JobRunner::~JobRunner() {
  // Every job is asked first, so that they all wind down together; then each is joined. A job never
  // waits for this thread, so the joins end. The inbox goes last, and with it every report still queued.
  for (Job& job : m_jobs) job.state->stop.request_stop();
  for (Job& job : m_jobs)
    if (job.thread.joinable()) job.thread.join();
  m_jobs.clear();
  m_inbox.reset();
}

JobRunner::Delivery JobRunner::failure(std::function<void(const QString&)> failed, const QString& error) {
  return [failed = std::move(failed), error] {
    if (failed)
      failed(error);
    else
      qWarning("a Studio job failed: %s", qUtf8Printable(error));
  };
}

JobRunner::Slot& JobRunner::slotOf(std::string_view name) {
  if (const auto it = m_slots.find(name); it != m_slots.end()) return it->second;
  return m_slots.emplace(std::string(name), Slot{}).first->second;
}

bool JobRunner::current(std::string_view name, std::uint64_t generation) const {
  const auto it = m_slots.find(name);
  return it != m_slots.end() && it->second.generation == generation;
}

void JobRunner::stopSlot(std::string_view name) {
  for (Job& job : m_jobs)
    if (job.slot == name) job.state->stop.request_stop();
}

JobRunner::Watch JobRunner::launch(std::string_view name, bool supersede, ErasedWork work,
                                   std::function<void(double, const QString&)> progress) {
  Slot& slot = slotOf(name);
  if (supersede) {
    stopSlot(name);
    ++slot.generation;
    slot.running = 0;
  }
  const std::uint64_t generation = slot.generation;
  const std::uint64_t id = ++m_nextId;
  auto state = std::make_shared<Watch::State>();
  auto onProgress = std::make_shared<const std::function<void(double, const QString&)>>(std::move(progress));
  const std::string slotName(name);
  // Called on the job's thread: each report becomes a queued call, delivered while the job is current.
  JobProgress sink = [this, slotName, generation, state, onProgress](double fraction, std::string_view stage) {
    if (!*onProgress) return;
    QMetaObject::invokeMethod(
        m_inbox.get(),
        [this, slotName, generation, state, onProgress, fraction,
         text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()))] {
          if (!current(slotName, generation)) return;
          ++state->progressDelivered;
          (*onProgress)(fraction, text);
        },
        Qt::QueuedConnection);
  };
  Job job;
  job.id = id;
  job.slot = slotName;
  job.state = state;
  job.thread = std::jthread([this, id, slotName, generation, state, work = std::move(work), sink = std::move(sink),
                             stop = state->stop.get_token()]() mutable {
    Delivery delivery = work(stop, sink);
    state->returned = true;
    // The job's last act: the GUI thread joins it on receipt, so that join returns at once.
    QMetaObject::invokeMethod(
        m_inbox.get(),
        [this, id, slotName, generation, state, delivery = std::move(delivery)] {
          ended(id);
          if (!current(slotName, generation)) {
            state->outcome = Outcome::Dropped;
            return;
          }
          --slotOf(slotName).running;
          state->outcome = Outcome::Delivered;
          delivery();
        },
        Qt::QueuedConnection);
  });
  m_jobs.push_back(std::move(job));
  ++slot.running;
  slot.latest = Watch(state);
  return Watch(std::move(state));
}

void JobRunner::ended(std::uint64_t id) {
  const auto it = std::find_if(m_jobs.begin(), m_jobs.end(), [id](const Job& job) { return job.id == id; });
  if (it == m_jobs.end()) return;
  if (it->thread.joinable()) it->thread.join();
  m_jobs.erase(it);
}

void JobRunner::cancel(std::string_view name) {
  const auto it = m_slots.find(name);
  if (it == m_slots.end()) return;
  stopSlot(name);
  ++it->second.generation;
  it->second.running = 0;
}

void JobRunner::requestStop(std::string_view name) {
  const auto it = m_slots.find(name);
  if (it == m_slots.end()) return;
  stopSlot(name);  // older generations were asked already, when they were superseded
}

int JobRunner::running(std::string_view name) const {
  const auto it = m_slots.find(name);
  return it == m_slots.end() ? 0 : it->second.running;
}

std::optional<JobRunner::Watch> JobRunner::latest(std::string_view name) const {
  const auto it = m_slots.find(name);
  return it == m_slots.end() ? std::nullopt : it->second.latest;
}

}  // namespace remat::studio
