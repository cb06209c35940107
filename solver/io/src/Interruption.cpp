#include "remat/io/Interruption.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>
#include <utility>

namespace remat::io {

namespace {

struct Registry {
  std::mutex mutex;
  std::uint64_t next = 1;
  std::map<std::uint64_t, std::string> temporaries;
  std::map<std::uint64_t, pid_t> groups;
};

Registry& registry() {
  static Registry* const kRegistry = new Registry;  // never destroyed: the cleanup thread may outlive main
  return *kRegistry;
}

std::atomic<int> g_signal{0};
std::atomic<int> g_waiting{0};  // signal threads waiting in sigwait
std::string* g_program = nullptr;

void say(const std::string& text) {
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

bool anyGroupAlive(const std::map<std::uint64_t, pid_t>& groups) {
  for (const auto& [id, group] : groups)
    if (::kill(-group, 0) == 0) return true;
  return false;
}

[[noreturn]] void cleanUpAndExit(int sig) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);  // waits for a rename in progress
  for (const auto& [id, group] : r.groups) ::kill(-group, SIGTERM);
  // The owners reap their children; a group whose leader is a zombie still answers kill(0), so the
  // wait is bounded rather than exact.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (anyGroupAlive(r.groups) && std::chrono::steady_clock::now() < deadline) {
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    lock.lock();
  }
  for (const auto& [id, group] : r.groups) ::kill(-group, SIGKILL);
  for (const auto& [id, path] : r.temporaries) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  // On a line of its own, after a progress bar's.
  say(std::string(::isatty(STDERR_FILENO) ? "\n" : "") + (g_program ? *g_program : std::string("remat")) +
      ": interrupted by " +
      (sig == SIGINT    ? "SIGINT"
       : sig == SIGTERM ? "SIGTERM"
                        : "signal " + std::to_string(sig)) +
      "\n");
  ::_exit(128 + sig);
}

// SIGINT and SIGTERM, less one the process was started with ignored (a background job of a
// non-interactive shell ignores SIGINT, so that Ctrl+C in the terminal is not meant for it).
sigset_t stopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) continue;
    sigaddset(&set, sig);
  }
  return set;
}

}  // namespace

void stopCleanlyOnSignals(std::string_view program) {
  static std::once_flag once;
  std::call_once(once, [program] {
    g_program = new std::string(program);
    const sigset_t set = stopSignals();
    if (sigismember(&set, SIGINT) != 1 && sigismember(&set, SIGTERM) != 1) return;  // both ignored: nothing to do
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    g_waiting = 1;
    std::thread([set] {
      int sig = 0;
      while (::sigwait(&set, &sig) != 0) {
      }
      g_waiting = 0;
      g_signal = sig;
      // A second signal while cleaning up ends the process at once, with its own status.
      std::thread([set] {
        int again = 0;
        while (::sigwait(&set, &again) != 0) {
        }
        ::_exit(128 + again);
      }).detach();
      cleanUpAndExit(sig);
    }).detach();
  });
}

bool interrupted() { return g_signal.load() != 0; }

int idleSignalThreads() { return g_waiting.load(); }

void awaitInterruption() {
  while (interrupted()) std::this_thread::sleep_for(std::chrono::seconds(1));
}

TemporaryPath::TemporaryPath(std::string path) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  m_id = r.next++;
  r.temporaries.emplace(m_id, std::move(path));
}

TemporaryPath::~TemporaryPath() { release(); }

void TemporaryPath::release() {
  if (m_id == 0) return;
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.temporaries.erase(m_id);
  m_id = 0;
}

ChildGroup::ChildGroup(pid_t group) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  m_id = r.next++;
  r.groups.emplace(m_id, group);
}

ChildGroup::~ChildGroup() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.groups.erase(m_id);
}

std::unique_lock<std::mutex> holdCleanup() { return std::unique_lock(registry().mutex); }

}  // namespace remat::io
