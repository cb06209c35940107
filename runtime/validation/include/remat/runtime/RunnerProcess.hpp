#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat::runtime {

struct MeasuredRun;

/// How remat-runner is to measure: which program, on which device, how many iterations.
struct MeasureOptions {
  std::string runner;  ///< the remat-runner program (findRunner)
  std::string device = "cpu";
  int warmup = 2;
  int iterations = 3;
  std::uint64_t seed = 0;
  int threads = 0;             ///< intra-op CPU threads; 0 keeps LibTorch's default
  bool checkGradients = true;  ///< compare every plan's parameter gradients with the plain run's
  /// Each runner call's deadline: past it the runner is stopped with its process group. None: no deadline.
  std::optional<std::chrono::milliseconds> timeout;
  /// The whole command's deadline (`--time-limit`): no runner call runs past it, whatever `timeout` says.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// The deadline of a runner call starting now: `timeout`, cut to what is left before `deadline` (at least
/// 1 ms, so a call past it is stopped at once and reported as timed out).
[[nodiscard]] std::optional<std::chrono::milliseconds> callTimeout(const MeasureOptions& options);

/// Throws ValidationError(Usage) on option values the runner would refuse (iterations < 1, warmup < 0,
/// threads < 0, a device other than cpu, cuda, cuda:N).
void checkMeasureOptions(const MeasureOptions& options);

/// Where remat-runner is. With `explicitPath` (`--runner`), that file, which must exist and be executable
/// (ValidationError(Input) otherwise). Without it, `remat-runner` in the folder of the running program
/// (/proc/self/exe), as the build puts both into bin/; when it is not there, ValidationError(Measurement)
/// saying that the runner was not built because LibTorch was not found, and how to get it.
[[nodiscard]] std::string findRunner(const std::string& explicitPath);

/// What a finished runner process left: its exit status (or the signal that ended it) and its stderr.
struct RunnerResult {
  int exitCode = -1;  ///< -1 when a signal ended it
  int signal = 0;
  bool timedOut = false;   ///< stopped at its deadline
  std::string stderrText;  ///< the last kStderrTailBytes of it
};
/// How much of the runner's stderr is read back.
constexpr std::uintmax_t kStderrTailBytes = std::uintmax_t{64} << 10;

/// Runs `runner` with `args` as a child process (posix_spawn, no shell) in a process group of its own:
/// stdin and stdout on /dev/null, stderr into `stderrFile`, whose last kStderrTailBytes are read back.
/// Past `timeout` the group gets SIGTERM, two seconds later SIGKILL (RunnerResult::timedOut). When remat
/// is stopped meanwhile (io::interrupted), the group is stopped with it. Throws ValidationError
/// (Measurement) when it cannot start.
[[nodiscard]] RunnerResult runRunner(const std::string& runner, const std::vector<std::string>& args,
                                     const std::string& stderrFile,
                                     std::optional<std::chrono::milliseconds> timeout = std::nullopt);

/// The runner's own error line(s) from its stderr ("remat-runner: error: ..."), with the temporary paths
/// in `renames` replaced by what the user knows them as; the last lines of stderr when it has none.
[[nodiscard]] std::string runnerMessage(const std::string& stderrText,
                                        const std::vector<std::pair<std::string, std::string>>& renames);

/// Throws the ValidationError a failed run maps to (runtime/README.md: 1 gradients differ, 3 input, 5 plan
/// for another graph, 6 schedule cannot be played, 7 unsupported operation, 8 execution error, 9 device not
/// available, 10 out of memory; a signal, e.g. the kernel's out-of-memory killer). `what` names the run
/// ("the approx-dp plan"). Does nothing when the run succeeded.
void throwIfFailed(const RunnerResult& result, const std::string& what, const std::string& device,
                   const std::vector<std::pair<std::string, std::string>>& renames);

/// The measurement a finished run wrote to `path` (readMeasuredRun). A runner that said it succeeded
/// but left no file, a cut one or garbage failed as a measurement (ValidationError(Measurement), exit
/// code 5), not as the user's input: the message says so, with what the runner printed last.
[[nodiscard]] MeasuredRun readRunnerMeasurement(const std::string& path, const RunnerResult& result,
                                                const std::string& what,
                                                const std::vector<std::pair<std::string, std::string>>& renames);

}  // namespace remat::runtime
