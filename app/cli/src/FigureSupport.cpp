#include "FigureSupport.hpp"

#include <cmath>
#include <iostream>

#include "CliSupport.hpp"

namespace remat::cli {

void addFigureStyleOptions(CLI::App* cmd, FigureStyleOptions& o) {
  std::string sizes;
  for (const vizqt::FigureSize& s : vizqt::figureSizes())
    sizes += (sizes.empty() ? "" : ", ") + std::string(s.name) + " (" + std::string(s.description) + ")";
  cmd->add_option("--size", o.size, "A named canvas: " + sizes + "; --width and --height override it");
  auto* width = cmd->add_option("--width", o.width, "Figure width in CSS pixels (1/96 inch)")->capture_default_str();
  auto* height = cmd->add_option("--height", o.height, "Figure height in CSS pixels")->capture_default_str();
  cmd->add_option("--dpi", o.dpi, "PNG resolution: pixels = size x dpi / 96")->capture_default_str();
  cmd->add_option("--font", o.font, "Font family (default: the theme's, DejaVu Serif or DejaVu Sans)");
  cmd->add_option("--font-size", o.fontSize,
                  "Text size in points of tick labels and legends, the rest in proportion (default: the theme's, "
                  "8.25 pt)");
  cmd->add_option("--theme", o.theme, "paper (print, serif, black-and-white safe) or screen")->capture_default_str();
  cmd->add_option("--title", o.title, "A title above the figure");
  // --size sets both unless one is given; the callback runs before the command's.
  cmd->parse_complete_callback([&o, width, height] {
    if (o.size.empty()) return;
    const auto size = vizqt::figureSizeFromName(o.size);
    if (!size) return;  // prepareStyle names it
    if (width->count() == 0) o.width = size->width;
    if (height->count() == 0) o.height = size->height;
  });
}

PreparedStyle prepareFigureStyle(const FigureStyleOptions& o) {
  if (!o.size.empty() && !vizqt::figureSizeFromName(o.size)) {
    std::string names;
    for (const vizqt::FigureSize& s : vizqt::figureSizes()) names += (names.empty() ? "" : ", ") + std::string(s.name);
    throw CliError(kUsage, "unknown --size '" + o.size + "' (" + names + ")");
  }
  try {
    return vizqt::prepareStyle(o);
  } catch (const std::invalid_argument& e) {
    throw CliError(kUsage, e.what());
  }
}

void writeFigure(const viz::FigureRequest& request, const PreparedStyle& style, const std::string& path, double dpi) {
  writeFileAtomically(path, encodeFigureFile(request, style, path, dpi));
}

std::string encodeFigureFile(const viz::FigureRequest& request, const PreparedStyle& style, const std::string& path,
                             double dpi) {
  const auto format = vizqt::formatFromPath(path);
  if (!format) throw CliError(kUsage, "cannot tell the figure format of '" + path + "': use .svg, .pdf or .png");
  const vizqt::EncodedFigure figure = vizqt::encodeFigure(request, style, *format, dpi);
  for (const auto& w : figure.warnings) std::cerr << "remat: warning: " << w << '\n';
  // A figure's size limit is a limit, as a solver's is (exit code 1), not a fault of the input.
  if (!figure.error.empty())
    throw CliError(figure.tooLarge ? kInfeasible : kInput,
                   figure.encoding ? "cannot write '" + path + "': " + figure.error : figure.error);
  return figure.bytes;
}

void writeSceneAtomically(const viz::Scene& scene, const std::string& path, double dpi) {
  const auto format = vizqt::formatFromPath(path);
  if (!format) throw CliError(kUsage, "cannot tell the figure format of '" + path + "': use .svg, .pdf or .png");
  std::string bytes;
  if (auto error = vizqt::encodeScene(scene, *format, bytes, vizqt::ExportOptions{dpi}))
    throw CliError(kInput, "cannot write '" + path + "': " + *error);
  writeFileAtomically(path, bytes);
}

std::vector<viz::LabeledPlan> plansFromSolvers(const graph::ComputeGraph& g, const std::vector<std::string>& ids,
                                               const std::string& budgetText, const std::string& strategyName,
                                               bool quiet, solvers::DpModelKind model,
                                               const solvers::RunLimits& limits) {
  const auto strategy = solvers::strategyFromName(strategyName);
  if (!strategy) throw CliError(kUsage, "unknown strategy '" + strategyName + "' (time, memory, auto)");
  const bool least = budgetText == "least";
  const auto budget = least ? std::nullopt : parseBudget(budgetText);
  std::vector<viz::LabeledPlan> plans;
  const solvers::SharedTime shared(limits.time);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const std::string& id = ids[k];
    const solvers::Solver& s = findSolver(id);
    if (shared.spent()) {
      std::cerr << "remat: warning: " << id << ": the time limit ran out before it ran; left out\n";
      continue;
    }
    solvers::SolveRequest request{.graph = &g, .budget = budget, .strategy = *strategy, .model = model};
    request.timeLimit = shared.next(ids.size() - k);
    request.workLimit = limits.work;
    request.memoryLimit = limits.memory;
    request.progress = quiet ? solvers::ProgressSink{} : progressBar(id);
    solvers::SolveResult r = least ? solvers::solveAtLeastBudget(s, request) : s.solve(request);
    if (!r.plan) {
      std::cerr << "remat: warning: " << id << ": " << solvers::outcomeName(r) << ": " << r.message << "; left out\n";
      continue;
    }
    plans.push_back({id, std::move(*r.plan)});
  }
  return plans;
}

bool inDefaultFronts(const solvers::SolverInfo& info) {
  return info.makesPlans && !info.plainRun && !info.wantsTimeLimit;
}

}  // namespace remat::cli
