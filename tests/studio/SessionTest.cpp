#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <QDir>
#include <QString>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "remat/studio/Session.hpp"

using remat::Bytes;
using remat::studio::BudgetChoice;
using remat::studio::readSession;
using remat::studio::Session;
using remat::studio::writeSession;

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("remat-session-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

QString write(const std::string& name, const std::string& text) {
  const fs::path file = scratch() / name;
  std::ofstream(file) << text;
  return QString::fromStdString(file.string());
}

}  // namespace

TEST_CASE("A session written by writeSession reads back the same", "[studio][session]") {
  Session session;
  session.graph = QStringLiteral("/data/graphs/unet.json");
  session.costModel = "paper";
  session.workspace = "none";
  session.solvers = {"approx-dp", "chen-greedy"};
  session.strategy = remat::solvers::Strategy::Memory;
  session.model = remat::solvers::DpModelKind::Paper;
  session.budget = {BudgetChoice::Kind::Fixed, Bytes{1'234'567'891}};  // exact bytes, no rounding
  session.timeLimitSeconds = 12.5;
  session.keep = {"conv1"};
  session.recompute = {"relu2", "relu3"};
  session.asGiven = true;
  const QString path = QString::fromStdString((scratch() / "round.remat-session.json").string());
  REQUIRE_FALSE(writeSession(path, session));
  const auto read = readSession(path);
  INFO(read.errorText());
  REQUIRE(read.ok());
  CHECK(read.value() == session);

  // "least" and no budget, no pins, no solvers.
  for (const BudgetChoice::Kind kind : {BudgetChoice::Kind::Least, BudgetChoice::Kind::None}) {
    Session plain;
    plain.graph = session.graph;
    plain.budget.kind = kind;
    REQUIRE_FALSE(writeSession(path, plain));
    const auto again = readSession(path);
    REQUIRE(again.ok());
    CHECK(again.value() == plain);
  }
}

TEST_CASE("writeSession refuses to write over the graph file or into a folder", "[studio][session]") {
  Session session;
  session.graph = write("graph.json", "{}");
  const auto error = writeSession(session.graph, session, {session.graph.toStdString()});
  REQUIRE(error);
  CHECK(error->kind == remat::io::WriteError::Kind::Target);
  const auto folder = writeSession(QString::fromStdString(scratch().string()), session);
  REQUIRE(folder);
  CHECK(folder->message.find(scratch().string()) != std::string::npos);
}

TEST_CASE("readSession takes a relative graph path from the session's folder", "[studio][session]") {
  const QString path = write("relative.remat-session.json",
                             R"({"format": "remat-studio-session", "version": 1, "graph": "models/unet.json"})");
  const auto read = readSession(path);
  REQUIRE(read.ok());
  CHECK(read.value().graph == QDir(QString::fromStdString(scratch().string())).absoluteFilePath("models/unet.json"));
}

TEST_CASE("readSession reads sessions saved before workspace, model, pins and as_given were settings",
          "[studio][session]") {
  // As the first Studio wrote them: the settings of then, nothing more.
  const QString path = write("old.remat-session.json", R"({
  "format": "remat-studio-session",
  "version": 1,
  "graph": "/data/unet.json",
  "cost_model": "paper",
  "solvers": ["exact-dp"],
  "strategy": "auto",
  "budget": "least",
  "time_limit_s": 3
})");
  const auto read = readSession(path);
  INFO(read.errorText());
  REQUIRE(read.ok());
  const Session& s = read.value();
  CHECK(s.graph == QStringLiteral("/data/unet.json"));
  CHECK(s.costModel == "paper");
  CHECK(s.workspace == "file");                              // the file's, as then
  CHECK(s.model == remat::solvers::DpModelKind::Simulator);  // the default then too
  CHECK_FALSE(s.asGiven);                                    // read as a training graph, as then
  CHECK(s.keep.empty());
  CHECK(s.recompute.empty());
  CHECK(s.solvers == std::vector<std::string>{"exact-dp"});
  CHECK(s.strategy == remat::solvers::Strategy::Auto);
  CHECK(s.budget.kind == BudgetChoice::Kind::Least);
  CHECK(s.timeLimitSeconds == 3);
}

TEST_CASE("readSession refuses another format, naming the file and the field", "[studio][session]") {
  const QString path = write("graph.remat-session.json", R"({"format": "remat-graph", "version": 1})");
  const auto read = readSession(path);
  REQUIRE_FALSE(read.ok());
  REQUIRE(read.errors().size() == 1);
  CHECK(read.errors().front().where.file == path.toStdString());
  CHECK(read.errors().front().where.path == "/format");
  CHECK(read.errorText().find("remat-studio-session") != std::string::npos);
  // A JSON value that is no object is no session either.
  const auto array = readSession(write("array.remat-session.json", "[1, 2]"));
  REQUIRE_FALSE(array.ok());
  CHECK(array.errorText().find("not a JSON object") != std::string::npos);
}

TEST_CASE("readSession reports malformed JSON at its line", "[studio][session]") {
  const QString path = write("broken.remat-session.json",
                             "{\n  \"format\": \"remat-studio-session\",\n"
                             "  \"version\": 1,\n  graph: \"unet.json\"\n}\n");
  const auto read = readSession(path);
  REQUIRE_FALSE(read.ok());
  REQUIRE(read.errors().size() == 1);
  CHECK(read.errors().front().where.file == path.toStdString());
  CHECK(read.errors().front().where.line == 4);
  CHECK(read.errorText().find("not JSON") != std::string::npos);
}

TEST_CASE("readSession reports a missing file by its name", "[studio][session]") {
  const QString path = QString::fromStdString((scratch() / "no-such.remat-session.json").string());
  const auto read = readSession(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.errors().front().where.file == path.toStdString());
  CHECK(read.errorText().find("no-such.remat-session.json") != std::string::npos);
}

TEST_CASE("readSession refuses unknown settings at their JSON path", "[studio][session]") {
  const std::string head = R"({"format": "remat-studio-session", "version": 1, "graph": "unet.json", )";
  const struct {
    std::string rest;
    std::string path;
    std::string says;
  } cases[] = {
      {R"("solvers": ["approx-dp", "magic"]})", "/solvers/1", "magic"},
      {R"("cost_model": "guess"})", "/cost_model", "cost_model"},
      {R"("workspace": "guess"})", "/workspace", "workspace"},
      {R"("strategy": "fast"})", "/strategy", "strategy"},
      {R"("model": "exact"})", "/model", "model"},
      {R"("time_limit_s": -1})", "/time_limit_s", "time_limit_s"},
      {R"("budget": "lots"})", "/budget", ""},
      {R"("pins": ["conv1"]})", "/pins", "pins"},
      {R"("pins": {"keep": [1]}})", "/keep/0", "node name"},
      // A value of another type is an error at its path, never taken as the default.
      {R"("time_limit_s": "abc"})", "/time_limit_s", "a number of seconds"},
      {R"("time_limit_s": null})", "/time_limit_s", "a number of seconds"},
      {R"("strategy": 3})", "/strategy", "must be a string"},
      {R"("budget": 2048})", "/budget", "must be a string"},
      {R"("solvers": "dtr"})", "/solvers", "an array of solver ids"},
      {R"("solvers": [7]})", "/solvers/0", "must be a string"},
      {R"("as_given": "yes"})", "/as_given", "true or false"},
  };
  for (const auto& c : cases) {
    INFO(c.rest);
    const auto read = readSession(write("bad.remat-session.json", head + c.rest));
    REQUIRE_FALSE(read.ok());
    CHECK(read.errors().front().where.path == c.path);
    CHECK(read.errorText().find(c.says) != std::string::npos);
  }
  const auto noGraph =
      readSession(write("nograph.remat-session.json", R"({"format": "remat-studio-session", "version": 1})"));
  REQUIRE_FALSE(noGraph.ok());
  CHECK(noGraph.errors().front().where.path == "/graph");
  const auto graphNumber = readSession(
      write("graph1.remat-session.json", R"({"format": "remat-studio-session", "version": 1, "graph": 1})"));
  REQUIRE_FALSE(graphNumber.ok());
  CHECK(graphNumber.errors().front().where.path == "/graph");
  const auto version = readSession(
      write("v2.remat-session.json", R"({"format": "remat-studio-session", "version": 2, "graph": "g.json"})"));
  REQUIRE_FALSE(version.ok());
  CHECK(version.errors().front().where.path == "/version");
}

TEST_CASE("readSession refuses devices, FIFOs and files over its cap without reading them whole", "[studio][session]") {
  // /dev/zero and /dev/urandom never end; they once aborted Studio with std::bad_alloc.
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    INFO(device);
    const auto read = readSession(QString::fromLatin1(device));
    REQUIRE_FALSE(read.ok());
    CHECK(read.errorText().find("not a regular file") != std::string::npos);
  }
  // A FIFO without a writer would block its reader at open for ever.
  const fs::path fifo = scratch() / "fifo.remat-session.json";
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto fromFifo = readSession(QString::fromStdString(fifo.string()));
  REQUIRE_FALSE(fromFifo.ok());
  CHECK(fromFifo.errorText().find("FIFO") != std::string::npos);
  fs::remove(fifo);
  const std::string big = R"({"format": "remat-studio-session", "version": 1, "graph": "g.json", "pad": ")" +
                          std::string(Session::kMaxFileBytes, 'x') + "\"}";
  const auto tooLarge = readSession(write("big.remat-session.json", big));
  REQUIRE_FALSE(tooLarge.ok());
  CHECK(tooLarge.errorText().find("too large") != std::string::npos);
}

TEST_CASE("every session fixture: the valid ones read, the invalid ones fail at their place", "[studio][session]") {
  const fs::path root = fs::path(REMAT_FIXTURES_DIR) / "session";
  const std::map<std::string, std::string> invalid = {
      {"time_limit_string.remat-session.json", "/time_limit_s"},
      {"as_given_string.remat-session.json", "/as_given"},
      {"solvers_not_array.remat-session.json", "/solvers"},
      {"wrong_format.remat-session.json", "/format"},
      {"not_object.remat-session.json", "not a JSON object"},
      {"bad_budget.remat-session.json", "/budget"},
      {"truncated.remat-session.json", ":3: not JSON"},
      {"cut_in_key.remat-session.json", ":1: not JSON"},  // Qt's error offset one past the end
  };
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(root / "invalid")) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    REQUIRE(invalid.contains(name));  // every fixture has its expectation
    const auto read = readSession(QString::fromStdString(entry.path().string()));
    REQUIRE_FALSE(read.ok());
    CHECK(read.errorText().find(invalid.at(name)) != std::string::npos);
    ++seen;
  }
  CHECK(seen == invalid.size());
  for (const auto& entry : fs::directory_iterator(root / "valid")) {
    INFO(entry.path());
    const auto read = readSession(QString::fromStdString(entry.path().string()));
    INFO(read.errorText());
    CHECK(read.ok());
  }
}
