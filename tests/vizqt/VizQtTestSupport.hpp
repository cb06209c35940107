#pragma once

#include <QApplication>

#include "remat/vizqt/OffscreenGui.hpp"

namespace remat::test {

/// The process's Qt application for every vizqt test: a QApplication on the offscreen platform, since
/// the SceneView tests make widgets and Qt allows one application per process (a QGuiApplication made
/// first by ensureGuiApplication would rule widgets out). Exports need no more than what it gives.
inline void ensureTestApplication() {
  if (QCoreApplication::instance() == nullptr) {
    static int argc = 3;
    static char name[] = "remat_vizqt_tests";
    static char flag[] = "-platform";
    static char platform[] = "offscreen";
    static char* argv[] = {name, flag, platform, nullptr};
    // Never destroyed: Qt must not be torn down by static destructors.
    static QApplication* const kApp = new QApplication(argc, argv);
    (void)kApp;
  }
  vizqt::ensureGuiApplication();  // finds the application there: a no-op, as for any caller that made one
}

}  // namespace remat::test
