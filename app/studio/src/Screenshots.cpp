#include "remat/studio/Screenshots.hpp"

#include <QApplication>
#include <QBuffer>
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QPixmap>
#include <QTabWidget>

#include <memory>

#include "remat/io/OutputFile.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/vizqt/SceneView.hpp"

namespace remat::studio {

namespace {

// Grabs the window once per view, each view shown in turn.
QString grabViews(MainWindow& window, const QString& dir) {
  if (!QDir().mkpath(dir)) return QObject::tr("cannot create %1").arg(dir);
  QTabWidget* tabs = window.views();
  for (viz::FigureKind kind : viz::kAllFigures) {
    vizqt::SceneView* view = window.view(kind);
    if (view == nullptr) continue;
    tabs->setCurrentWidget(view);
    // Lay out the view at its size, then build its figure here (views build on a worker otherwise, and
    // the grab would catch "Drawing the figure...").
    QApplication::processEvents();
    (void)view->currentScene();
    const QString path = QDir(dir).filePath(
        QString::fromUtf8(viz::figureName(kind).data(), static_cast<qsizetype>(viz::figureName(kind).size())) +
        QStringLiteral(".png"));
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!window.grab().save(&buffer, "PNG")) return QObject::tr("cannot encode %1").arg(path);
    if (auto error = io::writeFileAtomically(QFile::encodeName(path).toStdString(),
                                             {png.constData(), static_cast<std::size_t>(png.size())}))
      return QString::fromStdString(error->message);
  }
  return {};
}

}  // namespace

void captureScreenshots(MainWindow& window, const QString& dir, std::function<void(const QString&)> done) {
  if (window.graph() == nullptr) {
    done(QObject::tr("no graph is open"));
    return;
  }
  // One connection each, removed when it fires; shared so the lambdas can disconnect themselves.
  auto solved = std::make_shared<QMetaObject::Connection>();
  auto fronts = std::make_shared<QMetaObject::Connection>();
  *fronts = QObject::connect(&window, &MainWindow::paretoFinished, &window, [&window, dir, done, fronts] {
    QObject::disconnect(*fronts);
    done(grabViews(window, dir));
  });
  *solved = QObject::connect(&window, &MainWindow::solversFinished, &window, [&window, solved] {
    QObject::disconnect(*solved);
    window.computePareto();
  });
  window.runSolvers();
}

}  // namespace remat::studio
