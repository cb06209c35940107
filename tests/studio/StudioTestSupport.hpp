#pragma once

#include <QApplication>
#include <QByteArray>
#include <QString>

#include <filesystem>

#include "ProgramRun.hpp"

namespace remat::test {

/// The process's QApplication on the offscreen platform; every test calls it before making a widget
/// (Qt allows one application per process, and widgets need a QApplication, not a QGuiApplication).
inline void ensureWidgetApplication() {
  if (QCoreApplication::instance() != nullptr) return;
  qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "remat_studio_tests";
  static char* argv[] = {name, nullptr};
  // Never destroyed: Qt must not be torn down by static destructors.
  static QApplication* const kApp = new QApplication(argc, argv);
  (void)kApp;
}

/// The U-Net the window tests open, as a user opens it from datasets/.
inline const QString kUnet = QStringLiteral(REMAT_SOURCE_DIR "/datasets/unet.json");

/// This process's scratch folder; ctest runs every test case in a process of its own.
inline std::filesystem::path scratch() { return scratchDir("remat-studio"); }

}  // namespace remat::test
