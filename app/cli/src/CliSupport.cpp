#include "CliSupport.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "remat/graph/ByteSize.hpp"
#include "remat/graph/CostModel.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/io/GraphReader.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::cli {

LoadedGraph loadGraph(const GraphOptions& options) {
  auto format = io::formatFromName(options.format);
  if (!format)
    throw CliError(kUsage, "unknown graph format '" + options.format + "' (auto, native, pfn, checkmate, onnx)");
  if (options.batch < 0) throw CliError(kUsage, "--batch must be positive");
  io::ReadOptions readOptions;
  if (options.batch > 0) readOptions.batch = options.batch;
  readOptions.batchOnlyForOnnx = options.batchOnlyForOnnx;
  readOptions.asGiven = options.asGiven;
  auto read = io::readGraphFile(options.path, *format, readOptions);
  if (!read.ok()) throw CliError(kInput, read.errorText());
  std::vector<std::string> warnings;
  for (const auto& w : read.warnings()) warnings.push_back(w.toString());
  LoadedGraph out{std::move(read).value(), std::move(warnings)};
  auto costed = graph::applyCostModel(out.graph, options.costModel);
  if (!costed.ok()) throw CliError(kUsage, costed.errorText());
  out.graph = std::move(costed).value();
  const auto models = graph::workspaceModelNames();
  auto withWorkspace = graph::applyWorkspaceModel(out.graph, options.workspace);
  if (!withWorkspace.ok()) {  // an unknown name is the command line's error, a graph the model cannot fill the file's
    if (std::find(models.begin(), models.end(), options.workspace) == models.end())
      throw CliError(kUsage, withWorkspace.errorText());
    throw CliError(kInput, options.path + ": " + withWorkspace.errorText());
  }
  out.graph = std::move(withWorkspace).value();
  if (options.noGraphPins) out.graph = out.graph.withoutPins();
  return out;
}

void addGraphOptions(CLI::App* cmd, GraphOptions& g, const std::string& costModelHelp, bool withBatch) {
  cmd->add_option("--format", g.format, "Input format: auto, native, pfn, checkmate, onnx")->capture_default_str();
  cmd->add_option("--cost-model", g.costModel, costModelHelp)->capture_default_str();
  cmd->add_option("--workspace", g.workspace,
                  "Temporaries inside each step: file (as given), none, or libtorch-cpu (rules measured with "
                  "LibTorch's CPU kernels)")
      ->capture_default_str();
  cmd->add_flag("--as-given", g.asGiven,
                "The file is the whole computation: plan it as given, with no backward pass added (Moccasin's random "
                "layered graphs always are; a Checkmate training graph's backward nodes become operations)");
  cmd->add_flag("--no-graph-pins", g.noGraphPins,
                "Read the graph without the pins it carries (its \"pins\": a captured graph's in-place writes; "
                "docs/pins.md)");
  if (withBatch)
    cmd->add_option("--batch", g.batch, "ONNX input: the batch size (the first dimension of every data input)")
        ->check(positiveBatch());
}

const solvers::Solver& findSolver(const std::string& id) {
  const auto& registry = solvers::SolverRegistry::builtin();
  if (const solvers::Solver* s = registry.find(id)) return *s;
  std::string known;
  for (const auto& k : registry.ids()) known += (known.empty() ? "" : ", ") + k;
  throw CliError(kUsage, "unknown solver '" + id + "' (known: " + known + ")");
}

namespace {

// Why a whole-number option's value is refused; empty when it is fine.
std::string wholeNumberProblem(const std::string& value) {
  std::uint64_t n = 0;
  const char* end = value.data() + value.size();
  const auto [last, error] = std::from_chars(value.data(), end, n);
  const bool digitsOnly = value.find_first_not_of("0123456789") == std::string::npos;
  if (!digitsOnly || error == std::errc::invalid_argument || last != end)
    return "give a whole number, 0 or more, in decimal digits, got '" + value + "'";
  if (error == std::errc::result_out_of_range) return "the number " + value + " is too large";
  if (value.size() > 1 && value.front() == '0') return "write " + std::to_string(n) + " without leading zeros";
  return {};
}

std::string realNumberProblem(const std::string& value) {
  double v = 0;
  const char* end = value.data() + value.size();
  const auto [last, error] = std::from_chars(value.data(), end, v);
  if (error == std::errc::invalid_argument || last != end) return "give a number, got '" + value + "'";
  return {};
}

}  // namespace

void checkEveryValue(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) checkEveryValue(*sub);
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;  // a flag: no value
    option->check(CLI::Validator(
        [](std::string& value) {
          return value.empty() ? std::string("the value is empty: give one, or leave the option out") : std::string();
        },
        ""));
    // The value's type as CLI11 converts it ("UINT", "INT", "FLOAT", "TEXT"), then the checks' names.
    const std::string type = option->get_type_name();
    if (type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0)
      option->check(CLI::Validator([](std::string& value) { return wholeNumberProblem(value); }, ""));
    else if (type.rfind("FLOAT", 0) == 0)
      option->check(CLI::Validator([](std::string& value) { return realNumberProblem(value); }, ""));
  }
}

void checkPoints(std::size_t points) {
  if (points < 2 || points > kMaxPoints)
    throw CliError(kUsage, "--points must be at least 2 and at most " + std::to_string(kMaxPoints) + ", got " +
                               std::to_string(points));
}

const CLI::Validator& givenBudget() {
  static const CLI::Validator kCheck(
      [](std::string& value) {
        return value.empty() ? std::string(
                                   "the budget is empty: give bytes or a size such as 2GiB, or leave the "
                                   "option out for no budget")
                             : std::string();
      },
      "BUDGET");
  return kCheck;
}

const CLI::Validator& positiveBatch() {
  static const CLI::Validator kCheck(
      [](std::string& value) {
        std::int64_t batch = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), batch);
        // Not a number: CLI11's conversion says so.
        if (ec != std::errc{} || end != value.data() + value.size() || batch >= 1) return std::string();
        return "the batch size must be at least 1, got " + value;
      },
      "N");
  return kCheck;
}

std::optional<Bytes> parseBudget(const std::string& text) {
  if (text.empty()) return std::nullopt;
  auto b = parseByteSize(text);
  if (!b)
    throw CliError(kUsage, "invalid budget '" + text + "': give bytes or a size with a unit, such as 512MiB or 2GB");
  if (b->value <= 0) throw CliError(kUsage, "the budget must be positive, got '" + text + "'");
  return b;
}

CLI::Option* addLimitOptions(CLI::App* cmd, LimitOptions& o, const std::string& timeHelp) {
  CLI::Option* time = cmd->add_option("--time-limit", o.timeLimit, timeHelp);
  cmd->add_option("--work-limit", o.workLimit,
                  "Stop after this many units of deterministic work (0: none): the same answer on any machine, "
                  "where a time limit answers by the machine's speed");
  cmd->add_option("--memory-limit", o.memoryLimit,
                  "The most memory a solver may take, such as 8GiB (default: half the machine's memory); a solver "
                  "that needs more stops with status limit")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.empty() ? std::string("the memory limit is empty: give a size such as 8GiB") : std::string();
          },
          "SIZE"));
  return time;
}

void addSeedOption(CLI::App* cmd, LimitOptions& o) {
  cmd->add_option("--seed", o.seed, "Seed of the randomized solvers (fastsa): the same seed gives the same plan")
      ->capture_default_str();
}

std::vector<std::string> listItems(const std::vector<std::string>& values, const std::string& option) {
  std::vector<std::string> items;
  for (const std::string& value : values) {
    std::size_t from = 0;
    while (true) {
      const std::size_t comma = value.find(',', from);
      const std::string item = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (item.empty())
        throw CliError(kUsage, std::string(option)
                                   .append(" has an empty item in '")
                                   .append(value)
                                   .append("': give comma-separated names"));
      items.push_back(item);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return items;
}

CLI::Option* addTotalTimeLimit(CLI::App* cmd, double& seconds, const std::string& help) {
  return cmd->add_option("--total-time-limit", seconds, help);
}

std::optional<std::chrono::milliseconds> parseSecondsLimit(double seconds, const std::string& option) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw CliError(kUsage, option + " must be a number of seconds, 0 or more (0: none)");
  constexpr double kLongest = 1e9;
  if (seconds > 0 && seconds <= kLongest)
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
  return std::nullopt;
}

SolveLimits parseLimits(const LimitOptions& o) {
  if (!std::isfinite(o.timeLimit) || o.timeLimit < 0)
    throw CliError(kUsage, "the time limit must be a number of seconds, 0 or more (0: none)");
  SolveLimits out;
  out.seed = o.seed;
  out.time = parseSecondsLimit(o.timeLimit, "--time-limit");
  if (!o.workLimit.empty()) {
    std::uint64_t units = 0;
    const char* end = o.workLimit.data() + o.workLimit.size();
    const auto [last, error] = std::from_chars(o.workLimit.data(), end, units);
    if (error != std::errc() || last != end)
      throw CliError(kUsage,
                     "invalid work limit '" + o.workLimit + "': give a whole number of units, 0 or more (0: none)");
    if (units > 0) out.work = units;
  }
  if (!o.memoryLimit.empty()) {
    out.memory = parseByteSize(o.memoryLimit);
    if (!out.memory || out.memory->value <= 0)
      throw CliError(kUsage, "invalid memory limit '" + o.memoryLimit + "': give a positive size such as 8GiB");
  }
  return out;
}

void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs) {
  if (auto refused = io::checkOutputPath(path, inputs)) throw CliError(kUsage, refused->message);
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
  if (auto error = io::writeFileAtomically(path, bytes))
    throw CliError(error->kind == io::WriteError::Kind::Target ? kUsage : kInput, error->message);
}

ExitCode exitCodeFor(solvers::CallStatus call, solvers::SolveStatus status) {
  if (call == solvers::CallStatus::Error) return kInternal;
  switch (status) {
    case solvers::SolveStatus::Optimal:
    case solvers::SolveStatus::Feasible:
    case solvers::SolveStatus::Bound: return kOk;
    case solvers::SolveStatus::Infeasible:
    case solvers::SolveStatus::OverBudget:
    case solvers::SolveStatus::TimeLimit:
    case solvers::SolveStatus::Limit:
    case solvers::SolveStatus::Cancelled: return kInfeasible;
    case solvers::SolveStatus::NotSolved: return kInternal;
  }
  return kInternal;
}

solvers::ProgressSink progressBar(const std::string& label) {
  if (!::isatty(STDERR_FILENO)) return {};
  return [label](double fraction, std::string_view stage) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kWidth);
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%% %.*s\033[K", label.c_str(), filled, "##############################",
                 kWidth - filled, "", static_cast<int>(fraction * 100), static_cast<int>(stage.size()), stage.data());
    if (fraction >= 1.0) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  };
}

void printTable(const std::vector<std::vector<std::string>>& cells, const std::string& style,
                std::size_t firstNumberColumn) {
  // Cells may hold names from the graph file: control characters escaped, line breaks too (they would
  // split a row), and in Markdown '|' (it would split a cell).
  std::vector<std::vector<std::string>> rows = cells;
  for (auto& row : rows)
    for (std::string& cell : row) {
      cell = graph::printableText(cell);
      if (style != "markdown") continue;
      for (std::size_t at = cell.find('|'); at != std::string::npos; at = cell.find('|', at + 2)) cell.insert(at, "\\");
    }
  if (style == "csv") {
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        std::string cell = row[c];
        if (cell.find_first_of(",\"\n") != std::string::npos) {
          std::string quoted = "\"";
          for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          cell = quoted + "\"";
        }
        std::cout << (c ? "," : "") << cell;
      }
      std::cout << '\n';
    }
    return;
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& row) {
    std::ostringstream out;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool number = c >= firstNumberColumn;
      const std::string pad(width[c] - row[c].size(), ' ');
      if (style == "markdown")
        out << (c ? " | " : "| ");
      else if (c)
        out << "  ";
      out << (number ? pad + row[c] : row[c] + pad);
    }
    if (style == "markdown") out << " |";
    return out.str();
  };
  std::cout << line(rows.front()) << '\n';
  if (style == "markdown") {
    std::string sep = "|";
    for (std::size_t c = 0; c < width.size(); ++c)
      sep += std::string(width[c] + 1, '-') + (c >= firstNumberColumn ? ":|" : "-|");
    std::cout << sep << '\n';
  } else {
    std::size_t total = 0;
    for (auto w : width) total += w + 2;
    std::cout << std::string(total - 2, '-') << '\n';
  }
  for (std::size_t r = 1; r < rows.size(); ++r) std::cout << line(rows[r]) << '\n';
}

void printJson(const nlohmann::json& j) { std::cout << j.dump(2) << '\n'; }

namespace {

// Why standard output failed, or nullopt. std::cout writes through C's stdout (sync_with_stdio), so one
// fflush sends both, and either's error flag tells of a write that failed earlier.
std::optional<std::string> stdoutProblem() {
  errno = 0;
  std::cout.flush();
  int error = errno;
  if (std::fflush(stdout) != 0 && error == 0) error = errno;
  if (std::cout.good() && std::ferror(stdout) == 0) return std::nullopt;
  return error != 0 ? std::string(std::strerror(error)) : std::string("an earlier write failed");
}

}  // namespace

void flushStdout() {
  if (auto problem = stdoutProblem()) throw OutputError(*problem);
}

std::optional<std::string> closeStdout() {
  if (auto problem = stdoutProblem()) return problem;
  // The descriptor, not the FILE: std::cout still refers to stdout until the program ends. A file system
  // may report a lost write only here (NFS); a descriptor closed from the start (EBADF) lost nothing
  // when nothing was written, which the flush above has seen.
  if (::close(STDOUT_FILENO) != 0 && errno != EBADF) return std::string(std::strerror(errno));
  return std::nullopt;
}

std::string percentText(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";  // a percentage of nothing: never "nan%" or "inf%"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, v);
  return buf;
}

std::string bytesText(std::optional<Bytes> b) {
  if (!b) return "-";
  return formatByteSize(*b) + " (" + std::to_string(b->value) + " bytes)";
}

void addModelOption(CLI::App* cmd, std::string& model) {
  cmd->add_option("--model", model,
                  "Memory model of the DP solvers: simulator (plans fit their budget in the simulator) or paper "
                  "(Kusumoto et al.'s, activations only, to reproduce the paper)")
      ->capture_default_str();
}

void addPinOptions(CLI::App* cmd, PinOptions& o) {
  cmd->add_option("--keep", o.keep, "Pin an operation as keep: never recomputed (repeatable)");
  cmd->add_option("--recompute", o.recompute,
                  "Pin an operation as recompute: never kept past its segment (repeatable)");
  cmd->add_option("--pins", o.file, "Read pins from a JSON file {\"keep\": [names], \"recompute\": [names]}");
}

solvers::Pins parsePins(const PinOptions& o, const graph::ComputeGraph& g) {
  std::vector<std::string> keep;
  std::vector<std::string> recompute;
  solvers::addGraphPinNames(g, keep, recompute);
  keep.insert(keep.end(), o.keep.begin(), o.keep.end());
  recompute.insert(recompute.end(), o.recompute.begin(), o.recompute.end());
  // The command line's names first: a mistake there is a usage error, one in the file bad input. The
  // graph's own pins were checked when it was read, so a conflict here is with the command line's.
  const std::string where =
      g.pinnedKeep().empty() && g.pinnedRecompute().empty()
          ? std::string("--keep/--recompute")
          : std::string("--keep/--recompute and the graph's pins (--no-graph-pins leaves those out)");
  auto named = solvers::pinsFromNames(g, keep, recompute, SourceLocation{where, 0, {}});
  if (!named) throw CliError(kUsage, named.errorText());
  if (o.file.empty()) return std::move(named).value();
  const auto read = solvers::readPinsFile(o.file, keep, recompute);
  if (!read) throw CliError(kInput, read.errorText());
  auto all = solvers::pinsFromNames(g, keep, recompute, SourceLocation{o.file, 0, {}});
  if (!all) throw CliError(kInput, all.errorText());
  return std::move(all).value();
}

solvers::DpModelKind parseModel(const std::string& text) {
  const auto model = solvers::dpModelFromName(text);
  if (!model) throw CliError(kUsage, "unknown --model '" + text + "' (simulator, paper)");
  return *model;
}

}  // namespace remat::cli
