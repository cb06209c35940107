#include "remat/runtime/TraceComparison.hpp"

#include <cstdio>

#include "remat/graph/ByteSize.hpp"
#include "remat/runtime/ValidationError.hpp"
#include "remat/sim/CanonicalSchedule.hpp"
#include "remat/sim/Simulator.hpp"

namespace remat::runtime {

double TraceComparison::errorPercent() const {
  return predictedPeak > 0 ? 100.0 * double(measuredPeak - predictedPeak) / double(predictedPeak) : 0.0;
}

TraceComparison compareWithTrace(const graph::ComputeGraph& g, const io::MemoryTrace& trace,
                                 const std::string& traceFile) {
  TraceComparison c;
  c.graph = g.name();
  c.traceFile = traceFile;
  c.device = trace.device;
  c.traceModel = trace.model;
  c.torchVersion = trace.torchVersion;
  c.measuredPeak = trace.peakBytes;
  c.residentBytes = trace.residentBytes;
  c.residentKnown = trace.residentKnown;
  c.events = trace.liveBytes.size();

  // The plain run: what one training step of the framework does, every value kept until its last use
  // (store-all's schedule, simulated with liveness).
  const sim::Schedule plain = sim::storeAllSchedule(g);
  const sim::SimulationResult simulation = sim::Simulator(g).run(plain);
  if (simulation.error)
    throw ValidationError(ValidationFailure::Input,
                          "the graph's plain run does not simulate: " + simulation.error->message);
  c.predicted = viz::timelineSeries(g, plain, simulation, "store-all predicted");
  c.predictedPeak = c.predicted.peak;
  c.predictedPeakWhat = c.predicted.peakWhat;

  viz::TimelineSeries& m = c.measured;
  m.label = (trace.model.empty() ? std::string("trace") : trace.model) + " measured";
  const std::int64_t end = c.predicted.endTime.empty() ? 0 : c.predicted.endTime.back();
  const std::int64_t last = trace.timeUs.empty() ? 0 : trace.timeUs.back();
  constexpr auto kParams = static_cast<std::size_t>(viz::MemoryCategory::Params);
  constexpr auto kValues = static_cast<std::size_t>(viz::MemoryCategory::Values);
  for (std::size_t k = 0; k < trace.liveBytes.size(); ++k) {
    std::array<std::int64_t, viz::kMemoryCategories> bytes{};
    bytes[kParams] = trace.residentBytes;
    bytes[kValues] = trace.liveBytes[k] - trace.residentBytes;
    m.bytes.push_back(bytes);
    const double at =
        last > 0 ? double(trace.timeUs[k]) / double(last) : double(k + 1) / double(trace.liveBytes.size());
    m.endTime.push_back(static_cast<std::int64_t>(at * double(end)));
    m.phase.push_back(viz::Phase::Forward);
    const std::int64_t delta = trace.liveBytes[k] - (k == 0 ? trace.residentBytes : trace.liveBytes[k - 1]);
    m.what.push_back((delta >= 0 ? "alloc " : "free ") + formatByteSize(Bytes{delta >= 0 ? delta : -delta}) + " at " +
                     std::to_string(trace.timeUs[k]) + " us");
  }
  m.peak = trace.peakBytes;
  m.peakStep = trace.peakEvent;
  if (m.peakStep < m.what.size()) m.peakWhat = m.what[m.peakStep];

  if (!trace.residentKnown)
    c.notes.push_back(
        "the trace does not say what was held before its first event (parameters, inputs): its peak "
        "leaves it out, so it reads low");
  c.notes.push_back(
      "the measured curve's time is the trace's, scaled so that its last event ends where the "
      "predicted step ends (the graph's cost model, not this device's clock)");
  c.notes.push_back(
      "the prediction is the simulator's plain run (store-all with liveness); the trace is one "
      "training step of the framework's own autograd, whose saved tensors may differ from the "
      "graph's `saves`");
  return c;
}

namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v > 0 ? "+%.2f%%" : "%.2f%%", v);
  return buf;
}

}  // namespace

std::vector<std::vector<std::string>> traceComparisonTable(const TraceComparison& c) {
  return {{"graph", "device", "predicted peak", "measured peak", "error", "resident", "events"},
          {c.graph, c.device, formatByteSize(Bytes{c.predictedPeak}), formatByteSize(Bytes{c.measuredPeak}),
           percent(c.errorPercent()), c.residentKnown ? formatByteSize(Bytes{c.residentBytes}) : std::string("unknown"),
           std::to_string(c.events)}};
}

nlohmann::json traceComparisonJson(const TraceComparison& c) {
  nlohmann::json j;
  j["graph"] = c.graph;
  j["trace_file"] = c.traceFile;
  j["device"] = c.device;
  j["trace_model"] = c.traceModel;
  j["torch_version"] = c.torchVersion.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.torchVersion);
  j["predicted_peak_bytes"] = c.predictedPeak;
  j["predicted_peak_step"] = c.predictedPeakWhat;
  j["measured_peak_bytes"] = c.measuredPeak;
  j["resident_bytes"] = c.residentKnown ? nlohmann::json(c.residentBytes) : nlohmann::json(nullptr);
  j["events"] = c.events;
  j["error_percent"] = c.errorPercent();
  j["notes"] = c.notes;
  return j;
}

}  // namespace remat::runtime
