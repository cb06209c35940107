#include "remat/runtime/RunnerProcess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "remat/runtime/ValidationError.hpp"

extern char** environ;

namespace remat::runtime {

namespace fs = std::filesystem;

namespace {

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

RunnerResult runRunner(const std::string& runner, const std::vector<std::string>& args, const std::string& stderrFile) {
  std::vector<std::string> argvText;
  argvText.push_back(runner);
  argvText.insert(argvText.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argvText) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, runner.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw ValidationError(ValidationFailure::Measurement, "cannot start " + runner + ": " + std::strerror(spawned));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw ValidationError(ValidationFailure::Measurement,
                            "lost the runner process " + std::to_string(pid) + ": " + std::strerror(errno));
  }
  RunnerResult r;
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.stderrText = slurp(stderrFile);
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
  if (!errors.empty()) {
    for (const auto& e : errors) out += (out.empty() ? "" : "\n") + e;
  } else {
    const std::size_t from = lines.size() > 5 ? lines.size() - 5 : 0;
    for (std::size_t k = from; k < lines.size(); ++k) out += (out.empty() ? "" : "\n") + lines[k];
    if (out.empty()) out = "(it printed nothing)";
  }
  for (const auto& [from, to] : renames) replaceAll(out, from, to);
  return out;
}

void throwIfFailed(const RunnerResult& r, const std::string& what, const std::string& device,
                   const std::vector<std::pair<std::string, std::string>>& renames) {
  if (r.exitCode == 0) return;
  const std::string said = runnerMessage(r.stderrText, renames);
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

}  // namespace remat::runtime
