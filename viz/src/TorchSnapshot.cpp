#include "remat/viz/TorchSnapshot.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "remat/sim/Simulator.hpp"
#include "remat/viz/MemoryLayout.hpp"
#include "remat/viz/NodeLabel.hpp"
#include "remat/viz/Timeline.hpp"

namespace remat::viz {
namespace {

// Python's pickle, protocol 2: the few opcodes this file needs, no memo (nothing is shared).
class Pickle {
 public:
  Pickle() { m_out += "\x80\x02"; }    // PROTO 2
  void beginDict() { m_out += "}("; }  // EMPTY_DICT, MARK
  void endDict() { m_out += 'u'; }     // SETITEMS
  void beginList() { m_out += "]("; }  // EMPTY_LIST, MARK
  void endList() { m_out += 'e'; }     // APPENDS
  void text(std::string_view s) {
    m_out += 'X';  // BINUNICODE: 4-byte little-endian length, UTF-8
    le(static_cast<std::uint64_t>(s.size()), 4);
    m_out += s;
  }
  void integer(std::int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      m_out += 'J';  // BININT: 4-byte little-endian signed
      le(static_cast<std::uint64_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(v))), 4);
      return;
    }
    m_out += '\x8a';  // LONG1: length byte, little-endian two's complement
    m_out += static_cast<char>(8);
    le(static_cast<std::uint64_t>(v), 8);
  }
  void key(std::string_view k) { text(k); }
  std::string finish() {
    m_out += '.';  // STOP
    return std::move(m_out);
  }

 private:
  void le(std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) m_out += static_cast<char>((v >> (8 * k)) & 0xFF);
  }
  std::string m_out;
};

std::string_view holds(sim::TensorLifetime::Kind kind) {
  switch (kind) {
    case sim::TensorLifetime::Kind::Param: return "parameter";
    case sim::TensorLifetime::Kind::Input: return "input";
    case sim::TensorLifetime::Kind::Value: return "value";
    case sim::TensorLifetime::Kind::Recomputed: return "recomputed value";
    case sim::TensorLifetime::Kind::Grad: return "gradient";
    case sim::TensorLifetime::Kind::ParamGrad: return "parameter gradient";
    case sim::TensorLifetime::Kind::Workspace: return "workspace";
  }
  return "tensor";
}

}  // namespace

std::string torchMemorySnapshot(const graph::ComputeGraph& g, const sim::Schedule& schedule) {
  sim::SimulatorOptions options;
  options.recordLifetimes = true;
  const sim::SimulationResult r = sim::Simulator(g, options).run(schedule);
  if (!r.valid()) throw std::invalid_argument("the plan does not simulate: " + r.error->message);
  std::vector<sim::TensorLifetime> tensors;
  for (const auto& t : r.lifetimes)
    if (t.bytes.value > 0) tensors.push_back(t);
  const MemoryLayout layout = planMemoryLayout(tensors, schedule.size());
  constexpr std::int64_t kBase = std::int64_t{0x7f00} << 32;  // where a CUDA heap would start

  // Time at the end of each step, in the graph's unit; in microseconds where the unit is a time.
  double perUs = 0;
  const std::string& unit = g.timeUnit();
  if (unit == "ns")
    perUs = 1e-3;
  else if (unit == "us" || unit == "\u00b5s")
    perUs = 1;
  else if (unit == "ms")
    perUs = 1e3;
  else if (unit == "s")
    perUs = 1e6;
  // The timeline's cumulative compute time at the end of each step, converted.
  std::vector<std::int64_t> endTime = timelineSeries(g, schedule, r, {}).endTime;
  for (std::size_t s = 0; s < endTime.size(); ++s) {
    const std::int64_t clock = endTime[s];
    endTime[s] = perUs > 0 ? static_cast<std::int64_t>(double(clock) * perUs) : clock;
  }

  auto frame = [&](Pickle& p, const PlacedTensor& t, std::size_t step) {
    p.beginList();
    p.beginDict();
    p.key("filename");
    p.text("remat:" + g.name());
    p.key("line");
    p.integer(static_cast<std::int64_t>(step));
    p.key("name");
    p.text(std::string(holds(t.tensor.kind)) + " " + displayName(g.node(t.tensor.node).name) + " \u00b7 " +
           std::string(sim::stepKindName(schedule[step].kind)) + " " + displayName(g.node(schedule[step].node).name));
    p.endDict();
    p.endList();
  };
  auto entry = [&](Pickle& p, std::string_view action, const PlacedTensor& t, std::size_t step) {
    p.beginDict();
    p.key("action");
    p.text(action);
    p.key("addr");
    p.integer(kBase + t.offset.value);
    p.key("size");
    p.integer(t.tensor.bytes.value);
    p.key("stream");
    p.integer(0);
    p.key("time_us");
    p.integer(endTime[step]);
    p.key("frames");
    frame(p, t, step);
    p.endDict();
  };

  // Per step, the tensors made in it and those last alive in it, in the layout's order.
  std::vector<std::vector<std::size_t>> made(schedule.size()), done(schedule.size());
  for (std::size_t k = 0; k < layout.tensors.size(); ++k) {
    made[layout.tensors[k].tensor.first].push_back(k);
    done[layout.tensors[k].tensor.last].push_back(k);
  }
  Pickle p;
  p.beginDict();
  p.key("device_traces");
  p.beginList();
  p.beginList();
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    for (std::size_t k : made[s]) entry(p, "alloc", layout.tensors[k], s);
    for (std::size_t k : done[s]) entry(p, "free_completed", layout.tensors[k], s);
  }
  p.endList();
  p.endList();
  p.key("segments");
  p.beginList();
  for (const PlacedTensor& t : layout.tensors) {
    if (t.tensor.first > r.peakStep || t.tensor.last < r.peakStep) continue;
    const std::int64_t addr = kBase + t.offset.value;
    const std::int64_t size = t.tensor.bytes.value;
    p.beginDict();
    for (const char* k : {"device", "stream"}) {
      p.key(k);
      p.integer(0);
    }
    p.key("address");
    p.integer(addr);
    for (const char* k : {"total_size", "allocated_size", "active_size", "requested_size"}) {
      p.key(k);
      p.integer(size);
    }
    p.key("segment_type");
    p.text(size > (std::int64_t{1} << 20) ? "large" : "small");
    p.key("blocks");
    p.beginList();
    p.beginDict();
    p.key("address");
    p.integer(addr);
    p.key("size");
    p.integer(size);
    p.key("requested_size");
    p.integer(size);
    p.key("state");
    p.text("active_allocated");
    p.key("frames");
    frame(p, t, t.tensor.first);
    p.key("history");
    p.beginList();
    p.beginDict();
    p.key("addr");
    p.integer(addr);
    p.key("real_size");
    p.integer(size);
    p.key("frames");
    frame(p, t, t.tensor.first);
    p.endDict();
    p.endList();
    p.endDict();
    p.endList();
    p.endDict();
  }
  p.endList();
  p.endDict();
  return p.finish();
}

}  // namespace remat::viz
