#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "remat/viz/Figure.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/vizqt/Export.hpp"
#include "remat/vizqt/FigureFile.hpp"

namespace remat::cli {

/// How figures look (vizqt::FigureOptions, what Studio's export dialog sets too), and --size, a named
/// canvas (vizqt::figureSizes) that --width and --height override.
struct FigureStyleOptions : vizqt::FigureOptions {
  std::string size;
};

void addFigureStyleOptions(CLI::App* cmd, FigureStyleOptions& o);

using vizqt::PreparedStyle;
/// vizqt::prepareStyle (--size is applied as the options are parsed); throws CliError(kUsage) on bad
/// values.
[[nodiscard]] PreparedStyle prepareFigureStyle(const FigureStyleOptions& o);

/// Builds the figure and writes it to `path` in the format of its extension (writeSceneAtomically),
/// printing the figure's warnings on stderr; throws CliError with the reason (usage: bad extension, a
/// path that is not a regular file; input: a plan that does not simulate, the write failed;
/// kInfeasible: a graph beyond the checkpoint drawing's size limits).
void writeFigure(const viz::FigureRequest& request, const PreparedStyle& style, const std::string& path, double dpi);
/// writeFigure's file without writing it: the bytes for `path`'s format; throws as writeFigure.
[[nodiscard]] std::string encodeFigureFile(const viz::FigureRequest& request, const PreparedStyle& style,
                                           const std::string& path, double dpi);

/// Writes a scene in the format of the path's extension: encoded in memory, then written whole or not at
/// all (writeFileAtomically), so that a failure leaves no file; throws CliError as writeFigure.
void writeSceneAtomically(const viz::Scene& scene, const std::string& path, double dpi);

/// Each solver's plan at the budget ("least": each its own least feasible one; empty: none), labelled
/// by solver id; solvers without a plan are left out with a warning on stderr. `limits.time` is shared by
/// the solves (solvers::SharedTime: each an equal share of what is left).
[[nodiscard]] std::vector<viz::LabeledPlan> plansFromSolvers(
    const graph::ComputeGraph& g, const std::vector<std::string>& ids, const std::string& budgetText,
    const std::string& strategyName, bool quiet, solvers::DpModelKind model, const solvers::RunLimits& limits = {});

/// Whether a solver's front is drawn in a Pareto figure when the user names no solvers: one that makes
/// plans (not a bound), is not the plain run (a single point, drawn anyway) and needs no time limit (a
/// MILP would be solved at every budget of the front, each possibly minutes; name it to draw it).
[[nodiscard]] bool inDefaultFronts(const solvers::SolverInfo& info);

}  // namespace remat::cli
