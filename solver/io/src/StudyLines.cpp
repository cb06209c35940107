#include "remat/io/detail/StudyLines.hpp"

#include <map>

#include "remat/io/detail/JsonSupport.hpp"

namespace remat::io::detail {

using nlohmann::json;

std::optional<std::string> studyLineProblem(const json& v) {
  if (!v.is_object()) return std::string("not a line of a study (one JSON object per line)");
  for (const char* key : {"study", "task", "tasks", "graph", "budget", "solver", "fits_budget", "metrics"})
    if (!v.contains(key)) return std::string("a study line without '") + key + "'";
  for (const char* key : {"study", "graph", "budget", "solver"})
    if (!v[key].is_string()) return std::string("'") + key + "' must be a string";
  if (!v["task"].is_number_unsigned() || !v["tasks"].is_number_unsigned() ||
      v["task"].get<std::size_t>() >= v["tasks"].get<std::size_t>())
    return std::string("'task' must be a number below 'tasks'");
  if (!v["fits_budget"].is_boolean()) return std::string("'fits_budget' must be true or false");
  if (!v["metrics"].is_object()) return std::string("'metrics' must be an object");
  for (const char* key : {"time_unit", "call", "status"})
    if (v.contains(key) && !v[key].is_string()) return std::string("'") + key + "' must be a string";
  auto integerOrNull = [](const json& object, const char* key) {
    return !object.contains(key) || object[key].is_null() || object[key].is_number_integer();
  };
  for (const char* key : {"budget_bytes", "vanilla_peak_bytes"})
    if (!integerOrNull(v, key)) return std::string("'") + key + "' must be an integer or null";
  for (const char* key : {"simulated_peak_bytes", "overhead", "recomputed_nodes"})
    if (!integerOrNull(v["metrics"], key)) return std::string("'metrics.") + key + "' must be an integer or null";
  for (const char* key : {"overhead_percent", "reduction_percent"})
    if (v.contains(key) && !v[key].is_null() && !v[key].is_number())
      return std::string("'") + key + "' must be a number or null";
  return std::nullopt;
}

void appendStudyLines(std::string_view text, const std::string& file, std::vector<StudyLine>& out) {
  std::size_t start = 0;
  for (std::size_t number = 1; start < text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = file + ":" + std::to_string(number);
    std::string why;
    std::optional<json> value = parseEmbeddedJson(line, why);
    if (!value)
      throw StudyLineError(
          std::string(where).append(": not a line of a study (one JSON object per line): ").append(why));
    if (const auto problem = studyLineProblem(*value)) throw StudyLineError(where + ": " + *problem);
    out.push_back({std::string(line), std::move(*value), where});
  }
}

std::vector<StudyLine> joinStudyLines(std::vector<StudyLine> lines) {
  if (lines.empty()) throw StudyLineError("the shards hold no study line");
  const std::string study = lines.front().value["study"].get<std::string>();
  const std::size_t tasks = lines.front().value["tasks"].get<std::size_t>();
  std::map<std::size_t, std::size_t> at;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const json& v = lines[k].value;
    if (v["study"] != study || v["tasks"].get<std::size_t>() != tasks)
      throw StudyLineError(lines[k].where + ": a line of another study than " + lines.front().where +
                           " (other graphs or their contents, budgets, solvers or options)");
    const auto task = v["task"].get<std::size_t>();
    if (const auto first = at.find(task); first != at.end())
      throw StudyLineError(lines[k].where + ": task " + std::to_string(task) + " again (first at " +
                           lines[first->second].where + "): the shards overlap");
    at.emplace(task, k);
  }
  if (at.size() != tasks) {
    // The first few missing, found among the tasks present and the gaps between them.
    std::string list;
    std::size_t listed = 0;
    std::size_t expected = 0;
    for (auto it = at.begin(); listed < 10 && expected < tasks; ++expected) {
      if (it != at.end() && it->first == expected) {
        ++it;
        continue;
      }
      list += (listed++ ? ", " : "") + std::to_string(expected);
    }
    if (tasks - at.size() > listed) list += ", ...";
    throw StudyLineError(std::to_string(tasks - at.size()) + " of the study's " + std::to_string(tasks) +
                         " tasks are in no shard (" + list + "): a shard is missing or was cut short");
  }
  std::vector<StudyLine> ordered;
  ordered.reserve(tasks);
  for (const auto& [task, k] : at) ordered.push_back(std::move(lines[k]));
  return ordered;
}

}  // namespace remat::io::detail
