#include "remat/runtime/PlanSpec.hpp"

#include "remat/runtime/RunnerError.hpp"

namespace remat::runtime {

using nlohmann::json;

std::string_view stepKindName(StepKind k) {
  switch (k) {
    case StepKind::Forward: return "fwd";
    case StepKind::Backward: return "bwd";
    case StepKind::Free: return "free";
    case StepKind::FreeGrad: return "free-grad";
  }
  return "?";
}

PlanSpec readPlanSpec(const std::string& path, const GraphSpec& g) {
  return parsePlanSpec(readTextFile(path), path, g);
}

PlanSpec parsePlanSpec(std::string_view text, const std::string& fileName, const GraphSpec& g) {
  auto fail = [&](ExitCode code, const std::string& where, const std::string& why) {
    return RunnerError(code, fileName + ": " + (where.empty() ? "" : where + ": ") + why);
  };
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw fail(ExitCode::Input, "", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw fail(ExitCode::Input, "", "expected a JSON object");
  if (doc.value("format", json()) != "remat-plan") throw fail(ExitCode::Input, "/format", "expected \"remat-plan\"");
  if (doc.value("version", json()) != 1)
    throw fail(ExitCode::Input, "/version", "unsupported plan version (remat-runner reads 1)");
  PlanSpec plan;
  plan.file = fileName;
  if (doc.contains("solver") && doc["solver"].is_string()) plan.solver = doc["solver"].get<std::string>();
  if (doc.contains("graph") && doc["graph"].is_string()) {
    plan.graphName = doc["graph"].get<std::string>();
    if (plan.graphName != g.name)
      throw fail(ExitCode::PlanMismatch, "/graph",
                 "the plan is for graph '" + plan.graphName + "', not for '" + g.name + "' (" + g.file + ")");
  }
  if (!doc.contains("schedule") || !doc["schedule"].is_array())
    throw fail(ExitCode::Input, "/schedule",
               doc.contains("schedule") && doc["schedule"].is_null()
                   ? "the plan has no schedule (status " + doc.value("status", json("?")).dump() + ")"
                   : "expected an array of steps");
  const json& steps = doc["schedule"];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "/schedule/" + std::to_string(i);
    const json& s = steps[i];
    if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_string())
      throw fail(ExitCode::Input, where,
                 "expected [\"fwd\"|\"bwd\"|\"free\"|\"free-grad\", node id] (step " + std::to_string(i) + ")");
    const std::string kind = s[0].get<std::string>();
    PlanStep step;
    if (kind == "fwd")
      step.kind = StepKind::Forward;
    else if (kind == "bwd")
      step.kind = StepKind::Backward;
    else if (kind == "free")
      step.kind = StepKind::Free;
    else if (kind == "free-grad")
      step.kind = StepKind::FreeGrad;
    else
      throw fail(ExitCode::Input, where + "/0", "unknown step kind '" + kind + "' (step " + std::to_string(i) + ")");
    auto id = g.find(s[1].get<std::string>());
    if (!id)
      throw fail(ExitCode::PlanMismatch, where + "/1",
                 "step " + std::to_string(i) + ": node '" + s[1].get<std::string>() + "' is not in graph '" + g.name +
                     "' (" + g.file + "); the plan is for another graph");
    step.node = *id;
    plan.schedule.push_back(step);
  }
  return plan;
}

}  // namespace remat::runtime
