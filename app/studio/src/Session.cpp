#include "remat/studio/Session.hpp"
#include "remat/studio/StudioText.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <string_view>
#include <utility>

#include "remat/graph/CostModel.hpp"
#include "remat/graph/WorkspaceModel.hpp"
#include "remat/io/detail/ReaderSupport.hpp"
#include "remat/solvers/Pins.hpp"
#include "remat/solvers/SolverRegistry.hpp"

namespace remat::studio {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool oneOf(const std::string& name, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Result<Session> readSession(const QString& path) {
  // As every reader of Remat's: regular files only, a size cap, a file that is no JSON object refused at
  // its first byte (so that /dev/zero or a FIFO costs nothing).
  std::string why;
  const auto content =
      io::detail::readFileCapped(QFile::encodeName(path).toStdString(), Session::kMaxFileBytes, "session", why, true);
  if (!content) return Result<Session>::failure(Diagnostic{{path.toStdString(), 0, {}}, "cannot read it: " + why});
  return parseSession(*content, path);
}

Result<Session> parseSession(std::string_view content, const QString& path) {
  const std::string file = path.toStdString();
  auto fail = [&file](std::size_t line, std::string where, std::string message) {
    return Result<Session>::failure(Diagnostic{{file, line, std::move(where)}, std::move(message)});
  };
  if (content.size() > Session::kMaxFileBytes) return fail(0, {}, "larger than a session may be");
  const QByteArray bytes = QByteArray::fromRawData(content.data(), static_cast<qsizetype>(content.size()));
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    // Qt puts the offset of an error at the end of the text one past it (found by fuzz_session).
    const qsizetype at = std::clamp<qsizetype>(parseError.offset, 0, bytes.size());
    const auto line = static_cast<std::size_t>(std::count(bytes.begin(), bytes.begin() + at, '\n')) + 1;
    return fail(line, {}, "not JSON: " + parseError.errorString().toStdString());
  }
  const std::string notSession =
      std::string("not a Remat Studio session (\"format\" must be \"") + Session::kFormat + "\")";
  if (!doc.isObject()) return fail(0, {}, notSession);
  const QJsonObject s = doc.object();
  if (s.value(QStringLiteral("format")).toString() != QString::fromLatin1(Session::kFormat))
    return fail(0, "/format", notSession);
  if (!s.value(QStringLiteral("version")).isDouble() ||
      s.value(QStringLiteral("version")).toDouble() != Session::kVersion)
    return fail(0, "/version", "unsupported version (this Studio reads " + std::to_string(Session::kVersion) + ")");
  // Every field of its type: a value of another is an error, never taken as its default.
  std::string typeError;
  auto text = [&](const char* key, const char* fallback) {
    const QJsonValue v = s.value(QLatin1String(key));
    if (v.isUndefined()) return QString::fromLatin1(fallback);
    if (!v.isString() && typeError.empty()) typeError = key;
    return v.toString();
  };
  Session session;
  session.graph = text("graph", "");
  session.costModel = text("cost_model", "file").toStdString();
  // Sessions saved before workspace was a setting used the file's; before the DP model was one, the
  // simulator's (the default then too).
  session.workspace = text("workspace", "file").toStdString();
  const std::string strategyName = text("strategy", "time").toStdString();
  const std::string modelName = text("model", "simulator").toStdString();
  const QString budgetText = text("budget", "");
  const QJsonValue limit = s.value(QStringLiteral("time_limit_s"));
  if (!limit.isUndefined() && !limit.isDouble() && typeError.empty()) typeError = "time_limit_s";
  const QJsonValue ids = s.value(QStringLiteral("solvers"));
  if (!ids.isUndefined() && !ids.isArray() && typeError.empty()) typeError = "solvers";
  const QJsonValue asGiven = s.value(QStringLiteral("as_given"));
  if (!asGiven.isUndefined() && !asGiven.isBool() && typeError.empty()) typeError = "as_given";
  if (!typeError.empty())
    return fail(0, "/" + typeError,
                "\"" + typeError + "\" must be " +
                    (typeError == "time_limit_s" ? "a number of seconds"
                     : typeError == "solvers"    ? "an array of solver ids"
                     : typeError == "as_given"   ? "true or false"
                                                 : "a string"));
  session.asGiven = asGiven.toBool(false);

  if (session.graph.isEmpty()) return fail(0, "/graph", "\"graph\" must name the graph file");
  if (QFileInfo(session.graph).isRelative())
    session.graph = QFileInfo(path).absoluteDir().absoluteFilePath(session.graph);
  if (!oneOf(session.costModel, graph::costModelNames()))
    return fail(0, "/cost_model", "unknown \"cost_model\" (" + joined(graph::costModelNames()) + ")");
  if (!oneOf(session.workspace, graph::workspaceModelNames()))
    return fail(0, "/workspace", "unknown \"workspace\" (" + joined(graph::workspaceModelNames()) + ")");
  const auto strategy = solvers::strategyFromName(strategyName);
  if (!strategy) return fail(0, "/strategy", "unknown \"strategy\" (time, memory, auto)");
  session.strategy = *strategy;
  const auto model = solvers::dpModelFromName(modelName);
  if (!model) return fail(0, "/model", "unknown \"model\" (simulator, paper)");
  session.model = *model;
  QString budgetError;
  if (!parseBudgetChoice(budgetText, session.budget, budgetError)) return fail(0, "/budget", budgetError.toStdString());
  session.timeLimitSeconds = limit.toDouble(0);
  if (!(session.timeLimitSeconds >= 0 && session.timeLimitSeconds <= Session::kMaxTimeLimitSeconds))
    return fail(0, "/time_limit_s", "\"time_limit_s\" out of range (0 to 86400 seconds)");
  if (s.contains(QStringLiteral("pins"))) {
    if (!s.value(QStringLiteral("pins")).isObject())
      return fail(0, "/pins", "\"pins\" must be an object {\"keep\": [names], \"recompute\": [names]}");
    const QByteArray pins = QJsonDocument(s.value(QStringLiteral("pins")).toObject()).toJson(QJsonDocument::Compact);
    const auto read = solvers::readPinNames(std::string_view(pins.constData(), static_cast<std::size_t>(pins.size())),
                                            file + " (pins)", session.keep, session.recompute);
    if (!read.ok()) return Result<Session>::failure(read.errors());
  }
  const QJsonArray list = ids.toArray();
  for (qsizetype k = 0; k < list.size(); ++k) {
    const std::string where = "/solvers/" + std::to_string(k);
    if (!list[k].isString()) return fail(0, where, "a solver id must be a string");
    const std::string id = list[k].toString().toStdString();
    if (!solvers::SolverRegistry::builtin().find(id)) return fail(0, where, "unknown solver '" + id + "'");
    session.solvers.push_back(id);
  }
  return session;
}

std::optional<io::WriteError> writeSession(const QString& path, const Session& session,
                                           const std::vector<std::string>& inputs) {
  QJsonObject out;
  out[QStringLiteral("format")] = QString::fromLatin1(Session::kFormat);
  out[QStringLiteral("version")] = Session::kVersion;
  out[QStringLiteral("graph")] = session.graph;
  out[QStringLiteral("cost_model")] = QString::fromStdString(session.costModel);
  out[QStringLiteral("workspace")] = QString::fromStdString(session.workspace);
  out[QStringLiteral("as_given")] = session.asGiven;
  QJsonArray ids;
  for (const auto& id : session.solvers) ids.append(QString::fromStdString(id));
  out[QStringLiteral("solvers")] = ids;
  out[QStringLiteral("strategy")] = qstr(solvers::strategyName(session.strategy));
  out[QStringLiteral("model")] = qstr(solvers::dpModelName(session.model));
  const BudgetChoice& budget = session.budget;
  out[QStringLiteral("budget")] = budget.kind == BudgetChoice::Kind::Fixed   ? QString::number(budget.bytes.value)
                                  : budget.kind == BudgetChoice::Kind::Least ? QStringLiteral("least")
                                                                             : QString();
  out[QStringLiteral("time_limit_s")] = session.timeLimitSeconds;
  if (!session.keep.empty() || !session.recompute.empty()) {
    // By name, as a pins file has them (solvers::readPinNames), so that they survive a re-export.
    auto names = [](const std::vector<std::string>& all) {
      QJsonArray list;
      for (const auto& name : all) list.append(QString::fromStdString(name));
      return list;
    };
    QJsonObject pins;
    pins[QStringLiteral("keep")] = names(session.keep);
    pins[QStringLiteral("recompute")] = names(session.recompute);
    out[QStringLiteral("pins")] = pins;
  }
  const QByteArray json = QJsonDocument(out).toJson();
  const std::string target = QFile::encodeName(path).toStdString();
  if (auto error = io::checkOutputPath(target, inputs)) return error;
  return io::writeFileAtomically(target, std::string_view(json.constData(), static_cast<std::size_t>(json.size())));
}

}  // namespace remat::studio
