#pragma once

namespace remat::vizqt {

/// Makes sure the process has a Qt application: fonts and painting need one. Without one, creates a
/// QGuiApplication on the offscreen platform, so that the command line works without a display; it
/// lives until the process ends (Qt does not support a second one after the first is gone).
void ensureGuiApplication();

}  // namespace remat::vizqt
