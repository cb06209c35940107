#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "CliSupport.hpp"
#include "remat/runtime/RunnerProcess.hpp"
#include "remat/runtime/ValidationError.hpp"

namespace remat::cli {

/// The options `profile` and `validate` share: where the runner is and how it measures.
struct MeasureCliOptions {
  std::string device = "cpu";
  int iterations = 3;
  int warmup = 2;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string runner;
  double runnerTimeout = 3600;  ///< seconds per runner call; 0 for none
};

void addMeasureOptions(CLI::App* cmd, MeasureCliOptions& o);

/// The runtime's options, the runner found (--runner, else beside this program). Throws CliError.
[[nodiscard]] runtime::MeasureOptions measureOptions(const MeasureCliOptions& o);

/// The CLI's error for a runtime failure: usage 2, input 3, measurement 5, internal 4.
[[nodiscard]] CliError cliError(const runtime::ValidationError& e);

}  // namespace remat::cli
