#include "remat/solvers/Isolated.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <utility>

#include "remat/io/Interruption.hpp"

namespace remat::solvers {
namespace {

// Writes all of data to fd (the child's end of the pipe); false when the parent is gone.
bool writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A message framed for the parent: a tag ('R' result, 'E' error), its length (8 bytes), the bytes.
bool send(int fd, char tag, const std::string& payload) {
  const std::uint64_t size = payload.size();
  char header[1 + sizeof size];
  header[0] = tag;
  std::memcpy(header + 1, &size, sizeof size);
  return writeAll(fd, header, sizeof header) && writeAll(fd, payload.data(), payload.size());
}

// Runs work: ('R', its answer), or ('E', why) when it throws ("out of memory" for std::bad_alloc).
std::pair<char, std::string> attempt(const std::function<std::string()>& work) {
  try {
    return {'R', work()};
  } catch (const std::bad_alloc&) {
    return {'E', "out of memory"};
  } catch (const std::exception& e) {
    return {'E', e.what()};
  } catch (...) {
    return {'E', "unknown exception"};
  }
}

// What an attempt that ended with ('E', why) means.
IsolatedOutcome::Kind errorKind(const std::string& why) {
  return why == "out of memory" ? IsolatedOutcome::Kind::MemoryLimit : IsolatedOutcome::Kind::Failed;
}

[[noreturn]] void childMain(int fd, const std::function<std::string()>& work) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the parent gone, nobody wants the answer
#endif
  const auto [tag, payload] = attempt(work);
  ::_exit(send(fd, tag, payload) ? 0 : 1);
}

// The resident set of process pid in bytes, or -1 when /proc does not say.
std::int64_t residentBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  long long size = 0;
  long long resident = 0;
  if (!(statm >> size >> resident)) return -1;
  return resident * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

std::string exitReason(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "the solver process died of signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  if (WIFEXITED(status)) return "the solver process exited with status " + std::to_string(WEXITSTATUS(status));
  return "the solver process ended abnormally";
}

// AddressSanitizer's allocator (clang 14's, at least) is not fork-safe: a child forked while another
// thread holds one of its locks waits on it forever (seen in Studio's tests, whose GUI thread allocates
// while a worker thread forks). glibc's malloc takes its locks around fork, so other builds fork always.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kForkNeedsOneThread = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kForkNeedsOneThread = true;
#else
constexpr bool kForkNeedsOneThread = false;
#endif
#else
constexpr bool kForkNeedsOneThread = false;
#endif

// The threads of this process, from /proc (1 where it does not say).
int processThreads() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "Threads:") {
      int n = 1;
      status >> n;
      return n;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 1;
}

}  // namespace

IsolatedOutcome runIsolated(const std::function<std::string()>& work,
                            std::optional<std::chrono::steady_clock::time_point> deadline,
                            std::optional<std::int64_t> memoryLimit, std::stop_token stop) {
  IsolatedOutcome out;
  if (kForkNeedsOneThread && processThreads() - io::idleSignalThreads() > 1) {
    // In-process, without the deadline or the memory cap (sanitizer builds only; see above).
    auto [tag, payload] = attempt(work);
    if (tag == 'R') {
      out.kind = IsolatedOutcome::Kind::Finished;
      out.bytes = std::move(payload);
    } else {
      out.kind = errorKind(payload);
      out.why = std::move(payload);
    }
    return out;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.why = std::string("cannot create a pipe for the solver process: ") + std::strerror(errno);
    return out;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    out.why = std::string("cannot start the solver process: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], work);
  }
  ::close(fds[1]);
  const int fd = fds[0];
  std::string received;
  bool eof = false;
  auto stopChild = [&](IsolatedOutcome::Kind kind) {
    ::kill(pid, SIGKILL);
    out.kind = kind;
  };
  bool stopped = false;
  // Sampled every 20 ms: the deadline and the memory cap hold within that, and the samples cost little
  // (a read of /proc per sample).
  constexpr int kPeriodMs = 20;
  while (!eof) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPeriodMs);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      char buffer[1 << 16];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0)
        received.append(buffer, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR)
        eof = true;
    }
    if (eof) break;
    if (stop.stop_requested()) {
      stopChild(IsolatedOutcome::Kind::Cancelled);
      stopped = true;
      break;
    }
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      stopChild(IsolatedOutcome::Kind::Deadline);
      stopped = true;
      break;
    }
    const std::int64_t resident = residentBytes(pid);
    out.peakResident = std::max(out.peakResident, resident);
    if (memoryLimit && resident > *memoryLimit) {
      stopChild(IsolatedOutcome::Kind::MemoryLimit);
      stopped = true;
      break;
    }
  }
  ::close(fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stopped) return out;
  constexpr std::size_t kHeader = 1 + sizeof(std::uint64_t);
  std::uint64_t size = 0;
  if (received.size() >= kHeader) std::memcpy(&size, received.data() + 1, sizeof size);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || received.size() < kHeader ||
      received.size() - kHeader != size) {
    out.kind = IsolatedOutcome::Kind::Failed;
    out.why = exitReason(status);
    return out;
  }
  if (received[0] == 'E') {
    out.why = received.substr(kHeader);
    out.kind = errorKind(out.why);
    return out;
  }
  out.kind = IsolatedOutcome::Kind::Finished;
  out.bytes = received.substr(kHeader);
  return out;
}

std::int64_t defaultMemoryLimit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return std::int64_t{4} << 30;
  return static_cast<std::int64_t>(pages) * pageSize / 2;
}

}  // namespace remat::solvers
