// Studio's checkpoint view under the drawing's size limits: the same guard as `remat render`.

#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "StudioTestSupport.hpp"
#include "remat/studio/MainWindow.hpp"
#include "remat/vizqt/SceneView.hpp"

using namespace remat;
using remat::studio::MainWindow;

namespace {

namespace fs = std::filesystem;

// A native graph file of ops given as (name, inputs) after the input "x".
QString writeGraph(const std::string& file, const std::vector<std::pair<std::string, std::vector<std::string>>>& ops) {
  const fs::path dir = fs::temp_directory_path() / ("remat-studio-limits-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string text = R"({"format": "remat-graph", "version": 1, "nodes": [{"id": "x", "kind": "input", "bytes": 8})";
  for (const auto& [name, inputs] : ops) {
    text += R"(, {"id": ")" + name + R"(", "kind": "op", "op": "Relu", "bytes": 8, "fwd_time": 1, "inputs": [)";
    for (std::size_t k = 0; k < inputs.size(); ++k) text += (k ? ", \"" : "\"") + inputs[k] + "\"";
    text += "]}";
  }
  text += "]}";
  std::ofstream(dir / file) << text;
  return QString::fromStdString((dir / file).string());
}

}  // namespace

TEST_CASE("Studio's checkpoint view: a graph beyond the size limit shows why, a long chain is drawn collapsed",
          "[studio][window]") {
  test::ensureWidgetApplication();
  MainWindow w;
  w.setInteractive(false);
  w.resize(1280, 720);
  w.show();

  std::vector<std::pair<std::string, std::vector<std::string>>> dense;
  for (int i = 0; i < 150; ++i) {
    std::vector<std::string> inputs{"x"};
    for (int j = 0; j < i; ++j) inputs.push_back("d" + std::to_string(j));
    dense.push_back({"d" + std::to_string(i), inputs});
  }
  REQUIRE(w.openFile(writeGraph("dense150.json", dense)));
  vizqt::SceneView* view = w.view(viz::FigureKind::Graph);
  REQUIRE(view);
  w.views()->setCurrentWidget(view);
  CHECK(view->currentScene().width == 0);
  CHECK(view->placeholderText().startsWith(
      QStringLiteral("the graph drawing holds at most 5,000 boxes and 10,000 edges; this graph needs 151 boxes")));

  std::vector<std::pair<std::string, std::vector<std::string>>> chain;
  for (int i = 0; i < 6000; ++i)
    chain.push_back({"n" + std::to_string(i), {i == 0 ? "x" : "n" + std::to_string(i - 1)}});
  REQUIRE(w.openFile(writeGraph("chain6000.json", chain)));
  view = w.view(viz::FigureKind::Graph);
  w.views()->setCurrentWidget(view);
  const viz::Scene& scene = view->currentScene();
  REQUIRE(scene.width > 0);
  bool noted = false;
  for (const viz::Item& item : scene.items)
    if (const auto* t = std::get_if<viz::TextItem>(&item))
      noted |= t->text.starts_with("chains of operations drawn as one box each");
  CHECK(noted);
}
