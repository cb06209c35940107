#include "MeasureSupport.hpp"

#include <chrono>
#include <cmath>

namespace remat::cli {

void addMeasureOptions(CLI::App* cmd, MeasureCliOptions& o) {
  cmd->add_option("--device", o.device, "Where to run: cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--iterations", o.iterations, "Measured iterations (times are their medians)")->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Iterations run before measuring")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the random parameters and inputs")->capture_default_str();
  cmd->add_option("--threads", o.threads, "Intra-op CPU threads of the runner (0: LibTorch's default)");
  cmd->add_option("--runner", o.runner, "The remat-runner program (default: the one beside this remat)");
  cmd->add_option("--runner-timeout", o.runnerTimeout,
                  "Seconds each runner call may take before it is stopped with its process group (exit code 5); "
                  "0 for none")
      ->capture_default_str();
}

runtime::MeasureOptions measureOptions(const MeasureCliOptions& o) {
  runtime::MeasureOptions out;
  out.device = o.device;
  out.iterations = o.iterations;
  out.warmup = o.warmup;
  out.seed = o.seed;
  out.threads = o.threads;
  if (!(o.runnerTimeout >= 0 && o.runnerTimeout <= 1e9))
    throw CliError(kUsage, "--runner-timeout must be a number of seconds from 0 (none) to 1e9");
  if (o.runnerTimeout > 0) out.timeout = std::chrono::milliseconds(std::llround(o.runnerTimeout * 1000));
  try {
    runtime::checkMeasureOptions(out);
    out.runner = runtime::findRunner(o.runner);
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  return out;
}

CliError cliError(const runtime::ValidationError& e) {
  switch (e.kind()) {
    case runtime::ValidationFailure::Usage: return CliError(kUsage, e.what());
    case runtime::ValidationFailure::Input: return CliError(kInput, e.what());
    case runtime::ValidationFailure::Measurement: return CliError(kMeasurement, e.what());
    case runtime::ValidationFailure::Internal: return CliError(kInternal, e.what());
  }
  return CliError(kInternal, e.what());
}

}  // namespace remat::cli
