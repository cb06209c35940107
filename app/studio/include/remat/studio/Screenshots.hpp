#pragma once

#include <QString>

#include <functional>

namespace remat::studio {

class MainWindow;

/// Drives the window through a session and saves a PNG of the whole window per view, named after the
/// figure (timeline.png, graph.png, pareto.png, schedule.png, layout.png): runs the checked solvers,
/// computes the Pareto fronts, then shows each view in turn and grabs the window. `done` is called once,
/// from the event loop, with an empty string when every file was written and the reason otherwise.
/// The window must have a graph open.
void captureScreenshots(MainWindow& window, const QString& dir, std::function<void(const QString& error)> done);

}  // namespace remat::studio
