#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace remat::cli {

/// Each command adds its subcommand and sets `run` to what executes it once parsing succeeded.
using Runner = std::function<int()>;

void addInfoCommand(CLI::App& app, Runner& run);
void addSolveCommand(CLI::App& app, Runner& run);
void addCompareCommand(CLI::App& app, Runner& run);
void addConvertCommand(CLI::App& app, Runner& run);
void addSolversCommand(CLI::App& app, Runner& run);
void addMinBudgetCommand(CLI::App& app, Runner& run);
void addSweepCommand(CLI::App& app, Runner& run);
void addStudyCommand(CLI::App& app, Runner& run);
void addMaxBatchCommand(CLI::App& app, Runner& run);
void addRenderCommand(CLI::App& app, Runner& run);
void addProfileCommand(CLI::App& app, Runner& run);
void addValidateCommand(CLI::App& app, Runner& run);

}  // namespace remat::cli
