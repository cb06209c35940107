#include "remat/runtime/RunnerProcess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "remat/io/Interruption.hpp"
#include "remat/runtime/MeasuredRun.hpp"
#include "remat/runtime/ValidationError.hpp"

extern char** environ;

namespace remat::runtime {

namespace fs = std::filesystem;

namespace {

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// The last `cap` bytes of a file (a runner may print hundreds of megabytes before it fails), from the
// start of a line when the cut falls inside one.
std::string tail(const std::string& path, std::uintmax_t cap) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(cap) ? size - static_cast<std::streamoff>(cap) : 0;
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (from > 0) {
    const std::size_t newline = text.find('\n');
    text = "[... " + std::to_string(from) + " bytes before]\n" +
           (newline == std::string::npos ? text : text.substr(newline + 1));
  }
  return text;
}

// Whether the child has ended (reaped into `status`).
bool reaped(pid_t pid, int& status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r == 0) return false;
    if (errno != EINTR)
      throw ValidationError(ValidationFailure::Measurement,
                            "lost the runner process " + std::to_string(pid) + ": " + std::strerror(errno));
  }
}

// Stops the child's process group: SIGTERM, two seconds to end, then SIGKILL; reaps the child.
int stopGroup(pid_t pid) {
  int status = 0;
  ::kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!reaped(pid, status)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);  // whatever it started in its group goes with it
  return status;
}

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

void checkMeasureOptions(const MeasureOptions& o) {
  if (o.iterations < 1) throw ValidationError(ValidationFailure::Usage, "--iterations must be at least 1");
  if (o.warmup < 0) throw ValidationError(ValidationFailure::Usage, "--warmup must not be negative");
  if (o.threads < 0) throw ValidationError(ValidationFailure::Usage, "--threads must not be negative");
  const std::string& d = o.device;
  bool ok = d == "cpu" || d == "cuda";
  if (!ok && d.rfind("cuda:", 0) == 0 && d.size() > 5) ok = d.find_first_not_of("0123456789", 5) == std::string::npos;
  if (!ok) throw ValidationError(ValidationFailure::Usage, "unknown device '" + d + "' (cpu, cuda or cuda:N)");
}

std::string findRunner(const std::string& explicitPath) {
  if (!explicitPath.empty()) {
    if (!isExecutableFile(explicitPath))
      throw ValidationError(
          ValidationFailure::Input,
          "--runner " + explicitPath + ": " + (fs::exists(explicitPath) ? "not an executable file" : "no such file"));
    return explicitPath;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "remat-runner";
    if (isExecutableFile(beside)) return beside.string();
  }
  throw ValidationError(ValidationFailure::Measurement,
                        "remat-runner was not built: LibTorch was not found when configuring; install "
                        "libtorch-dev (scripts/install-deps.sh) and rebuild, or pass --runner PATH (a runner "
                        "built from runtime/ alone, see runtime/README.md)");
}

std::optional<std::chrono::milliseconds> callTimeout(const MeasureOptions& options) {
  if (!options.deadline) return options.timeout;
  const auto left = std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                               *options.deadline - std::chrono::steady_clock::now()));
  return options.timeout ? std::min(*options.timeout, left) : left;
}

RunnerResult runRunner(const std::string& runner, const std::vector<std::string>& args, const std::string& stderrFile,
                       std::optional<std::chrono::milliseconds> timeout) {
  std::vector<std::string> argvText;
  argvText.push_back(runner);
  argvText.insert(argvText.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argvText.size() + 1);
  for (std::string& a : argvText) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // A process group of its own, so that a deadline or a stop ends it and whatever it started; the stop
  // signals, which remat handles on a thread of its own (io::stopCleanlyOnSignals), unblocked again.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigset_t stops;
  sigemptyset(&none);
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &stops);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, runner.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0)
    throw ValidationError(ValidationFailure::Measurement, "cannot start " + runner + ": " + std::strerror(spawned));
  const io::ChildGroup group(pid);  // terminated if remat is stopped meanwhile

  RunnerResult r;
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  while (!reaped(pid, status)) {
    if (io::interrupted()) io::awaitInterruption();  // the stop's cleanup ends the group and remat
    if (timeout && std::chrono::steady_clock::now() - start >= *timeout) {
      status = stopGroup(pid);
      r.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.stderrText = tail(stderrFile, kStderrTailBytes);
  return r;
}

std::string runnerMessage(const std::string& stderrText,
                          const std::vector<std::pair<std::string, std::string>>& renames) {
  std::vector<std::string> lines;
  std::vector<std::string> errors;
  std::istringstream in(stderrText);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    lines.push_back(line);
    for (const char* prefix : {"remat-runner: error: ", "remat-runner: internal error: "})
      if (line.rfind(prefix, 0) == 0) errors.push_back(line.substr(std::strlen(prefix)));
  }
  std::string out;
  // At most the last ten error lines, each cut at 1,000 bytes: a runner may repeat itself endlessly.
  auto cut = [](const std::string& line) { return line.size() > 1000 ? line.substr(0, 1000) + " [...]" : line; };
  if (!errors.empty()) {
    for (std::size_t k = errors.size() > 10 ? errors.size() - 10 : 0; k < errors.size(); ++k)
      out += (out.empty() ? "" : "\n") + cut(errors[k]);
  } else {
    const std::size_t from = lines.size() > 5 ? lines.size() - 5 : 0;
    for (std::size_t k = from; k < lines.size(); ++k) out += (out.empty() ? "" : "\n") + cut(lines[k]);
    if (out.empty()) out = "(it printed nothing)";
  }
  for (const auto& [from, to] : renames) replaceAll(out, from, to);
  return out;
}

void throwIfFailed(const RunnerResult& r, const std::string& what, const std::string& device,
                   const std::vector<std::pair<std::string, std::string>>& renames) {
  if (r.exitCode == 0 && !r.timedOut) return;
  const std::string said = runnerMessage(r.stderrText, renames);
  if (r.timedOut)
    throw ValidationError(ValidationFailure::Measurement, "remat-runner did not finish " + what + " on " + device +
                                                              " within its deadline (" +
                                                              "--runner-timeout, or what was left of --time-limit); it "
                                                              "was stopped with its process group. It printed last:\n" +
                                                              said);
  if (r.signal != 0) {
    std::string why = "remat-runner was killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) +
                      ") while running " + what + " on " + device;
    if (r.signal == SIGKILL) why += "; the kernel's out-of-memory killer ends processes so (host memory exhausted?)";
    throw ValidationError(ValidationFailure::Measurement, why + "\n" + said);
  }
  const std::string head = "remat-runner failed on " + what + " (exit code " + std::to_string(r.exitCode) + ", ";
  switch (r.exitCode) {
    case 1:
      throw ValidationError(ValidationFailure::Measurement,
                            head + "the parameter gradients differ from the plain run's): " + said);
    case 3: throw ValidationError(ValidationFailure::Input, head + "input error): " + said);
    case 5: throw ValidationError(ValidationFailure::Input, head + "the plan is for another graph): " + said);
    case 6: throw ValidationError(ValidationFailure::Input, head + "the schedule cannot be played): " + said);
    case 7: throw ValidationError(ValidationFailure::Input, head + "an operation it cannot execute): " + said);
    case 8: throw ValidationError(ValidationFailure::Measurement, head + "execution error): " + said);
    case 9:
      throw ValidationError(ValidationFailure::Measurement,
                            head + "the device " + device + " is not available): " + said);
    case 10:
      throw ValidationError(ValidationFailure::Measurement,
                            head + "out of memory on " + device + "; try a smaller batch or budget): " + said);
    case 2:
    case 4:
    default:
      throw ValidationError(ValidationFailure::Internal,
                            head + (r.exitCode == 2 ? "usage error" : "internal error") + "): " + said);
  }
}

MeasuredRun readRunnerMeasurement(const std::string& path, const RunnerResult& result, const std::string& what,
                                  const std::vector<std::pair<std::string, std::string>>& renames) {
  try {
    return readMeasuredRun(path);
  } catch (const ValidationError& e) {
    std::string why = e.what();
    for (const auto& [from, to] : renames) replaceAll(why, from, to);
    throw ValidationError(ValidationFailure::Measurement,
                          "remat-runner ended with exit code " + std::to_string(result.exitCode) + " on " + what +
                              " but left no usable measurement (" + why + "). It printed last:\n" +
                              runnerMessage(result.stderrText, renames));
  }
}

}  // namespace remat::runtime
