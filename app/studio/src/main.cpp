// Remat Studio: starts the application and its main window; everything else lives in remat_studio.
#include <QApplication>
#include <QSettings>
#include <QStringList>

#include <exception>
#include <iostream>
#include <memory>

#include "remat/studio/MainWindow.hpp"

int main(int argc, char** argv) {
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
    const QStringList args = QApplication::arguments();
    if (args.size() > 1) window.openFile(args.at(1));
    return QApplication::exec();
  } catch (const std::exception& e) {
    std::cerr << "remat-studio: internal error: " << e.what() << '\n';
    return 4;
  }
}
