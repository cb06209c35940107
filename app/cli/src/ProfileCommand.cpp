#include <cstdio>
#include <iostream>
#include <memory>

#include "CliSupport.hpp"
#include "Commands.hpp"
#include "MeasureSupport.hpp"
#include "remat/graph/PrintableText.hpp"
#include "remat/runtime/Profiler.hpp"

namespace remat::cli {

namespace {

struct ProfileOptions {
  GraphOptions graph;
  MeasureCliOptions measure;
  std::string output;
  bool json = false;
};

int runProfile(const ProfileOptions& o) {
  const runtime::MeasureOptions measure = measureOptions(o.measure);
  checkOutputPath(o.output, {o.graph.path, o.measure.runner});
  LoadedGraph loaded = loadGraph(o.graph);
  const graph::ComputeGraph& g = loaded.graph;
  if (!o.json)
    for (const auto& w : loaded.warnings) std::cerr << "remat: warning: " << w << '\n';
  runtime::Profiler profiler(g, measure, o.graph.path);
  try {
    profiler.run();
    runtime::writeGraphAtomically(profiler.profiled(), o.output);
  } catch (const runtime::ValidationError& e) {
    throw cliError(e);
  }
  if (o.json) {
    nlohmann::json j;
    j["graph"] = g.name();
    j["device"] = measure.device;
    j["output"] = o.output;
    j["cost_model"] = profiler.profiled().costModel();
    j["time_unit"] = profiler.profiled().timeUnit();
    j["operations"] = g.opCount();
    j["forward_ns"] = profiler.forwardNanoseconds();
    j["backward_ns"] = profiler.backwardNanoseconds();
    j["iteration_seconds"] = profiler.iterationSeconds();
    j["bytes_checked"] = profiler.bytesChecked();
    j["warmup"] = measure.warmup;
    j["iterations"] = measure.iterations;
    j["warnings"] = loaded.warnings;
    printJson(j);
    return kOk;
  }
  char line[160];
  std::snprintf(line, sizeof line, "%.3f ms forward, %.3f ms backward (sums of the medians of %d iterations)",
                double(profiler.forwardNanoseconds()) * 1e-6, double(profiler.backwardNanoseconds()) * 1e-6,
                measure.iterations);
  char iteration[48];
  std::snprintf(iteration, sizeof iteration, "%.2f ms", profiler.iterationSeconds() * 1e3);
  std::cout << "Graph        " << graph::printableText(g.name()) << "  (" << g.opCount() << " operations)\n"
            << "Device       " << measure.device << '\n'
            << "Measured     " << line << '\n'
            << "Iteration    " << iteration << " (store-all, median)\n"
            << "Bytes        every output's size equals the storage the runner allocated (" << profiler.bytesChecked()
            << " operations)\n"
            << "Written to   " << o.output << "  (cost model profiled, time unit ns)\n";
  return kOk;
}

}  // namespace

void addProfileCommand(CLI::App& app, Runner& run) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Measure every operation's forward and backward time on a device (remat-runner) into a graph");
  cmd->add_option("graph", o->graph.path, "Graph file (with the shapes and attributes of an ONNX import)")->required();
  addMeasureOptions(cmd, o->measure);
  addGraphOptions(cmd, o->graph);
  cmd->add_option("--output,-o", o->output, "Where the profiled graph (native JSON) goes")->required();
  cmd->add_flag("--json", o->json, "Machine-readable summary");
  cmd->callback([o, &run] { run = [o] { return runProfile(*o); }; });
}

}  // namespace remat::cli
