#include "MeasureSupport.hpp"

namespace remat::cli {

void addMeasureOptions(CLI::App* cmd, MeasureCliOptions& o) {
  cmd->add_option("--device", o.device, "Where to run: cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--iterations", o.iterations, "Measured iterations (times are their medians)")->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Iterations run before measuring")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the random parameters and inputs")->capture_default_str();
  cmd->add_option("--threads", o.threads, "Intra-op CPU threads of the runner (0: LibTorch's default)");
  cmd->add_option("--runner", o.runner, "The remat-runner program (default: the one beside this remat)");
}

runtime::MeasureOptions measureOptions(const MeasureCliOptions& o) {
  runtime::MeasureOptions out;
  out.device = o.device;
  out.iterations = o.iterations;
  out.warmup = o.warmup;
  out.seed = o.seed;
  out.threads = o.threads;
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
