#include <catch2/catch.hpp>

#include "remat/viz/Chart.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/Theme.hpp"

using namespace remat::viz;

TEST_CASE("nice ticks are round, ascending and inside the range") {
  CHECK(niceTicks(0, 10, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(niceTicks(0.3, 2.9, 3) == std::vector<double>{1, 2});
  CHECK(niceTicks(-1, 1, 4) == std::vector<double>{-1, -0.5, 0, 0.5, 1});
  CHECK(niceTicks(5, 5, 4) == std::vector<double>{5});
}

TEST_CASE("byte axes tick in binary units with one unit for all labels") {
  const double gib = 1024.0 * 1024 * 1024;
  const auto ticks = axisTicks(Axis{0, 2.6 * gib, "", AxisFormat::Bytes}, 6);
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks[1] == Approx(0.5 * gib));
  const auto labels = tickLabels(ticks, AxisFormat::Bytes);
  CHECK(labels[0] == "0.0 GiB");
  CHECK(labels[1] == "0.5 GiB");
  CHECK(tickLabels({0, 256 * 1024 * 1024.0, 512 * 1024 * 1024.0}, AxisFormat::Bytes)[2] == "512 MiB");
  CHECK(formatBytes(1.5 * gib) == "1.50 GiB");
  CHECK(formatBytes(12) == "12 B");
  CHECK(tickLabels({0, 20000, 40000}, AxisFormat::Integer) == std::vector<std::string>{"0", "20k", "40k"});
  CHECK(tickLabels({0, 0.25, 0.5}, AxisFormat::Percent) == std::vector<std::string>{"0%", "25%", "50%"});
}

TEST_CASE("a chart keeps its plot, legend and labels on the canvas and apart") {
  FigureStyle style;
  style.title = "Memory over the schedule";
  std::vector<LegendEntry> legend;
  for (int k = 0; k < 12; ++k)
    legend.push_back({"entry number " + std::to_string(k), LegendEntry::Kind::Swatch, {}, {}});
  Scene scene = makeScene(style);
  Chart chart(scene, style, Axis{0, 50000, "step", AxisFormat::Integer}, Axis{0, 3e9, "memory", AxisFormat::Bytes},
              legend);
  const Box canvas{0, 0, style.width, style.height};
  CHECK(canvas.contains(chart.plot()));
  for (const Box& b : chart.legendBoxes()) {
    CHECK(canvas.contains(b));
    CHECK(b.bottom() <= chart.plot().y);  // the legend never covers data
  }
  for (std::size_t i = 0; i < chart.legendBoxes().size(); ++i)
    for (std::size_t j = i + 1; j < chart.legendBoxes().size(); ++j) {
      const Box& a = chart.legendBoxes()[i];
      const Box& b = chart.legendBoxes()[j];
      CHECK((a.right() <= b.x || b.right() <= a.x || a.bottom() <= b.y || b.bottom() <= a.y));
    }
  chart.background();
  chart.foreground();
  // Every text item's anchor lies on the canvas.
  for (const Item& item : scene.items)
    if (const auto* t = std::get_if<TextItem>(&item)) {
      CHECK(t->at.x >= 0);
      CHECK(t->at.x <= style.width);
      CHECK(t->at.y >= 0);
      CHECK(t->at.y <= style.height);
    }
}

TEST_CASE("the paper theme stays readable in black and white") {
  const Theme paper = Theme::paper();
  // Memory categories: each pair differs in lightness or in hatching.
  for (std::size_t i = 0; i < kMemoryCategories; ++i)
    for (std::size_t j = i + 1; j < kMemoryCategories; ++j) {
      const Fill& a = paper.categories[i];
      const Fill& b = paper.categories[j];
      INFO(i << " vs " << j);
      CHECK((a.hatch != b.hatch || std::abs(a.color.luminance() - b.color.luminance()) > 0.08));
    }
  // The three plan roles that matter differ in lightness.
  const double kept = paper.role(NodeRole::Kept).luminance();
  const double recomputed = paper.role(NodeRole::Recomputed).luminance();
  const double never = paper.role(NodeRole::NeverFreed).luminance();
  const double other = paper.role(NodeRole::Other).luminance();
  CHECK(std::abs(never - kept) > 0.08);
  CHECK(std::abs(never - recomputed) > 0.08);
  CHECK(std::abs(other - never) > 0.08);
  // Series: consecutive ones differ in dash.
  CHECK(paper.seriesStroke(0).dash != paper.seriesStroke(1).dash);
  CHECK(paper.fontFamily == "DejaVu Serif");
}

TEST_CASE("node labels drop ONNX's output suffix and keep the last three parts of a path") {
  CHECK(nodeLabel("/net/layer1/layer1.0/conv1/Conv_output_0") == "layer1.0/conv1/Conv");
  CHECK(nodeLabel("/features/features.0/Conv_output_0") == "features/features.0/Conv");
  CHECK(nodeLabel("/net/Flatten_output_0") == "net/Flatten");
  CHECK(nodeLabel("conv1") == "conv1");
  CHECK(nodeLabel("relu_output_0") == "relu");
  CHECK(nodeLabel("_output_0") == "_output_0");  // nothing would be left
  CHECK(nodeLabel("a//b/") == "a/b");
  CHECK(nodeLabel("///") == "///");
}

TEST_CASE("elided labels keep head and tail, fit, and never split a UTF-8 code point") {
  const TextMetrics& tm = approxTextMetrics();
  CHECK(elideMiddle("conv1", 100, 10, tm) == "conv1");
  const std::string name = "layer3.2/conv2/Conv\u00e9\u00e9\u00e9";
  for (double width : {30.0, 50.0, 80.0}) {
    const std::string e = elideMiddle(name, width, 10, tm);
    INFO(width << ": " << e);
    CHECK(tm.width(e, 10) <= width);
    CHECK(e.find("\u2026") != std::string::npos);
    CHECK(e.rfind("la", 0) == 0);  // the head stays
    // Valid UTF-8: every continuation byte follows a lead byte or another continuation byte.
    for (std::size_t i = 0; i < e.size(); ++i)
      if ((static_cast<unsigned char>(e[i]) & 0xC0) == 0x80)
        CHECK((i > 0 && (static_cast<unsigned char>(e[i - 1]) & 0x80)));
  }
  CHECK(elideMiddle(name, 1, 10, tm).empty());
}
