// libFuzzer entry point for the shard lines of `remat study --merge`: any bytes must give the lines of one
// study or a StudyLineError, never a crash; lines joined are in task order, every task once, and each has
// the fields the merge reads, of their types.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "remat/io/detail/StudyLines.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace remat::io::detail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<StudyLine> lines;
  try {
    appendStudyLines(text, "fuzz.jsonl", lines);
  } catch (const StudyLineError& e) {
    if (std::string_view(e.what()).empty()) fail("an error without a message");
    return 0;
  }
  for (const StudyLine& line : lines)
    if (studyLineProblem(line.value)) fail("a line read whose fields the merge cannot read");
  std::vector<StudyLine> joined;
  try {
    joined = joinStudyLines(std::move(lines));
  } catch (const StudyLineError& e) {
    if (std::string_view(e.what()).empty()) fail("an error without a message");
    return 0;
  }
  for (std::size_t k = 0; k < joined.size(); ++k) {
    const auto& v = joined[k].value;
    if (v["task"].get<std::size_t>() != k) fail("joined lines out of task order");
    if (v["tasks"].get<std::size_t>() != joined.size()) fail("a task count other than the lines joined");
    // What the merge's table and figures read.
    (void)v["graph"].get<std::string>();
    (void)v["budget"].get<std::string>();
    (void)v["solver"].get<std::string>();
    (void)v["fits_budget"].get<bool>();
    (void)v["metrics"].value("overhead", nlohmann::json(nullptr)).dump();
    (void)joined[k].value.dump();
  }
  return 0;
}
