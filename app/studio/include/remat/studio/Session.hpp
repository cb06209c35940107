#pragma once

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/graph/Diagnostic.hpp"
#include "remat/io/OutputFile.hpp"
#include "remat/solvers/DpModelKind.hpp"
#include "remat/solvers/Solver.hpp"
#include "remat/studio/BudgetChoice.hpp"

namespace remat::studio {

/// What a Remat Studio session file holds: the graph file and the solver settings, as JSON with
/// `"format": "remat-studio-session"`, version 1. Fields added after the first sessions (workspace,
/// model, pins) are optional, with the defaults those sessions ran under.
struct Session {
  static constexpr const char* kFormat = "remat-studio-session";
  static constexpr int kVersion = 1;
  static constexpr double kMaxTimeLimitSeconds = 24 * 3600;                 ///< the time-limit field's range
  static constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 20;  ///< larger files are refused

  QString graph;                   ///< the graph file; readSession makes a relative one absolute
  std::string costModel = "file";  ///< one of graph::costModelNames()
  std::string workspace = "file";  ///< one of graph::workspaceModelNames()
  /// The graph read as the whole computation, with no backward pass added (io::ReadOptions::asGiven;
  /// File > Plan graphs as given); false in sessions saved before it was a setting.
  bool asGiven = false;
  std::vector<std::string> solvers;  ///< checked solvers by id, each in the builtin registry
  solvers::Strategy strategy = solvers::Strategy::Time;
  solvers::DpModelKind model = solvers::DpModelKind::Simulator;
  BudgetChoice budget;                 ///< in exact bytes, not a field's rounded text
  double timeLimitSeconds = 0;         ///< per solver; 0 for none
  std::vector<std::string> keep;       ///< pinned nodes by name, checked against the graph once open
  std::vector<std::string> recompute;  ///< likewise

  bool operator==(const Session&) const = default;
};

/// Reads a session file: the session, with a relative graph path taken from the session's folder, or
/// errors naming the file and where in it (the line of malformed JSON, the JSON path of a bad field or of
/// a field of the wrong type). Regular files of at most kMaxFileBytes only.
[[nodiscard]] Result<Session> readSession(const QString& path);
/// readSession's parse of a session's text, as read from `path` (which errors name, and a relative graph
/// path is taken from the folder of).
[[nodiscard]] Result<Session> parseSession(std::string_view text, const QString& path);

/// Writes a session as readSession reads it, whole or not at all (io::writeFileAtomically), refusing
/// to write over any of `inputs` (the graph file). Returns why it could not, or nothing.
[[nodiscard]] std::optional<io::WriteError> writeSession(const QString& path, const Session& session,
                                                         const std::vector<std::string>& inputs = {});

}  // namespace remat::studio
