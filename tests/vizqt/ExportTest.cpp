#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <QImage>
#include <QSvgRenderer>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "TestGraphs.hpp"
#include "VizQtTestSupport.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"
#include "remat/viz/PlanFigures.hpp"
#include "remat/vizqt/Export.hpp"
#include "remat/vizqt/OffscreenGui.hpp"
#include "remat/vizqt/QtTextMetrics.hpp"

using namespace remat;
using namespace remat::viz;
using namespace remat::vizqt;

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("remat-vizqt-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// A U-Net with a plan that recomputes: three segments.
struct Subject {
  graph::ComputeGraph graph = test::makeUNet(3);
  solvers::Plan plan;
  Subject() {
    const auto sets = test::evenLowerSets(graph, 3);
    plan = {sim::canonicalSchedule(graph, sets), sets};
  }
};

Scene figure(FigureKind kind, const FigureStyle& style) {
  static const Subject subject;
  FigureRequest request;
  request.kind = kind;
  request.graph = &subject.graph;
  request.plans = {{"store all", {sim::storeAllSchedule(subject.graph), std::nullopt}}, {"thirds", subject.plan}};
  if (kind != FigureKind::Timeline) std::swap(request.plans[0], request.plans[1]);  // the plan that recomputes
  request.budget = Bytes{400};
  request.pareto.series.push_back({"exact-dp", {{1e9, 300}, {1.5e9, 100}, {2e9, 0}}});
  request.pareto.vanilla = TradeOffPoint{2.4e9, 0};
  request.pareto.leastBudget = 0.9e9;
  const FigureResult r = buildFigure(request, style);
  INFO(r.error);
  REQUIRE(r.scene.has_value());
  return *r.scene;
}

// Every figure builder, with the real font's metrics.
std::vector<std::pair<std::string, Scene>> figures(ThemeKind theme) {
  static const QtTextMetrics serif("DejaVu Serif");
  static const QtTextMetrics sans("DejaVu Sans");
  FigureStyle style;
  style.width = 640;
  style.height = 400;
  style.theme = Theme::of(theme);
  style.metrics = theme == ThemeKind::Paper ? &serif : &sans;
  style.title = "figure";
  std::vector<std::pair<std::string, Scene>> out;
  for (FigureKind kind : kAllFigures) out.emplace_back(std::string(figureName(kind)), figure(kind, style));
  return out;
}

bool havePdftoppm() { return std::system("command -v pdftoppm > /dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("every figure exports a valid SVG, a PDF that renders and a PNG of the requested size") {
  test::ensureTestApplication();
  const fs::path dir = scratch();
  for (ThemeKind theme : {ThemeKind::Screen, ThemeKind::Paper})
    for (const auto& [name, scene] : figures(theme)) {
      const std::string base = (dir / (name + (theme == ThemeKind::Paper ? "-paper" : "-screen"))).string();
      INFO(base);
      // SVG: parsed back by Qt's SVG renderer, with the scene's size as its view box.
      REQUIRE_FALSE(exportScene(scene, base + ".svg", ImageFormat::Svg));
      QSvgRenderer svg(QString::fromStdString(base + ".svg"));
      CHECK(svg.isValid());
      CHECK(svg.viewBoxF().width() == Approx(scene.width));
      CHECK(svg.viewBoxF().height() == Approx(scene.height));
      // PNG at 192 dpi: twice the scene's size in pixels, and not blank.
      REQUIRE_FALSE(exportScene(scene, base + ".png", ImageFormat::Png, ExportOptions{192}));
      QImage png(QString::fromStdString(base + ".png"));
      REQUIRE_FALSE(png.isNull());
      CHECK(png.width() == 2 * static_cast<int>(scene.width));
      CHECK(png.height() == 2 * static_cast<int>(scene.height));
      int dark = 0;
      for (int y = 0; y < png.height(); y += 4)
        for (int x = 0; x < png.width(); x += 4) dark += qGray(png.pixel(x, y)) < 128 ? 1 : 0;
      CHECK(dark > 50);
      // PDF: rendered by poppler's pdftoppm when the machine has it (CI installs poppler-utils).
      REQUIRE_FALSE(exportScene(scene, base + ".pdf", ImageFormat::Pdf));
      CHECK(fs::file_size(base + ".pdf") > 1000);
      if (havePdftoppm()) {
        const std::string cmd = "pdftoppm -png -r 48 -singlefile '" + base + ".pdf' '" + base + "-pdf' 2>/dev/null";
        REQUIRE(std::system(cmd.c_str()) == 0);
        QImage rendered(QString::fromStdString(base + "-pdf.png"));
        REQUIRE_FALSE(rendered.isNull());
        // 48 dpi: half the scene's CSS pixels, within a pixel of rounding.
        CHECK(std::abs(rendered.width() - static_cast<int>(scene.width / 2)) <= 1);
        CHECK(std::abs(rendered.height() - static_cast<int>(scene.height / 2)) <= 1);
      }
    }
  fs::remove_all(dir);
}

TEST_CASE("exports fail with a message, not a crash") {
  test::ensureTestApplication();
  const Scene scene = figures(ThemeKind::Screen).front().second;
  CHECK(exportScene(scene, "/nonexistent-dir/x.svg", ImageFormat::Svg).value_or("").find("cannot write") == 0);
  CHECK(exportScene(scene, "/nonexistent-dir/x.png", ImageFormat::Png).has_value());
  CHECK(exportScene(Scene{}, (scratch() / "empty.png").string(), ImageFormat::Png).has_value());
  // Never onto a folder or a FIFO: refused, and both stay as they were.
  const fs::path folder = scratch() / "folder.svg";
  fs::create_directories(folder);
  CHECK(exportScene(scene, folder.string(), ImageFormat::Svg).value_or("") ==
        "refusing to write '" + folder.string() + "': it is a directory");
  CHECK(fs::is_directory(folder));
  const fs::path fifo = scratch() / "fifo.pdf";
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(exportScene(scene, fifo.string(), ImageFormat::Pdf).value_or("") ==
        "refusing to write '" + fifo.string() + "': it is a FIFO (named pipe), not a regular file");
  CHECK(fs::is_fifo(fifo));
  fs::remove(fifo);
  fs::remove(folder);
  CHECK(formatFromPath("a/b.SVG") == ImageFormat::Svg);
  CHECK(formatFromPath("fig.pdf") == ImageFormat::Pdf);
  CHECK_FALSE(formatFromPath("fig.jpeg").has_value());
  CHECK_FALSE(formatFromPath("noext").has_value());
}

TEST_CASE("the real font's metrics are close to the estimate the tests lay out with") {
  test::ensureTestApplication();
  const QtTextMetrics sans("DejaVu Sans");
  const std::string text = "peak 2.31 GiB at bwd layer4.2.conv3";
  const double real = sans.width(text, 11);
  const double approx = approxTextMetrics().width(text, 11);
  CHECK(real > 0.8 * approx);
  CHECK(real < 1.1 * approx);  // the estimate errs on the wide side, so layouts leave room
}

TEST_CASE("hotspots are not drawn: exports of a figure with and without them are the same") {
  test::ensureTestApplication();
  const fs::path dir = scratch();
  std::size_t withHotspots = 0;
  for (const auto& [name, scene] : figures(ThemeKind::Screen)) {
    INFO(name);
    if (scene.hotspots.empty()) continue;
    ++withHotspots;
    Scene bare = scene;
    bare.hotspots.clear();
    const std::string a = (dir / (name + "-hot")).string();
    const std::string b = (dir / (name + "-bare")).string();
    REQUIRE_FALSE(exportScene(scene, a + ".png", ImageFormat::Png));
    REQUIRE_FALSE(exportScene(bare, b + ".png", ImageFormat::Png));
    const QImage hot(QString::fromStdString(a + ".png"));
    REQUIRE_FALSE(hot.isNull());
    CHECK(hot == QImage(QString::fromStdString(b + ".png")));
    REQUIRE_FALSE(exportScene(scene, a + ".svg", ImageFormat::Svg));
    REQUIRE_FALSE(exportScene(bare, b + ".svg", ImageFormat::Svg));
    const auto read = [](const std::string& path) {
      std::ifstream in(path, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    CHECK(read(a + ".svg") == read(b + ".svg"));
  }
  CHECK(withHotspots == 4);  // the timeline, the graph drawing, the schedule matrix and the Pareto figure
  fs::remove_all(dir);
}
