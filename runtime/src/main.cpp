// remat-runner: plays a plan's schedule with real tensors and measures it (docs/architecture.md section 6).

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <torch/version.h>

#include "remat/runtime/Measurement.hpp"
#include "remat/runtime/Player.hpp"
#include "remat/runtime/RunnerError.hpp"

namespace {

using remat::runtime::ExitCode;
using remat::runtime::RunnerError;

constexpr std::string_view kHelp = R"(remat-runner: play a Remat plan with real tensors on LibTorch and measure it

Usage:
  remat-runner GRAPH.json --plan PLAN.json [options] [-o MEASUREMENT.json]
  remat-runner GRAPH.json --baseline       [options] [-o MEASUREMENT.json]

GRAPH.json is a native Remat graph (remat convert writes one from ONNX) with shapes, dtypes, saves and
attrs; PLAN.json a plan written by `remat solve GRAPH -o PLAN.json` for that graph. Parameters and inputs
get seeded random values. With --plan the schedule is played step by step: fwd runs the operation (a
second fwd of a node recomputes it), bwd runs that operation's own backward, free/free-grad drop the
tensor, and with liveness (the default, as in the simulator) every value and gradient is dropped right
after its last use. --baseline runs the plain framework: every operation forward under autograd, then
backward().

Options:
  --plan FILE          the plan to play
  --baseline           run the plain forward and backward() instead of a plan
  --device DEV         cpu (default), cuda or cuda:N (only when built with a CUDA LibTorch)
  --seed N             seed of parameters, inputs and dropout masks (default 0)
  --warmup N           iterations run before measuring (default 2: the first settles lazy
                       initialization, the second the C library's heap); on the CPU with the
                       heap kept, up to 8 more while the last one page-faulted 1 MiB or more
  --iterations N       measured iterations, at least 1 (default 3); step times are their medians
  --check-grads        also run the baseline (same seed) and compare every parameter gradient
  --grads-ref FILE     compare the parameter gradients with a file written by --grads-out
  --grads-out FILE     save the parameter gradients (a dict name -> tensor; Python's torch.load reads it)
  --rtol X, --atol X   gradient tolerance: |a - b| <= atol + rtol |b| element-wise (default 1e-4, 1e-6)
  --no-liveness        free only what the schedule states (as `remat solve --no-liveness` simulates)
  --threads N          intra-op CPU threads (default: LibTorch's)
  --return-memory      on the CPU, leave the C library's defaults, which hand large freed blocks back
                       to the system, so that the next tensor of that size page-faults its memory in
                       again (by default freed memory is kept for reuse: the measurement's cpu_heap)
  --dry-run            check the graph, plan and schedule, run nothing
  -o, --output FILE    write the measurement JSON ("format": "remat-measurement"); it is written to a
                       temporary file and renamed, so a failed run leaves no file
  -h, --help           this text
  --version            the version and LibTorch build

Measurement: per step the live tensor storage (each storage counted once) during the step (its outputs
allocated, nothing freed) and after its frees, split as the simulator splits memory (params,
param_grads, inputs, values, recomputed, grads; workspace is not in the tables and is null), the storage
only zero-byte views hold (*_view_alias; the simulator counts views as 0 bytes), the median step time,
the per-iteration times, the process's minor page faults over the measured iterations (page_faults;
null where the kernel does not count them), on
the CPU what the C library did with freed memory (cpu_heap: kept, returned or default), on CUDA the
caching allocator's peak and reserved bytes, and the gradient check.

Exit codes:
  0  success
  1  the gradient check failed (the measurement is still written)
  2  usage error (bad command line)
  3  input error: a file is missing, unreadable, not JSON, or not a valid graph or plan
  4  internal error
  5  the plan is for another graph (its graph name, or a node the graph does not have)
  6  the schedule cannot be played (an illegal step, or it ends early; the message gives the step)
  7  an operation the runner cannot execute ("node X: op Y is not supported by remat-runner")
  8  execution error: an operation failed, or its output differs from the graph's shape and size
  9  the device is not available
  10 the device ran out of memory (CUDA's c10::OutOfMemoryError, or a failed CPU allocation); the message
     names the step or the phase (parameters and inputs, baseline, gradient check) where it happened
)";

struct Cli {
  remat::runtime::RunOptions run;
  bool baseline = false;
  bool dryRun = false;
  std::string output;
};

long long parseInteger(const std::string& option, const std::string& text, long long lo) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < lo)
    throw RunnerError(ExitCode::Usage,
                      option + ": expected an integer >= " + std::to_string(lo) + ", got '" + text + "'");
  return value;
}

double parseReal(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !(value >= 0))
    throw RunnerError(ExitCode::Usage, option + ": expected a number >= 0, got '" + text + "'");
  return value;
}

// Returns nullopt-like empty graph file when --help or --version was handled.
bool parse(int argc, char** argv, Cli& cli) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw RunnerError(ExitCode::Usage, a + ": needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kHelp;
      return false;
    }
    if (a == "--version") {
      std::cout << "remat-runner 0.1.0 (LibTorch " << TORCH_VERSION
#ifdef REMAT_RUNTIME_CUDA
                << ", CUDA"
#else
                << ", CPU only"
#endif
                << ")\n";
      return false;
    }
    if (a == "--plan")
      cli.run.planFile = value();
    else if (a == "--baseline")
      cli.baseline = true;
    else if (a == "--device")
      cli.run.device = value();
    else if (a == "--seed")
      cli.run.seed = static_cast<std::uint64_t>(parseInteger(a, value(), 0));
    else if (a == "--warmup")
      cli.run.warmup = static_cast<int>(parseInteger(a, value(), 0));
    else if (a == "--iterations")
      cli.run.iterations = static_cast<int>(parseInteger(a, value(), 1));
    else if (a == "--check-grads")
      cli.run.checkGrads = true;
    else if (a == "--grads-ref")
      cli.run.gradsRef = value();
    else if (a == "--grads-out")
      cli.run.gradsOut = value();
    else if (a == "--rtol")
      cli.run.rtol = parseReal(a, value());
    else if (a == "--atol")
      cli.run.atol = parseReal(a, value());
    else if (a == "--no-liveness")
      cli.run.liveness = false;
    else if (a == "--threads")
      cli.run.threads = static_cast<int>(parseInteger(a, value(), 1));
    else if (a == "--return-memory")
      cli.run.keepHeap = false;
    else if (a == "--dry-run")
      cli.dryRun = true;
    else if (a == "-o" || a == "--output")
      cli.output = value();
    else if (a.size() > 1 && a[0] == '-')
      throw RunnerError(ExitCode::Usage, "unknown option '" + a + "' (see --help)");
    else
      positional.push_back(a);
  }
  if (positional.size() != 1) throw RunnerError(ExitCode::Usage, "expected one graph file (see --help)");
  cli.run.graphFile = positional.front();
  if (cli.baseline == cli.run.planFile.has_value())
    throw RunnerError(ExitCode::Usage, "give exactly one of --plan PLAN.json and --baseline");
  if (cli.baseline && cli.run.checkGrads)
    throw RunnerError(ExitCode::Usage,
                      "--check-grads compares a plan with the baseline; with --baseline use --grads-ref");
  return true;
}

int runMain(int argc, char** argv) {
  Cli cli;
  if (!parse(argc, argv, cli)) return 0;
  if (cli.dryRun) {
    remat::runtime::checkOnly(cli.run);
    std::cerr << "remat-runner: " << cli.run.graphFile
              << (cli.run.planFile ? " and " + *cli.run.planFile : std::string())
              << ": every operation and step can be played\n";
    return 0;
  }
  const remat::runtime::Measurement m = remat::runtime::run(cli.run);
  if (!cli.output.empty()) remat::runtime::writeFileAtomically(cli.output, remat::runtime::toJson(m).dump(1) + "\n");
  std::int64_t peak = 0;
  for (const auto& s : m.steps) peak = std::max(peak, s.during.total());
  std::cerr << "remat-runner: " << m.graph << " (" << m.mode << (m.solver.empty() ? "" : " " + m.solver) << ") on "
            << m.device << ": loss " << m.loss << ", median iteration " << remat::runtime::median(m.iterationSeconds)
            << " s";
  if (!m.steps.empty()) std::cerr << ", accounted peak " << peak << " bytes";
  if (m.cuda) std::cerr << ", allocator peak " << m.cuda->allocatorPeakBytes << " bytes";
  std::cerr << "\n";
  if (m.gradients) {
    std::cerr << "remat-runner: gradients vs " << m.gradients->reference << ": "
              << (m.gradients->passed ? "equal" : "DIFFERENT") << " within rtol " << m.gradients->rtol << ", atol "
              << m.gradients->atol << " (max abs diff " << m.gradients->maxAbsDiff << ", max rel diff "
              << m.gradients->maxRelDiff << ")\n";
    if (!m.gradients->passed) {
      for (const auto& p : m.gradients->params)
        if (!p.ok)
          std::cerr << "  " << p.name << ": max abs diff " << p.maxAbsDiff << ", max rel diff " << p.maxRelDiff << "\n";
      return static_cast<int>(ExitCode::GradientMismatch);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runMain(argc, argv);
  } catch (const RunnerError& e) {
    std::cerr << "remat-runner: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "remat-runner: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::Internal);
  } catch (...) {
    std::cerr << "remat-runner: internal error\n";
    return static_cast<int>(ExitCode::Internal);
  }
}
