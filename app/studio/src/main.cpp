// Remat Studio: starts the application and its main window; everything else lives in remat_studio.
#include <QApplication>
#include <QSettings>
#include <QStringList>

#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "remat/studio/BudgetEditor.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/studio/Screenshots.hpp"

namespace {

constexpr const char* kUsage =
    "Usage: remat-studio [GRAPH]\n"
    "       remat-studio --screenshots DIR GRAPH [BUDGET [SOLVER,...]] [--keep NODE]... [--recompute NODE]...\n"
    "\n"
    "Remat Studio: load a computation graph (native JSON, ONNX, the paper's cg text, Checkmate's JSON),\n"
    "run the exact and approximate DPs side by side with the baselines, and compare their memory\n"
    "timelines, checkpoints, schedules and Pareto fronts.\n"
    "\n"
    "  GRAPH          a graph file to open at start\n"
    "  --screenshots  run one session on GRAPH (under BUDGET, e.g. 1.6GiB, with those solvers),\n"
    "                 save a PNG of the window per view into DIR, and quit; --keep and --recompute\n"
    "                 pin nodes by name first (docs/pins.md)\n"
    "  -h, --help     print this help and exit\n"
    "  --version      print the version and exit\n";

}  // namespace

int main(int argc, char** argv) {
  // Answered before Qt starts, so that they need no display.
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::cout << kUsage;
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << "remat-studio " << REMAT_VERSION << '\n';
    return 0;
  }
  try {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Remat Studio"));
    remat::studio::MainWindow window;
    window.useSettings(std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("Remat"),
                                                   QStringLiteral("Remat Studio")));
    window.resize(1280, 800);
#ifdef REMAT_DATASETS_DIR
    window.setDatasetDirectory(QStringLiteral(REMAT_DATASETS_DIR));
#endif
    window.show();
    QStringList args = QApplication::arguments();
    // `--screenshots DIR GRAPH [BUDGET [SOLVER,...]] [--keep NODE]... [--recompute NODE]...`: run a
    // session on GRAPH (under BUDGET, with those solvers; else none and the default ones; with those
    // pins), save a PNG of the window per view into DIR, quit.
    std::vector<std::pair<QString, remat::studio::MainWindow::Pin>> pins;
    if (args.size() > 1 && args.at(1) == QStringLiteral("--screenshots"))
      for (qsizetype k = 2; k < args.size();) {
        const bool keep = args.at(k) == QStringLiteral("--keep");
        if (!keep && args.at(k) != QStringLiteral("--recompute")) {
          ++k;
          continue;
        }
        if (k + 1 >= args.size()) {
          std::cerr << "remat-studio: " << args.at(k).toStdString() << " needs a node name\n";
          return 2;
        }
        pins.emplace_back(args.at(k + 1),
                          keep ? remat::studio::MainWindow::Pin::Keep : remat::studio::MainWindow::Pin::Recompute);
        args.remove(k, 2);
      }
    if (args.size() >= 4 && args.size() <= 6 && args.at(1) == QStringLiteral("--screenshots")) {
      window.setInteractive(false);
      if (!window.openFile(args.at(3))) {
        std::cerr << "remat-studio: " << window.lastError().toStdString() << '\n';
        return 3;
      }
      for (const auto& [name, pin] : pins) {
        const auto node = window.graph()->find(name.toStdString());
        if (!node || !window.setPin(*node, pin)) {
          std::cerr << "remat-studio: cannot pin '" << name.toStdString()
                    << "': " << (node ? "an input or a parameter" : "the graph has no node of that name") << '\n';
          return 2;
        }
      }
      if (args.size() >= 5) {
        remat::studio::BudgetChoice budget;
        QString error;
        if (!remat::studio::BudgetEditor::parse(args.at(4), budget, error)) {
          std::cerr << "remat-studio: budget '" << args.at(4).toStdString() << "': " << error.toStdString() << '\n';
          return 2;
        }
        window.budgetEditor()->setBudget(budget);
      }
      if (args.size() == 6) {
        for (const std::string& id : window.checkedSolvers()) window.setSolverChecked(id, false);
        for (const QString& id : args.at(5).split(QLatin1Char(','), Qt::SkipEmptyParts))
          if (!window.setSolverChecked(id.toStdString(), true)) {
            std::cerr << "remat-studio: unknown solver '" << id.toStdString() << "'\n";
            return 2;
          }
      }
      remat::studio::captureScreenshots(window, args.at(2), [](const QString& error) {
        if (!error.isEmpty()) std::cerr << "remat-studio: " << error.toStdString() << '\n';
        QApplication::exit(error.isEmpty() ? 0 : 3);
      });
      return QApplication::exec();
    }
    if (args.size() > 1) window.openFile(args.at(1));
    return QApplication::exec();
  } catch (const std::exception& e) {
    std::cerr << "remat-studio: internal error: " << e.what() << '\n';
    return 4;
  }
}
