// libFuzzer entry point for Studio's session reader (studio::parseSession): any bytes must give a session
// or an error, never a crash or an abort, and a session read must hold only what Studio offers: a graph
// path, known solvers, a time limit within the field's range.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "remat/solvers/SolverRegistry.hpp"
#include "remat/studio/Session.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = remat::studio::parseSession(text, QStringLiteral("/fuzz/fuzz.remat-session.json"));
  if (!r.ok()) {
    if (r.errors().empty()) fail("reader failed without an error message");
    return 0;
  }
  const remat::studio::Session& s = r.value();
  if (s.graph.isEmpty()) fail("a session without a graph");
  if (!(s.timeLimitSeconds >= 0 && s.timeLimitSeconds <= remat::studio::Session::kMaxTimeLimitSeconds))
    fail("a time limit out of range");
  for (const auto& id : s.solvers)
    if (!remat::solvers::SolverRegistry::builtin().find(id)) fail("an unknown solver");
  return 0;
}
