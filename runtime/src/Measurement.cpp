#include "remat/runtime/Measurement.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

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
    steps.push_back(json{
        {"index", i},
        {"kind", s.kind},
        {"node", s.node},
        {"recompute", s.recompute},
        {"during", breakdownJson(s.during)},
        {"after", breakdownJson(s.after)},
        {"during_view_alias", aliasJson(s.duringAlias)},
        {"after_view_alias", aliasJson(s.afterAlias)},
        {"allocator",
         s.allocator ? json{{"during", s.allocator->during}, {"peak", s.allocator->peak}, {"after", s.allocator->after}}
                     : json(nullptr)},
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
  if (m.cpuAllocator) {
    j["cpu_allocator"] =
        json{{"peak_bytes", m.cpuAllocator->peakBytes},
             {"peak_step", m.cpuAllocator->peakStep ? json(*m.cpuAllocator->peakStep) : json(nullptr)}};
  } else {
    j["cpu_allocator"] = nullptr;
  }
  if (!m.cpuAllocatorNote.empty()) j["cpu_allocator_note"] = m.cpuAllocatorNote;
  j["cpu_heap"] = m.cpuHeap.empty() ? json(nullptr) : json(m.cpuHeap);
  j["page_faults"] = m.pageFaults ? json(*m.pageFaults) : json(nullptr);
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

// The runner may link only LibTorch and nlohmann_json (runtime/CMakeLists.txt), so this is a small copy of
// io::writeFileAtomically (solver/io/src/OutputFile.cpp) rather than a call to it; keep the two alike:
// a new temporary beside the target (O_EXCL: nothing planted there is followed), every write, the sync
// and the close checked, then a rename over a target that must be a regular file or nothing.
void writeFileAtomically(const std::string& path, const std::string& text) {
  auto fail = [&](const std::string& why) { return RunnerError(ExitCode::Input, path + ": cannot write: " + why); };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) throw fail("not a regular file");
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  // A file replaced keeps its permissions, as io::writeFileAtomically's do.
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::fchmod(fd, st.st_mode & 0777) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw fail(std::string("cannot give the temporary file the target's permissions: ") + std::strerror(error));
  }
  std::string_view rest = text;
  bool ok = true;
  while (ok && !rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n > 0)
      rest.remove_prefix(static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      ok = false;
  }
  ok = ok && (::fsync(fd) == 0 || errno == EINVAL || errno == ENOTSUP);
  const int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) ok = false;
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  const std::string why = std::strerror(error != 0 ? error : errno);
  ::unlink(tmp.c_str());
  throw fail(why);
}

}  // namespace remat::runtime
