#pragma once

#include <QByteArray>
#include <QGuiApplication>

namespace remat::test {

/// How long a core test waits for a job: a bound for a loaded machine, never a measured time.
constexpr int kWaitMs = 60'000;

/// The process's QGuiApplication on the offscreen platform, for Studio's core (models, jobs, sessions:
/// an event loop and fonts, no widgets). Qt allows one application per process; it is never destroyed,
/// so that Qt is not torn down by static destructors.
inline void ensureGuiApplication() {
  if (QCoreApplication::instance() != nullptr) return;
  qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "remat_studio_core_tests";
  static char* argv[] = {name, nullptr};
  static QGuiApplication* const kApp = new QGuiApplication(argc, argv);
  (void)kApp;
}

}  // namespace remat::test
