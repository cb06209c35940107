#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/solvers/Solver.hpp"

namespace remat::cli {

/// Exit codes (docs/architecture.md section 7). kMeasurement: `profile` and `validate` could not measure, or
/// measured something wrong (no remat-runner, the device unavailable or out of memory, an operation
/// failed on it, gradients that differ from the plain run's).
enum ExitCode : int { kOk = 0, kInfeasible = 1, kUsage = 2, kInput = 3, kInternal = 4, kMeasurement = 5 };

/// A failure that ends the command with a message on stderr and the given exit code.
class CliError : public std::runtime_error {
 public:
  CliError(ExitCode code, const std::string& message) : std::runtime_error(message), m_code(code) {}
  [[nodiscard]] ExitCode code() const { return m_code; }

 private:
  ExitCode m_code;
};

/// Standard output could not be written (a full disk, an I/O error): the command's answer is lost, so
/// the exit code is kInput and the message "error writing standard output: REASON".
class OutputError : public CliError {
 public:
  explicit OutputError(const std::string& reason) : CliError(kInput, "error writing standard output: " + reason) {}
};

/// Flushes standard output (std::cout and C's stdout, which it writes through); throws OutputError when
/// this or an earlier write failed. For output streamed line by line, where a failure must stop the work.
void flushStdout();

/// Flushes and closes standard output at the end of a command; the reason when anything written to it
/// was lost, nullopt when all went out.
[[nodiscard]] std::optional<std::string> closeStdout();

/// Options shared by the commands that read a graph.
struct GraphOptions {
  std::string path;
  std::string format = "auto";
  std::string costModel = "file";
  std::string workspace = "file";  ///< a workspace model (graph/WorkspaceModel.hpp)
  std::int64_t batch = 0;          ///< ONNX only: the batch size; 0 keeps the model's
  bool batchOnlyForOnnx = false;   ///< other formats ignore `batch` instead of refusing it
  bool asGiven = false;            ///< --as-given: the file is the whole computation (io::ReadOptions::asGiven)
  bool noGraphPins = false;        ///< --no-graph-pins: read the graph without the pins it carries
};

/// Adds --format, --cost-model and --workspace for `g` to a command, and --batch unless the command has its own.
void addGraphOptions(CLI::App* cmd, GraphOptions& g,
                     const std::string& costModelHelp =
                         "Times: file (as given), paper, flops or flops:<device> (a100, h100, v100, cpu-generic)",
                     bool withBatch = true);

/// A graph read from a file with its cost model applied, and the reader's warnings.
struct LoadedGraph {
  graph::ComputeGraph graph;
  std::vector<std::string> warnings;
};

/// Reads the graph; unreadable or invalid input throws CliError(kInput) with every error.
[[nodiscard]] LoadedGraph loadGraph(const GraphOptions& options);

/// The registered solver with this id; throws CliError(kUsage) naming the known ids otherwise.
[[nodiscard]] const solvers::Solver& findSolver(const std::string& id);

/// Adds --model to a command: the memory model the DP solvers (and Chen's, which lower their chains
/// the same way) plan with, "simulator" (the default) or "paper".
void addModelOption(CLI::App* cmd, std::string& model);
/// Parses a --model value; throws CliError(kUsage) naming the two models otherwise.
[[nodiscard]] solvers::DpModelKind parseModel(const std::string& text);

/// --keep NODE, --recompute NODE (repeatable) and --pins FILE: operations pinned by hand (docs/pins.md).
struct PinOptions {
  std::vector<std::string> keep;
  std::vector<std::string> recompute;
  std::string file;
};
void addPinOptions(CLI::App* cmd, PinOptions& o);
/// The pins of g: the graph's own (which every solve adds anyway), then the command line's and the
/// file's. An unknown, misplaced or doubly pinned name on the command line (one the graph pins the other
/// way too) throws CliError(kUsage), a pins file that cannot be read or holds one CliError(kInput), each
/// naming it.
[[nodiscard]] solvers::Pins parsePins(const PinOptions& o, const graph::ComputeGraph& g);

/// The most points a front may be thinned to (`sweep --points`, `render --figure pareto --points`): each
/// point may be a solve, and a figure of more is unreadable anyway.
inline constexpr std::size_t kMaxPoints = 10'000;

/// Checks every value of every option of `app` and its subcommands as it is parsed (CLI11's
/// ValidationError naming the option, exit code 2): an empty value is refused (`-o ""` would read as no
/// output at all, `--time-limit ""` as none); a whole-number option takes decimal digits only, with no
/// sign, no leading zero (CLI11 would read 010 as octal 8 and -1 as 2^64 - 1) and nothing after them,
/// within 64 bits; a real-number option takes a number and nothing after it. Ranges are each option's own.
void checkEveryValue(CLI::App& app);

/// --points N of a front: at least 2, at most kMaxPoints; throws CliError(kUsage) naming the value.
void checkPoints(std::size_t points);

/// The check every --budget option carries: an empty value is a usage error, where parseBudget would read
/// it as no budget at all (leaving the option out says that).
[[nodiscard]] const CLI::Validator& givenBudget();

/// The check of every --batch option: 0 or less is a usage error (0 would silently keep the graph's own
/// batch size).
[[nodiscard]] const CLI::Validator& positiveBatch();

/// Parses "2GiB"-style budgets; throws CliError(kUsage) on a bad or non-positive value.
[[nodiscard]] std::optional<Bytes> parseBudget(const std::string& text);

/// The limits every solving command takes: --time-limit (seconds, 0: none), --work-limit (units of
/// deterministic work, 0: none; SolveRequest::workLimit) and --memory-limit (a size; none:
/// solvers::defaultMemoryLimit(), half the machine's memory).
struct LimitOptions {
  double timeLimit = 0;
  std::string workLimit;
  std::string memoryLimit;
  std::uint64_t seed = 0;  ///< --seed, where addSeedOption gave the command one
};
/// Adds --time-limit (with `timeHelp`), --work-limit and --memory-limit to cmd; returns the --time-limit
/// option.
CLI::Option* addLimitOptions(CLI::App* cmd, LimitOptions& o,
                             const std::string& timeHelp = "Stop after this many seconds (0: none)");
/// Adds --seed (SolveRequest::seed: the randomized solvers' seed, fastsa's) to cmd.
void addSeedOption(CLI::App* cmd, LimitOptions& o);
/// The limits as the solvers take them, with the seed.
struct SolveLimits {
  std::optional<std::chrono::milliseconds> time;
  std::optional<std::uint64_t> work;
  std::optional<Bytes> memory;
  std::uint64_t seed = 0;
  void applyTo(solvers::SolveRequest& request) const {
    request.timeLimit = time;
    request.workLimit = work;
    request.memoryLimit = memory;
    request.seed = seed;
  }
};
/// Checks the limits (a time limit must be a finite number of seconds, at least 0; a memory limit a
/// positive size; a work limit a whole number, at least 0); throws CliError(kUsage) naming a bad value. A time limit
/// over 10^9 s (some 31 years) stands for no limit, so that a deadline never overflows the clock.
[[nodiscard]] SolveLimits parseLimits(const LimitOptions& o);

/// The items of a comma-separated list option (`--solvers a,b --solvers c`: a, b, c). An empty item
/// (`a,,b`, a trailing comma, an empty value) is a usage error naming the option, where CLI11's own
/// splitting would drop it silently.
[[nodiscard]] std::vector<std::string> listItems(const std::vector<std::string>& values, const std::string& option);

/// `--total-time-limit`: the whole command's time, where `--time-limit` is each solve's (compare, study).
CLI::Option* addTotalTimeLimit(CLI::App* cmd, double& seconds, const std::string& help);
/// A number of seconds as a limit: none for 0 (or over 10^9 s); throws CliError(kUsage) naming `option`
/// for a negative or non-finite value.
[[nodiscard]] std::optional<std::chrono::milliseconds> parseSecondsLimit(double seconds, const std::string& option);

/// Refuses an output path before any work: one that is an input (same file, by device and inode) or
/// not a regular file (a directory, device, FIFO or socket) throws CliError(kUsage) naming it.
void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs);

/// Writes a file whole or not at all (io::writeFileAtomically). Throws CliError naming the path: kUsage
/// for a target that is not a regular file, kInput when the write fails (no such folder, disk full).
void writeFileAtomically(const std::string& path, std::string_view bytes);

/// The exit code an answer maps to: kInternal when the call failed, else by the answer's status.
[[nodiscard]] ExitCode exitCodeFor(solvers::CallStatus call, solvers::SolveStatus status);
template <class Answer>
[[nodiscard]] ExitCode exitCodeFor(const Answer& a) {
  return exitCodeFor(a.call, a.status);
}

/// An answer's two statuses in JSON: "call" ("ok", or "error" when the call failed: the message says
/// why) and "status" (the answer's: "optimal", ..., "not-solved" when the call failed).
template <class Answer>
void putStatus(nlohmann::json& j, const Answer& a) {
  j["call"] = std::string(solvers::callStatusName(a.call));
  j["status"] = std::string(solvers::statusName(a.status));
}

/// A progress bar on stderr when stderr is a terminal; a no-op sink otherwise.
[[nodiscard]] solvers::ProgressSink progressBar(const std::string& label);

/// Prints JSON to stdout, indented.
void printJson(const nlohmann::json& j);

/// Prints rows (the first is the header) as an aligned text table, a Markdown table or CSV; columns from
/// `firstNumberColumn` on are right-aligned.
void printTable(const std::vector<std::vector<std::string>>& rows, const std::string& style,
                std::size_t firstNumberColumn = 2);

/// "12.5%": a percentage with `decimals` digits after the point; "n/a" for NaN or an infinity.
[[nodiscard]] std::string percentText(double v, int decimals = 1);

/// "12.3 MiB (12897484 bytes)" or "-" when absent.
[[nodiscard]] std::string bytesText(std::optional<Bytes> b);

}  // namespace remat::cli
