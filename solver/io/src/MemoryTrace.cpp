#include "remat/io/MemoryTrace.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "remat/io/detail/JsonSupport.hpp"

namespace remat::io {

using detail::Json;

namespace {

// Fills liveBytes, the peak and its event from signed allocation sizes on top of the resident bytes;
// false (with an error at the event) when an event frees more than is held or the sum overflows.
// `pathOf(k)` is event k's JSON path, made only for a message (a path per event would cost more memory
// than the events themselves).
template <class PathOf>
bool accumulate(MemoryTrace& t, const std::vector<std::int64_t>& bytes, PathOf&& pathOf, detail::Diagnostics& diag) {
  std::int64_t live = t.residentBytes;
  t.peakBytes = live;
  t.peakEvent = 0;
  t.liveBytes.clear();
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    if (__builtin_add_overflow(live, bytes[k], &live)) {
      diag.errorAtPath(pathOf(k), "the bytes held overflow 64 bits");
      return false;
    }
    if (live < 0) {
      diag.errorAtPath(pathOf(k), "frees " + std::to_string(-bytes[k]) + " bytes but only " +
                                      std::to_string(live - bytes[k]) + " are held");
      return false;
    }
    t.liveBytes.push_back(live);
    if (live > t.peakBytes) {
      t.peakBytes = live;
      t.peakEvent = k;
    }
  }
  return true;
}

std::optional<std::string> readText(const Json& obj, std::string_view key, const std::string& path,
                                    detail::Diagnostics& diag) {
  const Json* v = detail::member(obj, key);
  if (!v || v->is_null()) return std::string();
  if (!v->is_string()) {
    diag.errorAtPath(detail::childPath(path, key), "expected a string, got " + detail::describe(*v));
    return std::nullopt;
  }
  return v->get<std::string>();
}

Result<MemoryTrace> readNative(const Json& doc, detail::Diagnostics& diag) {
  MemoryTrace t;
  t.format = "remat-memory-trace";
  const Json* version = detail::member(doc, "version");
  if (!version || !version->is_number_integer() || version->get<std::int64_t>() != 1) {
    diag.errorAtPath("/version", "expected 1, got " + (version ? detail::describe(*version) : std::string("nothing")));
    return diag.failure<MemoryTrace>();
  }
  auto device = readText(doc, "device", "", diag);
  auto torch = readText(doc, "torch_version", "", diag);
  auto model = readText(doc, "model", "", diag);
  if (!device || !torch || !model) return diag.failure<MemoryTrace>();
  if (device->empty()) {
    diag.errorAtPath("/device", "missing: the device whose allocations these are (cpu, cuda, ...)");
    return diag.failure<MemoryTrace>();
  }
  t.device = *device;
  t.torchVersion = *torch;
  t.model = *model;
  const Json* resident = detail::member(doc, "resident_bytes");
  if (!resident) {
    diag.errorAtPath("/resident_bytes", "missing: the bytes held before the first event (0 if none)");
    return diag.failure<MemoryTrace>();
  }
  const auto residentBytes = detail::readInt(*resident, "/resident_bytes", diag, true);
  if (!residentBytes) return diag.failure<MemoryTrace>();
  t.residentBytes = *residentBytes;
  t.residentKnown = true;
  const Json* events = detail::member(doc, "events");
  if (!events || !events->is_array()) {
    diag.errorAtPath("/events", events ? "expected an array, got " + detail::describe(*events) : "missing");
    return diag.failure<MemoryTrace>();
  }
  std::vector<std::int64_t> bytes;
  std::int64_t last = 0;
  for (std::size_t k = 0; k < events->size(); ++k) {
    const std::string path = detail::childPath("/events", k);
    const Json& e = (*events)[k];
    if (!e.is_array() || e.size() != 2) {
      diag.errorAtPath(path, "expected [microseconds, bytes], got " + detail::describe(e));
      return diag.failure<MemoryTrace>();
    }
    const auto time = detail::readInt(e[0], path + "/0", diag, true);
    const auto size = detail::readInt(e[1], path + "/1", diag, false);
    if (!time || !size) return diag.failure<MemoryTrace>();
    if (*time < last) {
      diag.errorAtPath(path + "/0", "time " + std::to_string(*time) + " is before the previous event's (" +
                                        std::to_string(last) + "): events must be in the order they happened");
      return diag.failure<MemoryTrace>();
    }
    last = *time;
    t.timeUs.push_back(*time);
    bytes.push_back(*size);
  }
  if (!t.timeUs.empty()) {
    const std::int64_t first = t.timeUs.front();
    for (auto& x : t.timeUs) x -= first;
  }
  if (!accumulate(
          t, bytes, [](std::size_t k) { return detail::childPath("/events", k); }, diag))
    return diag.failure<MemoryTrace>();
  return Result<MemoryTrace>(std::move(t), diag.takeWarnings());
}

// PyTorch's Chrome traces: instant events named "[memory]" with args Bytes (signed), Total Allocated
// (the allocator's total after the event, where written), Device Type (0 CPU, 1 CUDA) and Device Id.
Result<MemoryTrace> readChrome(const Json& events, const std::string& base, detail::Diagnostics& diag) {
  struct Event {
    double ts;
    std::int64_t bytes;
    std::optional<std::int64_t> total;
    std::size_t index;  // in the events array
  };
  std::map<std::string, std::vector<Event>> byDevice;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const Json& e = events[k];
    if (!e.is_object()) continue;
    const Json* name = detail::member(e, "name");
    if (!name || !name->is_string() || name->get<std::string>() != "[memory]") continue;
    const std::string path = detail::childPath(base, k);
    const Json* args = detail::member(e, "args");
    const Json* ts = detail::member(e, "ts");
    if (!args || !args->is_object()) {
      diag.errorAtPath(detail::childPath(path, "args"), "a memory event needs its args (Bytes, Device Type)");
      return diag.failure<MemoryTrace>();
    }
    if (!ts || !ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0) {
      diag.errorAtPath(detail::childPath(path, "ts"), "expected a time in microseconds");
      return diag.failure<MemoryTrace>();
    }
    const Json* size = detail::member(*args, "Bytes");
    if (!size) {
      diag.errorAtPath(detail::childPath(path, "args"), "a memory event needs Bytes");
      return diag.failure<MemoryTrace>();
    }
    const auto sizeBytes =
        detail::readInt(*size, detail::childPath(detail::childPath(path, "args"), "Bytes"), diag, false);
    if (!sizeBytes) return diag.failure<MemoryTrace>();
    std::string device = "cpu";
    if (const Json* type = detail::member(*args, "Device Type")) {
      if (!type->is_number_integer()) {
        diag.errorAtPath(detail::childPath(detail::childPath(path, "args"), "Device Type"), "expected an integer");
        return diag.failure<MemoryTrace>();
      }
      const auto t = type->get<std::int64_t>();
      device = t == 0 ? "cpu" : t == 1 ? "cuda" : "device type " + std::to_string(t);
    }
    std::optional<std::int64_t> total;
    if (const Json* all = detail::member(*args, "Total Allocated"); all && !all->is_null()) {
      total = detail::readInt(*all, detail::childPath(detail::childPath(path, "args"), "Total Allocated"), diag, true);
      if (!total) return diag.failure<MemoryTrace>();
    }
    byDevice[device].push_back({ts->get<double>(), *sizeBytes, total, k});
  }
  if (byDevice.empty()) {
    diag.errorAtPath(base, "no memory events (\"[memory]\"): record with torch.profiler's profile_memory=True");
    return diag.failure<MemoryTrace>();
  }
  // The device with the most bytes allocated (a GPU run's CPU events are the host side).
  auto allocated = [](const std::vector<Event>& es) {
    std::int64_t sum = 0;
    for (const Event& e : es) sum = e.bytes > 0 && sum < INT64_MAX - e.bytes ? sum + e.bytes : sum;
    return sum;
  };
  auto best = byDevice.begin();
  for (auto it = byDevice.begin(); it != byDevice.end(); ++it)
    if (allocated(it->second) > allocated(best->second)) best = it;
  if (byDevice.size() > 1)
    diag.warningAtPath(base, "memory events of " + std::to_string(byDevice.size()) + " devices; using " + best->first +
                                 "'s, which allocated the most");
  std::vector<Event>& es = best->second;
  std::stable_sort(es.begin(), es.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
  MemoryTrace t;
  t.format = "chrome-trace";
  t.device = best->first;
  const bool totals = std::all_of(es.begin(), es.end(), [](const Event& e) { return e.total.has_value(); });
  if (totals) {
    // The allocator's own total after the first event, less that event, is what was held before it.
    t.residentBytes = std::max<std::int64_t>(0, *es.front().total - es.front().bytes);
    t.residentKnown = true;
  } else {
    diag.warningAtPath(base,
                       "the memory events carry no Total Allocated: what was held before the recording "
                       "(parameters, inputs) is not in the curve");
  }
  std::vector<std::int64_t> bytes;
  for (const Event& e : es) {
    t.timeUs.push_back(static_cast<std::int64_t>(std::llround(std::min(e.ts - es.front().ts, 9.0e15))));
    bytes.push_back(e.bytes);
  }
  if (!accumulate(
          t, bytes, [&](std::size_t k) { return detail::childPath(base, es[k].index); }, diag))
    return diag.failure<MemoryTrace>();
  return Result<MemoryTrace>(std::move(t), diag.takeWarnings());
}

}  // namespace

Result<MemoryTrace> readMemoryTrace(std::string_view text, const std::string& fileName) {
  detail::Diagnostics diag(fileName);
  const auto doc = detail::parseJson(text, diag);
  if (!doc) return diag.failure<MemoryTrace>();
  if (doc->is_array()) return readChrome(*doc, "", diag);
  if (!doc->is_object()) {
    diag.errorAtPath("", "expected a remat-memory-trace object or a Chrome trace, got " + detail::describe(*doc));
    return diag.failure<MemoryTrace>();
  }
  if (const Json* format = detail::member(*doc, "format")) {
    if (format->is_string() && format->get<std::string>() == "remat-memory-trace") return readNative(*doc, diag);
    diag.errorAtPath("/format", "expected \"remat-memory-trace\", got " + detail::describe(*format));
    return diag.failure<MemoryTrace>();
  }
  if (const Json* events = detail::member(*doc, "traceEvents")) {
    if (!events->is_array()) {
      diag.errorAtPath("/traceEvents", "expected an array, got " + detail::describe(*events));
      return diag.failure<MemoryTrace>();
    }
    return readChrome(*events, "/traceEvents", diag);
  }
  diag.errorAtPath("", "neither a remat-memory-trace (no \"format\") nor a Chrome trace (no \"traceEvents\")");
  return diag.failure<MemoryTrace>();
}

Result<MemoryTrace> readMemoryTraceFile(const std::string& path) {
  std::string why;
  const auto text = detail::readFileCapped(path, std::uintmax_t{1} << 30, "memory trace", why);
  if (!text) {
    detail::Diagnostics diag(path);
    diag.errorAtPath("", why);
    return diag.failure<MemoryTrace>();
  }
  return readMemoryTrace(*text, path);
}

}  // namespace remat::io
