#include "remat/solvers/Pins.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include <nlohmann/json.hpp>

#include "remat/io/detail/JsonSupport.hpp"
#include "remat/io/detail/ReaderSupport.hpp"
#include "remat/sim/CanonicalSchedule.hpp"

namespace remat::solvers {

namespace jd = io::detail;

Result<Pins> pinsFromNames(const graph::ComputeGraph& g, const std::vector<std::string>& keep,
                           const std::vector<std::string>& recompute, const SourceLocation& where) {
  std::vector<Diagnostic> errors;
  Pins out;
  auto add = [&](const std::vector<std::string>& names, std::vector<graph::OpIndex>& into, const char* how) {
    for (const std::string& name : names) {
      const std::optional<graph::NodeId> id = g.find(name);
      if (!id) {
        errors.push_back({where, "cannot pin '" + name + "' " + how + ": the graph has no node of that name"});
        continue;
      }
      if (!g.isOp(*id)) {
        errors.push_back({where, "cannot pin '" + name + "' " + how +
                                     ": it is an input or a parameter, always in memory and never recomputed"});
        continue;
      }
      const graph::OpIndex op = g.opIndex(*id);
      if (std::find(into.begin(), into.end(), op) == into.end()) into.push_back(op);
    }
  };
  add(keep, out.keep, "as keep");
  add(recompute, out.recompute, "as recompute");
  for (graph::OpIndex op : out.keep)
    if (std::find(out.recompute.begin(), out.recompute.end(), op) != out.recompute.end())
      errors.push_back({where, "'" + g.node(g.opNode(op)).name + "' is pinned both as keep and as recompute"});
  if (!errors.empty()) return Result<Pins>::failure(std::move(errors));
  return out;
}

Pins graphPins(const graph::ComputeGraph& g) {
  Pins out;
  for (graph::NodeId id : g.pinnedKeep()) out.keep.push_back(g.opIndex(id));
  for (graph::NodeId id : g.pinnedRecompute()) out.recompute.push_back(g.opIndex(id));
  return out;
}

void addGraphPinNames(const graph::ComputeGraph& g, std::vector<std::string>& keep,
                      std::vector<std::string>& recompute) {
  std::vector<std::string> k;
  std::vector<std::string> r;
  for (graph::NodeId id : g.pinnedKeep()) k.push_back(g.node(id).name);
  for (graph::NodeId id : g.pinnedRecompute()) r.push_back(g.node(id).name);
  keep.insert(keep.begin(), k.begin(), k.end());
  recompute.insert(recompute.begin(), r.begin(), r.end());
}

Result<bool> readPinNames(std::string_view text, const std::string& file, std::vector<std::string>& keep,
                          std::vector<std::string>& recompute) {
  jd::Diagnostics diag(file);
  auto doc = jd::parseJson(jd::stripBom(text), diag);
  if (!doc) return diag.failure<bool>();
  if (!doc->is_object()) {
    diag.errorAtPath("",
                     "expected a JSON object {\"keep\": [names], \"recompute\": [names]}, got " + jd::describe(*doc));
    return diag.failure<bool>();
  }
  for (const auto& [key, value] : doc->items())
    if (key != "keep" && key != "recompute")
      diag.errorAtPath(jd::childPath("", key), "unknown member (a pins file has \"keep\" and \"recompute\")");
  for (const char* key : {"keep", "recompute"}) {
    const jd::Json* list = jd::member(*doc, key);
    if (!list) continue;
    const std::string path = jd::childPath("", key);
    if (!list->is_array()) {
      diag.errorAtPath(path, "expected an array of node names, got " + jd::describe(*list));
      continue;
    }
    for (std::size_t k = 0; k < list->size(); ++k) {
      const jd::Json& name = (*list)[k];
      if (!name.is_string()) {
        diag.errorAtPath(jd::childPath(path, k), "expected a node name, got " + jd::describe(name));
        continue;
      }
      (std::string_view(key) == "keep" ? keep : recompute).push_back(name.get<std::string>());
    }
  }
  if (diag.hasErrors()) return diag.failure<bool>();
  return true;
}

Result<bool> readPinsFile(const std::string& path, std::vector<std::string>& keep,
                          std::vector<std::string>& recompute) {
  std::string why;
  std::optional<std::string> text;
  try {
    text = jd::readFileCapped(path, std::uintmax_t{16} << 20, "pins", why, true);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!text) return Result<bool>::failure(Diagnostic{{path, 0, {}}, "cannot read pins file: " + why});
  return readPinNames(*text, path, keep, recompute);
}

std::string pinsJson(const graph::ComputeGraph& g, const Pins& pins) {
  nlohmann::json out = nlohmann::json::object();
  auto names = [&](const std::vector<graph::OpIndex>& ops) {
    nlohmann::json list = nlohmann::json::array();
    for (graph::OpIndex op : ops) list.push_back(g.node(g.opNode(op)).name);
    return list;
  };
  out["keep"] = names(pins.keep);
  out["recompute"] = names(pins.recompute);
  return out.dump();
}

std::vector<std::string> pinViolations(const graph::ComputeGraph& g, const sim::Schedule& schedule,
                                       const std::vector<graph::NodeSet>* lowerSets, const Pins& pins,
                                       bool checkRecompute) {
  std::vector<std::string> out;
  auto name = [&](graph::OpIndex op) { return "'" + g.node(g.opNode(op)).name + "'"; };
  for (graph::OpIndex op : pins.keep) {
    const graph::NodeId node = g.opNode(op);
    const auto computed = std::count_if(schedule.begin(), schedule.end(), [&](const sim::Step& s) {
      return s.kind == sim::StepKind::Forward && s.node == node;
    });
    if (computed > 1) out.push_back(name(op) + " is pinned keep but computed " + std::to_string(computed) + " times");
  }
  if (checkRecompute && lowerSets && !lowerSets->empty() && !pins.recompute.empty()) {
    const sim::ChainLowering lowering = sim::lowerChain(g, *lowerSets);
    for (graph::OpIndex op : pins.recompute)
      for (std::size_t i = 0; i < lowering.checkpoints.size(); ++i)
        if (lowering.checkpoints[i].contains(op))
          out.push_back(name(op) + " is pinned recompute but kept as a checkpoint of segment " + std::to_string(i + 1));
  }
  return out;
}

}  // namespace remat::solvers
