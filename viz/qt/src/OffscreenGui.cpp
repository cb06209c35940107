#include "remat/vizqt/OffscreenGui.hpp"

#include <QGuiApplication>

namespace remat::vizqt {

namespace {
// QGuiApplication keeps references to argc and argv for its whole life.
int g_argc = 3;
char g_name[] = "remat";
char g_flag[] = "-platform";
char g_platform[] = "offscreen";
char* g_argv[] = {g_name, g_flag, g_platform, nullptr};

QtMessageHandler g_previous = nullptr;

// Without a session (a headless run), Qt warns that XDG_RUNTIME_DIR is unset and picks a default,
// which is fine for drawing files: that one line is noise on the command line's stderr.
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && message.contains(QLatin1String("XDG_RUNTIME_DIR"))) return;
  if (g_previous) g_previous(type, context, message);
}
}  // namespace

void ensureGuiApplication() {
  if (QCoreApplication::instance() != nullptr) return;
  g_previous = qInstallMessageHandler(quietHandler);
  // Never destroyed: tearing Qt down in static destructors is unsafe, and the OS reclaims it at exit.
  static QGuiApplication* const kApp = new QGuiApplication(g_argc, g_argv);
  (void)kApp;
}

}  // namespace remat::vizqt
