#include "remat/runtime/Measurement.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <unistd.h>

#include "remat/runtime/RunnerError.hpp"

namespace remat::runtime {

using nlohmann::json;

namespace {

json breakdownJson(const Breakdown& b) {
  return json{{"params", b.params},   {"param_grads", b.paramGrads}, {"inputs", b.inputs},
              {"values", b.values},   {"recomputed", b.recomputed},  {"grads", b.grads},
              {"workspace", nullptr}, {"total", b.total()}};
}

json aliasJson(const AliasBytes& a) {
  return json{{"values", a.values}, {"recomputed", a.recomputed}, {"grads", a.grads}, {"total", a.total()}};
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

json toJson(const Measurement& m) {
  json j;
  j["format"] = "remat-measurement";
  j["version"] = 1;
  j["graph"] = m.graph;
  j["graph_file"] = m.graphFile;
  j["mode"] = m.mode;
  j["plan_file"] = m.planFile.empty() ? json(nullptr) : json(m.planFile);
  j["solver"] = m.solver.empty() ? json(nullptr) : json(m.solver);
  j["device"] = m.device;
  j["torch_version"] = m.torchVersion;
  j["seed"] = m.seed;
  j["warmup"] = m.warmup;
  j["iterations"] = m.iterations;
  j["liveness"] = m.liveness;
  j["deterministic_algorithms"] = m.deterministic;
  j["loss"] = m.loss;
  json steps = json::array();
  std::int64_t peak = 0;
  std::size_t peakStep = 0;
  for (std::size_t i = 0; i < m.steps.size(); ++i) {
    const StepMeasurement& s = m.steps[i];
    if (s.during.total() > peak) {
      peak = s.during.total();
      peakStep = i;
    }
    steps.push_back(json{{"index", i},
                         {"kind", s.kind},
                         {"node", s.node},
                         {"recompute", s.recompute},
                         {"during", breakdownJson(s.during)},
                         {"after", breakdownJson(s.after)},
                         {"during_view_alias", aliasJson(s.duringAlias)},
                         {"after_view_alias", aliasJson(s.afterAlias)},
                         {"seconds", s.seconds}});
  }
  j["steps"] = std::move(steps);
  j["peak_bytes"] = m.steps.empty() ? json(nullptr) : json(peak);
  j["peak_step"] = m.steps.empty() ? json(nullptr) : json(peakStep);
  j["iteration_seconds"] = m.iterationSeconds;
  j["median_iteration_seconds"] = median(m.iterationSeconds);
  j["model_only_param_grads"] = m.modelOnlyParamGrads;
  if (m.cuda) {
    j["cuda"] = json{{"allocator_peak_bytes", m.cuda->allocatorPeakBytes},
                     {"reserved_peak_bytes", m.cuda->reservedPeakBytes},
                     {"reserved_bytes", m.cuda->reservedBytes}};
  } else {
    j["cuda"] = nullptr;
  }
  if (m.gradients) {
    const GradientCheck& g = *m.gradients;
    json params = json::array();
    for (const auto& p : g.params)
      params.push_back(
          json{{"name", p.name}, {"max_abs_diff", p.maxAbsDiff}, {"max_rel_diff", p.maxRelDiff}, {"ok", p.ok}});
    j["gradient_check"] = json{{"reference", g.reference},
                               {"rtol", g.rtol},
                               {"atol", g.atol},
                               {"passed", g.passed},
                               {"max_abs_diff", g.maxAbsDiff},
                               {"max_rel_diff", g.maxRelDiff},
                               {"params", std::move(params)}};
  } else {
    j["gradient_check"] = nullptr;
  }
  return j;
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw RunnerError(ExitCode::Input, path + ": cannot write (cannot create " + tmp + ")");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw RunnerError(ExitCode::Input, path + ": cannot write");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw RunnerError(ExitCode::Input, path + ": cannot move the finished file into place");
  }
}

}  // namespace remat::runtime
