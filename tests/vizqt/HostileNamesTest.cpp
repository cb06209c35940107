// Names with control characters in every exported figure: the SVG stays well-formed XML, the PDF's text
// shows the escapes, nothing raw reaches either file.

#include <unistd.h>
#include <catch2/catch.hpp>

#include <QFile>
#include <QXmlStreamReader>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ControlBytes.hpp"
#include "TestGraphs.hpp"
#include "VizQtTestSupport.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/vizqt/Export.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"

using namespace remat;
using namespace remat::viz;
using namespace remat::vizqt;

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool hasControlByte(const std::string& text, const std::string& allowed) {
  return test::controlByte(text, allowed) != std::string::npos;
}

}  // namespace

TEST_CASE("names with ESC, BEL, NUL, OSC and C1 controls: every SVG parses as XML, the PDF's text is escaped") {
  test::ensureTestApplication();
  const fs::path dir = fs::temp_directory_path() / ("remat-vizqt-hostile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string esc = std::string(
                              "esc\x1b[31mred\x07"
                              "bel") +
                          '\0' +
                          "nul\x1b]0;title\x07osc\xc2\x9b"
                          "2J";
  const auto g = test::makeGraph({{esc, {"x"}, 10, 1, {0}}, {"b\x1b[2J", {esc}, 20, 1, {}, true}});
  static const QtTextMetrics sans("DejaVu Sans");
  FigureStyle style;
  style.metrics = &sans;
  style.title = "title \x1b]2;owned\x07";  // text that no builder escapes: the painter does
  const bool havePdftotext = std::system("command -v pdftotext > /dev/null 2>&1") == 0;
  for (FigureKind kind : kAllFigures) {
    FigureRequest request;
    request.kind = kind;
    request.graph = &g;
    request.plans = {{"plan\x1b[1m", {sim::storeAllSchedule(g), std::nullopt}}};
    request.pareto.series.push_back({"exact-dp", {{100, 3}, {200, 0}}});
    const FigureResult figure = buildFigure(request, style);
    INFO(figureName(kind) << ": " << figure.error);
    REQUIRE(figure.scene);
    const std::string base = (dir / std::string(figureName(kind))).string();

    REQUIRE_FALSE(exportScene(*figure.scene, base + ".svg", ImageFormat::Svg));
    const std::string svg = slurp(base + ".svg");
    CHECK_FALSE(hasControlByte(svg, "\n\t\r"));
    QXmlStreamReader xml(QByteArray::fromStdString(svg));
    while (!xml.atEnd()) xml.readNext();
    INFO(xml.errorString().toStdString());
    CHECK_FALSE(xml.hasError());
    if (kind == FigureKind::Graph || kind == FigureKind::Schedule)
      CHECK(svg.find("esc\\x1B[31mred\\x07bel") != std::string::npos);

    REQUIRE_FALSE(exportScene(*figure.scene, base + ".pdf", ImageFormat::Pdf));
    if (havePdftotext && (kind == FigureKind::Graph || kind == FigureKind::Schedule)) {
      const std::string cmd = "pdftotext '" + base + ".pdf' '" + base + ".txt' 2>/dev/null";
      REQUIRE(std::system(cmd.c_str()) == 0);
      const std::string text = slurp(base + ".txt");
      CHECK(text.find("esc\\x1B[31mred\\x07bel") != std::string::npos);
      CHECK(text.find("title \\x1B]2;owned\\x07") != std::string::npos);
      CHECK_FALSE(hasControlByte(text, "\n\f"));  // pdftotext ends pages with a form feed
    }
  }
  fs::remove_all(dir);
}
