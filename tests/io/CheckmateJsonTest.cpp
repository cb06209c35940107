// Checkmate / Moccasin reader on in-memory text: op-type guesses, ids, saves rules, warnings.

#include <catch2/catch.hpp>

#include "IoTestSupport.hpp"
#include "remat/io/CheckmateJson.hpp"

using namespace remat;
using namespace remat::io;
using namespace remat::io::test;

namespace {

// A forward-only chain of nodes with the given names (ids 0..n-1).
std::string chainOf(const std::vector<std::string>& names) {
  std::string nodes;
  std::string links;
  for (std::size_t i = 0; i < names.size(); ++i) {
    nodes += std::string(i ? "," : "") + R"({"name": ")" + names[i] +
             R"(", "backward": false, "cost_cpu": 1, "cost_ram": 1, "id": )" + std::to_string(i) + "}";
    if (i > 0)
      links += std::string(i > 1 ? "," : "") + R"({"source": )" + std::to_string(i - 1) + R"(, "target": )" +
               std::to_string(i) + "}";
  }
  return R"({"nodes": [)" + nodes + R"(], "links": [)" + links + "]}";
}

}  // namespace

TEST_CASE("checkmate: operation types guessed from Keras layer names", "[io][checkmate]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"block1_conv1", "Conv"},
      {"conv1_pad", "Pad"},
      {"conv2_block1_1_bn", "BatchNorm"},
      {"conv2_block1_1_relu", "Relu"},
      {"conv2_block1_add", "Add"},
      {"conv2_block1_out", "Op"},
      {"conv_dw_1", "Conv"},
      {"conv_pw_13_bn", "BatchNorm"},
      {"max_pooling2d_1", "Pool"},
      {"block5_pool", "Pool"},
      {"fc1000", "Gemm"},
      {"fc2", "Gemm"},
      {"predictions", "Gemm"},
      {"flatten", "Flatten"},
      {"act_softmax", "Softmax"},
      {"zero_padding2d_4", "Pad"},
      {"up_sampling2d_1", "Upsample"},
      {"conv2d_transpose_1", "ConvTranspose"},
      {"concatenate_1", "Concat"},
      {"dropout", "Dropout"},
      {"activation_7", "Activation"},
      {"mystery", "Op"},
      {"42", "Op"},
  };
  std::vector<std::string> names;
  names.reserve(cases.size());
  for (const auto& [name, op] : cases) names.push_back(name);
  auto r = readCheckmateJson(chainOf(names), "ops.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  for (const auto& [name, op] : cases) {
    INFO(name);
    CHECK(nodeNamed(r.value(), name).op == op);
  }
  CHECK(r.value().name() == "ops");  // no graph.name: the file stem
}

TEST_CASE("checkmate: integer and string ids are different ids", "[io][checkmate]") {
  auto r = readCheckmateJson(R"({"nodes": [
      {"name": "a", "cost_cpu": 1, "cost_ram": 1, "id": 1},
      {"name": "b", "cost_cpu": 1, "cost_ram": 1, "id": "1"}],
    "links": [{"source": "1", "target": 1}]})",
                             "ids.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  CHECK(inputNames(r.value(), "a") == std::vector<std::string>{"b"});
}

TEST_CASE("checkmate: a training graph's saves follow the edges into X_backward", "[io][checkmate]") {
  // x -> y -> z; y_backward reads y (own output), x (its input) and z (a consumer of y).
  auto r = readCheckmateJson(R"({"nodes": [
      {"name": "x", "cost_cpu": 1, "cost_ram": 10, "id": 0},
      {"name": "y", "cost_cpu": 2, "cost_ram": 20, "id": 1},
      {"name": "z", "cost_cpu": 3, "cost_ram": 30, "id": 2},
      {"name": "y_backward", "backward": true, "cost_cpu": 7, "cost_ram": 20, "id": 3},
      {"name": "orphan_backward", "backward": true, "cost_cpu": 1, "cost_ram": 1, "id": 4}],
    "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2},
              {"source": 1, "target": 3}, {"source": 0, "target": 3}, {"source": 2, "target": 3},
              {"source": 3, "target": 4}]})",
                             "train.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  const auto& g = r.value();
  CHECK(nodeNamed(g, "y").saves == graph::Saves{{0}, true});
  CHECK(nodeNamed(g, "z").saves == graph::Saves{{0}, false});
  CHECK(nodeNamed(g, "x").saves == graph::Saves{});
  CHECK(nodeNamed(g, "y").bwdTime == Ticks{7});
  CHECK(nodeNamed(g, "x").bwdTime == Ticks{1});  // no x_backward: bwd = fwd
  REQUIRE(g.explicitBackward().size() == 2);
  CHECK_FALSE(g.explicitBackward()[1].gradientOf.valid());  // "orphan" is no forward node
}

TEST_CASE("checkmate: a forward node unrelated to X feeding X_backward gives a warning", "[io][checkmate]") {
  auto r = readCheckmateJson(R"({"nodes": [
      {"name": "a", "cost_cpu": 1, "cost_ram": 1, "id": 0},
      {"name": "b", "cost_cpu": 1, "cost_ram": 1, "id": 1},
      {"name": "a_backward", "backward": true, "cost_cpu": 1, "cost_ram": 1, "id": 2}],
    "links": [{"source": 1, "target": 2}]})",
                             "w.json");
  INFO(allMessages(r));
  REQUIRE(r.ok());
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].toString().find("w.json: /nodes/2: forward node 'b' feeds 'a_backward'") == 0);
}

TEST_CASE("checkmate: link and node shape errors", "[io][checkmate]") {
  auto check = [](const std::string& text, const std::string& expected) {
    auto r = readCheckmateJson(text, "c.json");
    INFO(text);
    INFO(allMessages(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.errorText().find(expected) != std::string::npos);
  };
  const std::string node = R"({"name": "a", "cost_cpu": 1, "cost_ram": 1, "id": 0})";
  check(R"({"nodes": [)" + node + R"(], "links": [{"from": 0}]})", "/links/0: missing key \"source\"");
  check(R"({"nodes": [)" + node + R"(], "links": [3]})", "/links/0: expected a link object, got 3");
  check(R"({"nodes": [)" + node + R"(], "links": [{"source": 0, "target": 0}]})", "uses itself as an input (cycle)");
  check(R"({"nodes": [)" + node + R"(], "links": [{"source": 0.0, "target": 0}]})",
        "/links/0/source: unknown node id 0.0");
  check(R"({"nodes": [)" + node + R"(], "links": {}})", "/links: expected an array of links, got an object");
  check(R"({"nodes": "x", "links": []})", "/nodes: expected an array of nodes, got \"x\"");
  check(R"([1, 2])", "expected a JSON object at the top level, got an array");
  check(R"({"nodes": [{"name": "a", "cost_cpu": 1, "cost_ram": 1, "id": 0, "backward": "no"}], "links": []})",
        "/nodes/0/backward: expected true or false, got \"no\"");
  check(R"({"nodes": [{"name": "a", "cost_cpu": 1, "cost_ram": 1}], "links": []})",
        "/nodes/0: missing required key \"id\"");
  check(R"({"nodes": [{"name": 0, "duration": 1, "out_cost": 1, "param_cost": -4}], "links": []})",
        "/nodes/0/param_cost: expected a non-negative integer, got -4");
  check(R"({"nodes": [{"name": "n", "backward": true, "cost_cpu": 1, "cost_ram": 1, "id": 0}], "links": []})",
        "graph has no forward nodes");
}
