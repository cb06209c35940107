#pragma once

#include <QApplication>
#include <QByteArray>

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

}  // namespace remat::test
