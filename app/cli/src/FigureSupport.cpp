#include "FigureSupport.hpp"

#include <QFont>
#include <QFontInfo>

#include <cmath>
#include <iostream>

#include "CliSupport.hpp"
#include "remat/vizqt/OffscreenGui.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"

namespace remat::cli {

void addFigureStyleOptions(CLI::App* cmd, FigureStyleOptions& o) {
  cmd->add_option("--width", o.width, "Figure width in CSS pixels (1/96 inch)")->capture_default_str();
  cmd->add_option("--height", o.height, "Figure height in CSS pixels")->capture_default_str();
  cmd->add_option("--dpi", o.dpi, "PNG resolution: pixels = size x dpi / 96")->capture_default_str();
  cmd->add_option("--font", o.font, "Font family (default: the theme's, DejaVu Serif or DejaVu Sans)");
  cmd->add_option("--theme", o.theme, "paper (print, serif, black-and-white safe) or screen")->capture_default_str();
  cmd->add_option("--title", o.title, "A title above the figure");
}

PreparedStyle prepareStyle(const FigureStyleOptions& o) {
  const auto theme = viz::themeFromName(o.theme);
  if (!theme) throw CliError(kUsage, "unknown theme '" + o.theme + "' (paper, screen)");
  if (!(o.width >= 100 && o.width <= 20000 && o.height >= 100 && o.height <= 20000))
    throw CliError(kUsage, "--width and --height must be between 100 and 20000");
  if (!(o.dpi >= 10 && o.dpi <= 2400)) throw CliError(kUsage, "--dpi must be between 10 and 2400");
  vizqt::ensureGuiApplication();
  PreparedStyle out;
  out.style.width = o.width;
  out.style.height = o.height;
  out.style.theme = viz::Theme::of(*theme);
  out.style.title = o.title;
  if (!o.font.empty()) out.style.theme.fontFamily = o.font;
  const QFont requested(QString::fromStdString(out.style.theme.fontFamily));
  const QString actual = QFontInfo(requested).family();
  if (actual.compare(requested.family(), Qt::CaseInsensitive) != 0)
    out.warnings.push_back("font '" + out.style.theme.fontFamily + "' is not installed; drawing with '" +
                           actual.toStdString() + "'");
  out.metrics = std::make_shared<vizqt::QtTextMetrics>(out.style.theme.fontFamily);
  out.style.metrics = out.metrics.get();
  return out;
}

void writeFigure(const viz::FigureRequest& request, const PreparedStyle& style, const std::string& path, double dpi) {
  const auto format = vizqt::formatFromPath(path);
  if (!format) throw CliError(kUsage, "cannot tell the figure format of '" + path + "': use .svg, .pdf or .png");
  const viz::FigureResult figure = viz::buildFigure(request, style.style);
  for (const auto& w : figure.warnings) std::cerr << "remat: warning: " << w << '\n';
  // A figure's size limit is a limit, as a solver's is (exit code 1), not a fault of the input.
  if (!figure.scene) throw CliError(figure.tooLarge ? kInfeasible : kInput, figure.error);
  writeSceneAtomically(*figure.scene, path, dpi);
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
                                               bool quiet, solvers::DpModelKind model) {
  const auto strategy = solvers::strategyFromName(strategyName);
  if (!strategy) throw CliError(kUsage, "unknown strategy '" + strategyName + "' (time, memory, auto)");
  const bool least = budgetText == "least";
  const auto budget = least ? std::nullopt : parseBudget(budgetText);
  std::vector<viz::LabeledPlan> plans;
  for (const std::string& id : ids) {
    const solvers::Solver& s = findSolver(id);
    solvers::SolveRequest request{.graph = &g, .budget = budget, .strategy = *strategy, .model = model};
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
