#include "remat/runtime/MeasuredRun.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "remat/io/detail/ReaderSupport.hpp"
#include "remat/runtime/ValidationError.hpp"

namespace remat::runtime {

using nlohmann::json;

namespace {

// A malformed measurement names the file and the JSON path of what is missing or of the wrong type.
class Reader {
 public:
  explicit Reader(std::string file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw ValidationError(ValidationFailure::Input, m_file + ": " + (path.empty() ? "" : path + ": ") + what +
                                                        " (not a measurement of remat-runner?)");
  }
  const json& at(const json& j, const std::string& path, const char* key) const {
    if (!j.is_object() || !j.contains(key)) fail(path + "/" + key, "missing");
    return j.at(key);
  }
  std::int64_t integer(const json& j, const std::string& path, const char* key) const {
    const json& v = at(j, path, key);
    if (!v.is_number_integer()) fail(path + "/" + key, "expected an integer");
    return v.get<std::int64_t>();
  }
  double number(const json& j, const std::string& path, const char* key) const {
    const json& v = at(j, path, key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();  // the runner writes NaN as null
    if (!v.is_number()) fail(path + "/" + key, "expected a number");
    return v.get<double>();
  }
  std::string text(const json& j, const std::string& path, const char* key, bool nullable = false) const {
    const json& v = at(j, path, key);
    if (nullable && v.is_null()) return {};
    if (!v.is_string()) fail(path + "/" + key, "expected a string");
    return v.get<std::string>();
  }

 private:
  std::string m_file;
};

}  // namespace

std::int64_t MeasuredRun::peak() const {
  std::int64_t best = 0;
  for (const auto& s : steps) best = std::max(best, s.duringTotal);
  return best;
}

std::size_t MeasuredRun::peakStep() const {
  std::size_t at = 0;
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (steps[k].duringTotal > steps[at].duringTotal) at = k;
  return at;
}

std::int64_t MeasuredRun::peakWithoutViews() const {
  std::int64_t best = 0;
  for (const auto& s : steps) best = std::max(best, s.duringTotal - s.duringViewAlias);
  return best;
}

MeasuredRun readMeasuredRun(const std::string& path) {
  std::string why;
  const auto text = io::detail::readFileCapped(path, std::uintmax_t{1} << 30, "measurement", why, true);
  if (!text) throw ValidationError(ValidationFailure::Input, path + ": " + why);
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    throw ValidationError(ValidationFailure::Input, path + ": not valid JSON: " + e.what());
  }
  const Reader r(path);
  if (!doc.is_object() || doc.value("format", std::string()) != "remat-measurement")
    r.fail("/format", "expected \"remat-measurement\"");
  MeasuredRun m;
  m.graph = r.text(doc, "", "graph");
  m.device = r.text(doc, "", "device");
  m.mode = r.text(doc, "", "mode");
  m.solver = r.text(doc, "", "solver", true);
  m.loss = r.number(doc, "", "loss");
  const json& steps = r.at(doc, "", "steps");
  if (!steps.is_array()) r.fail("/steps", "expected an array");
  static constexpr const char* kCategories[] = {"params", "param_grads", "inputs", "values", "recomputed", "grads"};
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const std::string at = "/steps/" + std::to_string(k);
    const json& s = steps[k];
    MeasuredStep step;
    step.kind = r.text(s, at, "kind");
    step.node = r.text(s, at, "node");
    const json& recompute = r.at(s, at, "recompute");
    step.recompute = recompute.is_boolean() && recompute.get<bool>();
    const json& during = r.at(s, at, "during");
    for (std::size_t c = 0; c < step.during.size(); ++c)
      step.during[c] = r.integer(during, at + "/during", kCategories[c]);
    step.duringTotal = r.integer(during, at + "/during", "total");
    step.duringViewAlias = r.integer(r.at(s, at, "during_view_alias"), at + "/during_view_alias", "total");
    step.afterTotal = r.integer(r.at(s, at, "after"), at + "/after", "total");
    step.afterViewAlias = r.integer(r.at(s, at, "after_view_alias"), at + "/after_view_alias", "total");
    // Measurements of earlier runners have no allocator figures; where present they must be whole.
    if (s.is_object() && s.contains("allocator") && !s.at("allocator").is_null()) {
      const json& a = s.at("allocator");
      step.allocatorPeak = r.integer(a, at + "/allocator", "peak");
      step.allocatorAfter = r.integer(a, at + "/allocator", "after");
      if (*step.allocatorPeak < 0 || *step.allocatorAfter < 0) r.fail(at + "/allocator", "negative bytes");
    }
    step.seconds = r.number(s, at, "seconds");
    m.steps.push_back(std::move(step));
  }
  const json& iterations = r.at(doc, "", "iteration_seconds");
  if (!iterations.is_array()) r.fail("/iteration_seconds", "expected an array");
  for (const json& t : iterations) {
    if (!t.is_number()) r.fail("/iteration_seconds", "expected numbers");
    m.iterationSeconds.push_back(t.get<double>());
  }
  m.medianIterationSeconds = r.number(doc, "", "median_iteration_seconds");
  const json& cuda = r.at(doc, "", "cuda");
  if (!cuda.is_null())
    m.cuda = AllocatorPeaks{r.integer(cuda, "/cuda", "allocator_peak_bytes"),
                            r.integer(cuda, "/cuda", "reserved_peak_bytes")};
  if (doc.contains("cpu_allocator") && !doc.at("cpu_allocator").is_null()) {
    const json& a = doc.at("cpu_allocator");
    m.cpuAllocatorPeak = r.integer(a, "/cpu_allocator", "peak_bytes");
    const json& step = r.at(a, "/cpu_allocator", "peak_step");
    if (!step.is_null()) {
      if (!step.is_number_unsigned() || step.get<std::uint64_t>() >= m.steps.size())
        r.fail("/cpu_allocator/peak_step", "expected a step index");
      m.cpuAllocatorPeakStep = step.get<std::size_t>();
    }
  }
  if (doc.contains("cpu_allocator_note")) m.cpuAllocatorNote = r.text(doc, "", "cpu_allocator_note");
  const json& grads = r.at(doc, "", "gradient_check");
  if (!grads.is_null()) {
    const json& passed = r.at(grads, "/gradient_check", "passed");
    if (!passed.is_boolean()) r.fail("/gradient_check/passed", "expected true or false");
    m.gradientsMatch = passed.get<bool>();
    m.gradientMaxRelDiff = r.number(grads, "/gradient_check", "max_rel_diff");
  }
  return m;
}

}  // namespace remat::runtime
